"""DynamicResources on one node: Filter's allocation of the pod's claims there (the
allocator, within `filterTimeout`, its answers remembered in `memo`; the extended resources'
claim when the node does not serve them itself), Score's reward for the earlier
`firstAvailable` subrequests chosen, and `kubesched explain`'s text of the devices."""

from __future__ import annotations

import time
from typing import Final

from kubesched.dra.structured import AllocationError, NodeAllocationError
from kubesched.framework import NodeInfo, Status
from kubesched.model import Pod
from kubesched.plugins.dynamic_resources import extended as extended_resources
from kubesched.plugins.dynamic_resources.cycle import CycleData, error, unschedulable
from kubesched.plugins.dynamic_resources.memo import AllocationMemo
from kubesched.plugins.helper.extended_resources import ExtendedResourceClasses

FIRST_AVAILABLE_MAX_SIZE: Final = 8
"""upstream `resourceapi.FirstAvailableDeviceRequestMaxSize`."""


def filter_node(
    data: CycleData,
    pod: Pod,
    node_info: NodeInfo,
    *,
    classes: ExtendedResourceClasses,
    memo: AllocationMemo,
    filter_timeout: float,
) -> Status | None:
    """Filter for a pod with claims: whether they can have devices on this node."""
    node_claim: extended_resources.NodeClaim | None = None
    if data.extended_index is not None:
        node_claim, status = _filter_extended(data, pod, node_info, classes)
        if status is not None:
            return status
        if node_claim is None and not data.user_claims():
            return None  # the node's device plugin serves them (NodeResourcesFit checked)
    node = node_info.node
    unavailable = [
        index
        for index, matches in enumerate(data.available_on)
        if matches is not None and not matches(node)
    ]
    if data.allocator is not None:
        status = _allocate(data, node_info, node_claim, memo, filter_timeout)
        if status is not None:
            return status
    if unavailable:
        data.unavailable.update(unavailable)
        return unschedulable("resourceclaim not available on the node")
    return None


def _filter_extended(
    data: CycleData, pod: Pod, node_info: NodeInfo, classes: ExtendedResourceClasses
) -> tuple[extended_resources.NodeClaim | None, Status | None]:
    """upstream `filterExtendedResources`."""
    assert data.extended_index is not None
    entry = data.claims[data.extended_index]
    if entry.claim.requests:  # made in an earlier cycle: PostFilter deletes it
        return None, unschedulable("cannot schedule extended resource claim")
    needed = extended_resources.needed_on_node(
        data.extended, node_info.node.allocatable.scalar, classes
    )
    if needed is None:
        return None, unschedulable("cannot fit resource")
    if not needed or entry.claim.allocation is not None:
        return None, None
    node_claim = extended_resources.node_claim(pod, entry, needed, classes)
    data.node_claims[node_info.name] = node_claim
    return node_claim, None


def _allocate(
    data: CycleData,
    node_info: NodeInfo,
    node_claim: extended_resources.NodeClaim | None,
    memo: AllocationMemo,
    timeout: float,
) -> Status | None:
    assert data.allocator is not None
    node = node_info.node
    indexes = [i for i in data.to_allocate() if i not in data.reused]
    claims = [
        node_claim.claim
        if node_claim is not None and i == data.extended_index
        else data.claims[i].claim
        for i in indexes
    ]
    deadline = time.monotonic() + timeout if timeout > 0 else None
    try:
        results = memo.allocate(data.allocator, node, claims, deadline)
    except NodeAllocationError as exc:
        return unschedulable(str(exc))
    except AllocationError as exc:
        if "context deadline exceeded" in str(exc):
            return error(f"node {node.name}: timed out trying to allocate devices")
        return error(str(exc))
    if results is None or len(results) != len(claims):
        return unschedulable("cannot allocate all claims")
    if data.reused:  # in claim order (upstream appends them, see workload_claims)
        found = dict(zip(indexes, results, strict=True)) | data.reused
        results = [found[i] for i in data.to_allocate()]
    data.node_allocations[node.name] = results
    return None


def score_node(data: CycleData, node_name: str) -> int:
    """Score: the more of the claims' earlier `firstAvailable` subrequests the node's
    allocation chose, the higher."""
    results = data.node_allocations.get(node_name)
    if results is None:
        return 0
    score = 0
    allocated = iter(results)
    for entry in data.claims:
        allocation = entry.claim.allocation or next(allocated, None)
        if allocation is None:
            raise RuntimeError(
                f"number of allocations {len(results)} is smaller than number of claims "
                "needing allocation"
            )
        chosen = {r.request for r in allocation.results if "/" in r.request}
        for request in entry.claim.requests:
            for i, sub in enumerate(request.first_available):
                if f"{request.name}/{sub.name}" in chosen:
                    score += FIRST_AVAILABLE_MAX_SIZE - i
    return score


def explain_node(data: CycleData | None, node_name: str) -> str | None:
    """For `kubesched explain`: the devices this node would give the pod's claims."""
    results = None if data is None else data.node_allocations.get(node_name)
    if data is None or results is None:
        return None
    names = [data.claims[i].obj.name for i in data.to_allocate()]
    parts = []
    for name, allocation in zip(names, results, strict=True):
        devices = ", ".join(f"{r.driver}/{r.pool}/{r.device}" for r in allocation.results)
        parts.append(f"{name}: {devices or 'no device'}")
    return "devices " + "; ".join(parts)
