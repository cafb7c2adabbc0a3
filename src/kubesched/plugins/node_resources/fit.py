"""NodeResourcesFit (PreFilter, Filter, PreScore, Score): does the node have room, and how full.

Filter, as upstream: `Too many pods`, `Insufficient cpu`, `Insufficient memory`,
`Insufficient ephemeral-storage`, `Insufficient <extended resource>` (all that apply);
UnschedulableAndUnresolvable when the pod asks for more than the node's whole allocatable
(preemption could not help), else Unschedulable. Pods placed by any scheduler count.

Score: `scoringStrategy.type` LeastAllocated (default; spread), MostAllocated (bin pack) or
RequestedToCapacityRatio (`requestedToCapacityRatio.shape`), over `scoringStrategy.resources`
(default cpu and memory, weight 1), using the non-zero requests (100m/200Mi for containers
without requests) like upstream, and, like upstream v1.37.2, the containers' requests even
when the pod has pod-level `spec.resources` (the Filter uses the pod-level ones; see
`Pod.fit_score_requests`).

Args (`NodeResourcesFitArgs`): `ignoredResources` (extended resource names the filter
ignores), `ignoredResourceGroups` (their prefixes before `/`), `scoringStrategy`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    StateKey,
    Status,
)
from kubesched.framework.signs import resources_sign
from kubesched.model import Pod
from kubesched.plugins.node_resources import resource_scoring as rs
from kubesched.plugins.node_resources.fit_args import FitArgs, parse_fit_args

NAME = names.NODE_RESOURCES_FIT


@dataclass(frozen=True, slots=True)
class FitRequest:
    """The pod's requests, minus ignored and zero extended resources."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    scalar: tuple[tuple[str, int], ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.scalar)


_PRE_FILTER_KEY: StateKey[FitRequest] = StateKey("PreFilter" + NAME)
_PRE_SCORE_KEY: StateKey[list[int]] = StateKey("PreScore" + NAME)


class NodeResourcesFit:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        self.args: FitArgs = parse_fit_args(args)
        self._names = [name for name, _ in self.args.resources]
        self._kinds = rs.resource_kinds(self._names)
        self._scorer = self.args.scorer()

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...]:
        """Upstream `SignPod`: the pod's requests.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        return (resources_sign(pod),)

    def fit_request(self, pod: Pod) -> FitRequest:
        requests = pod.requests
        scalar = tuple(
            (name, amount)
            for name, amount in requests.scalar.items()
            if amount and not self.args.ignores(name)
        )
        return FitRequest(requests.milli_cpu, requests.memory, requests.ephemeral_storage, scalar)

    def pre_filter(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_PRE_FILTER_KEY, self.fit_request(pod))
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        request = state.get(_PRE_FILTER_KEY)
        if request is None:
            request = self.fit_request(pod)
        return insufficient_resources(request, node_info)

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(_PRE_SCORE_KEY, rs.pod_requests(pod, self._names, use_requested=False))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        requests = state.get(_PRE_SCORE_KEY)
        if requests is None:
            requests = rs.pod_requests(pod, self._names, use_requested=False)
        alloc, req = rs.allocatable_and_requested(
            node_info, self._kinds, requests, use_requested=False
        )
        return self._scorer(req, alloc)

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return (
            ClusterEvent(EventResource.POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN),
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
        )


def insufficient_resources(request: FitRequest, node_info: NodeInfo) -> Status | None:
    """None if the pod fits the node, else the status listing every shortage."""
    allocatable = node_info.node.allocatable
    used = node_info.requested
    if (
        len(node_info.pods) < allocatable.allowed_pods
        and request.milli_cpu <= allocatable.milli_cpu - used.milli_cpu
        and request.memory <= allocatable.memory - used.memory
        and request.ephemeral_storage <= allocatable.ephemeral_storage - used.ephemeral_storage
        and not request.scalar
    ):
        return None  # the common case, without building the list of checks
    reasons: list[str] = []
    if len(node_info.pods) + 1 > allocatable.allowed_pods:
        reasons.append("Too many pods")
    if request.empty:
        return Status(Code.UNSCHEDULABLE, *reasons) if reasons else None
    unresolvable = False
    checks = (
        ("cpu", request.milli_cpu, allocatable.milli_cpu, used.milli_cpu),
        ("memory", request.memory, allocatable.memory, used.memory),
        (
            "ephemeral-storage",
            request.ephemeral_storage,
            allocatable.ephemeral_storage,
            used.ephemeral_storage,
        ),
    )
    for name, wanted, capacity, in_use in checks:
        if wanted > 0 and wanted > capacity - in_use:
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or wanted > capacity
    for name, wanted in request.scalar:
        capacity = allocatable.scalar.get(name, 0)
        if wanted > capacity - used.scalar.get(name, 0):
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or wanted > capacity
    if not reasons:
        return None
    code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
    return Status(code, *reasons)
