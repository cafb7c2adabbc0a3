"""Resource-based node scores shared by NodeResourcesFit and NodeResourcesBalancedAllocation
(upstream `resourceAllocationScorer` and its strategies), integer math as in Go.

For each configured resource the scorer compares the node's allocatable with what is requested
on it plus the pod's request. NodeResourcesFit counts cpu/memory with the non-zero defaults
(100m / 200Mi for containers without requests); BalancedAllocation uses the real requests.
Extended resources the pod does not request, and resources the node lacks, are left out.
An extended resource a DeviceClass backs, on a node that does not offer it itself, counts
the node's devices of that class and how many are allocated (DRAExtendedResource,
`DraExtended`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kubesched.framework import MAX_NODE_SCORE, NodeInfo
from kubesched.model import Pod
from kubesched.model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource
from kubesched.plugins.helper.extended_resources import (
    ExtendedResourceClasses,
    is_dra_extended_resource_name,
)
from kubesched.plugins.helper.normalize import go_div
from kubesched.plugins.helper.shape import MAX_UTILIZATION, Shape, shape_score
from kubesched.plugins.node_resources.dra_totals import DeviceCountsView, DraTotals

Scorer = Callable[[list[int], list[int]], int]


def pod_requests(pod: Pod, names: Sequence[str], *, use_requested: bool) -> list[int]:
    """The pod's request of each resource (cpu in millicores): BalancedAllocation's real
    requests (pod-level ones included), or NodeResourcesFit's non-zero container requests
    (`Pod.fit_score_requests`: upstream's Fit scorer skips pod-level resources)."""
    requests = pod.requests if use_requested else pod.fit_score_requests
    return [requests.get(name) for name in names]


_CPU, _MEMORY, _EPHEMERAL, _SCALAR, _OTHER = range(5)
_KINDS = {CPU: _CPU, MEMORY: _MEMORY, EPHEMERAL_STORAGE: _EPHEMERAL}


def resource_kinds(names: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """Classify resource names once, so per-node scoring compares small ints, not strings."""
    return tuple(
        (_KINDS.get(name, _SCALAR if is_scalar_resource(name) else _OTHER), name) for name in names
    )


@dataclass(frozen=True, slots=True)
class DraExtended:
    """One scoring cycle's DeviceClass-backed resources among the scored ones (upstream
    `draPreScoreState`): resource name -> its class, and the devices as the cycle found
    them."""

    classes: Mapping[str, str]
    counts: DeviceCountsView


class DraScoredResources:
    """The scored resources a DeviceClass may back (extended resource names, found once),
    and where a cycle's DraExtended comes from."""

    def __init__(
        self, names: Sequence[str], classes: ExtendedResourceClasses, totals: DraTotals
    ) -> None:
        self._candidates = tuple(
            (i, name) for i, name in enumerate(names) if is_dra_extended_resource_name(name)
        )
        self._classes, self._totals = classes, totals

    def for_pod(self, requests: Sequence[int]) -> DraExtended | None:
        """The cycle's DraExtended when the pod requests a scored resource a DeviceClass
        backs (upstream takes the state whenever one is scored; without a request it is
        never read)."""
        if not self._candidates:
            return None
        backed = {}
        for i, name in self._candidates:
            if requests[i]:
                device_class = self._classes.class_for(name)
                if device_class is not None:
                    backed[name] = device_class
        return DraExtended(backed, self._totals.view()) if backed else None


def allocatable_and_requested(
    node_info: NodeInfo,
    kinds: Sequence[tuple[int, str]],
    pod_requests: Sequence[int],
    *,
    use_requested: bool,
    dra: DraExtended | None = None,
) -> tuple[list[int], list[int]]:
    """Per resource: (node allocatable, node requested + pod request); 0, 0 to leave it out."""
    allocatable = node_info.node.allocatable
    requested = node_info.requested
    cpu_mem = requested if use_requested else node_info.non_zero_requested
    alloc_out = [0] * len(kinds)
    req_out = [0] * len(kinds)
    for i, (kind, name) in enumerate(kinds):
        pod_request = pod_requests[i]
        if kind == _CPU:
            alloc, used = allocatable.milli_cpu, cpu_mem.milli_cpu
        elif kind == _MEMORY:
            alloc, used = allocatable.memory, cpu_mem.memory
        elif kind == _EPHEMERAL:
            alloc, used = allocatable.ephemeral_storage, requested.ephemeral_storage
        elif kind == _SCALAR and pod_request:
            alloc = allocatable.scalar.get(name, 0)
            used = requested.scalar.get(name, 0)
            if not alloc and dra is not None and name in dra.classes:
                alloc, used = dra.counts.of_class(node_info.node, dra.classes[name])
        else:
            continue  # an unrequested extended resource, or one unknown to Kubernetes
        if alloc:
            alloc_out[i] = alloc
            req_out[i] = used + pod_request
    return alloc_out, req_out


def least_allocated(weights: Sequence[int]) -> Scorer:
    """Favor free nodes: mean over resources of (allocatable - requested) / allocatable."""

    def score(requested: list[int], allocatable: list[int]) -> int:
        total = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            free = 0 if req > alloc else (alloc - req) * MAX_NODE_SCORE // alloc
            total += free * weight
            weight_sum += weight
        return total // weight_sum if weight_sum else 0

    return score


def most_allocated(weights: Sequence[int]) -> Scorer:
    """Favor full nodes (bin packing): mean over resources of requested / allocatable."""

    def score(requested: list[int], allocatable: list[int]) -> int:
        total = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            total += min(req, alloc) * MAX_NODE_SCORE // alloc * weight
            weight_sum += weight
        return total // weight_sum if weight_sum else 0

    return score


def requested_to_capacity_ratio(weights: Sequence[int], shape: Shape) -> Scorer:
    """Score by a piecewise-linear function of utilization (`plugins.helper.shape`)."""
    utilization_score = shape_score(shape)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return utilization_score(MAX_UTILIZATION)
        return utilization_score(requested * MAX_UTILIZATION // capacity)

    def score(requested: list[int], allocatable: list[int]) -> int:
        total = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            value = resource_score(req, alloc)
            if value > 0:
                total += value * weight
                weight_sum += weight
        return round_half_away(total, weight_sum) if weight_sum else 0

    return score


def round_half_away(numerator: int, denominator: int) -> int:
    """Go's `math.Round(float64(n) / float64(d))` for non-negative values."""
    return math.floor(numerator / denominator + 0.5)


def balanced_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """(1 - standard deviation of the utilization fractions) * 100 (upstream
    `balancedResourceScore`); resources with allocatable 0 are left out."""
    fractions = [
        min(req / alloc, 1.0) for req, alloc in zip(requested, allocatable, strict=True) if alloc
    ]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def balanced(requested: Sequence[int], allocated: Sequence[int], allocatable: Sequence[int]) -> int:
    """BalancedAllocation's score: how much the pod improves the node's balance (upstream
    `balancedResourceScorer`, v1.37): 50 + (50 + with_pod - without_pod) / 2, where each side
    is `balanced_score` (in 50..100) of the node's requests with / without the pod. A node
    without pods (all fractions 0) is perfectly balanced without the pod: 100."""
    with_pod = balanced_score(requested, allocatable)
    without_pod = balanced_score(allocated, allocatable)
    half = MAX_NODE_SCORE // 2
    return half + go_div(half + with_pod - without_pod, 2)
