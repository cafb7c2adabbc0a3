"""DynamicResources' state of one scheduling cycle (written by PreFilter, read by every later
extension point), the statuses it answers with, and PreFilter's checks of the pod's claims."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesched.apis import names
from kubesched.dra.structured import (
    AllocationError,
    Allocator,
    NodePredicate,
    compile_node_selector,
)
from kubesched.framework import Code, StateKey, Status
from kubesched.framework.dra import Claim, SharedDRAManager
from kubesched.model import Pod
from kubesched.model.dra_claims import AllocationResult
from kubesched.plugins.dynamic_resources import extended as extended_resources
from kubesched.plugins.dynamic_resources.workload_claims import (
    Consumer,
    GroupCycleData,
    pod_consumer,
)


def unschedulable(reason: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason)


def error(reason: str) -> Status:
    return Status(Code.ERROR, reason)


@dataclass(slots=True)
class CycleData:
    """One cycle's claims (written by PreFilter; a pod without claims has none)."""

    claims: list[Claim] = field(default_factory=list)
    available_on: list[NodePredicate | None] = field(default_factory=list)
    """The node selector of each allocated claim's allocation, compiled (None: any node)."""
    allocation: list[AllocationResult | None] = field(default_factory=list)
    """Set by Reserve for the claims it allocated."""
    reused: dict[int, AllocationResult] = field(default_factory=dict)
    """Claims whose allocation an earlier member of this pod-group cycle put in flight:
    the member takes the same devices (upstream's pending allocation in PreFilter)."""
    bind_to: list[Consumer] = field(default_factory=list)
    """Whom PreBind reserves each claim for (DRAWorkloadResourceClaims; empty: the pod)."""
    allocator: Allocator | None = None
    unavailable: set[int] = field(default_factory=set)
    node_allocations: dict[str, list[AllocationResult]] = field(default_factory=dict)
    extended: dict[str, int] = field(default_factory=dict)
    """The pod's extended resource requests, when a DeviceClass backs one of them."""
    extended_index: int | None = None
    """Where the claim for them is in `claims` (the last one)."""
    initial_extended_uid: str = ""
    """That claim's uid in PreFilter (the in-memory claim's, under which Reserve put its
    allocation in flight)."""
    node_claims: dict[str, extended_resources.NodeClaim] = field(default_factory=dict)
    """Per node, that claim with the device requests the node must serve."""

    def user_claims(self) -> bool:
        return len(self.claims) > (0 if self.extended_index is None else 1)

    def clone(self) -> CycleData:
        return self

    def to_allocate(self) -> list[int]:
        return [i for i, entry in enumerate(self.claims) if entry.claim.allocation is None]

    def consumer(self, index: int, pod: Pod) -> Consumer:
        """upstream `claimStore.getBinding`: the pod unless the claim is its PodGroup's."""
        return self.bind_to[index] if index < len(self.bind_to) else pod_consumer(pod)


KEY: StateKey[CycleData] = StateKey(names.DYNAMIC_RESOURCES)


def check_claims(
    manager: SharedDRAManager,
    data: CycleData,
    claims: list[Claim],
    group: GroupCycleData | None = None,
) -> Status | None:
    """Note where allocated claims are available; reuse the allocation an earlier member
    of this pod-group cycle (`group`) put in flight; refuse a claim another pod is being
    allocated, or one whose DeviceClass is missing."""
    for index, entry in enumerate(claims):
        claim = entry.claim
        if claim.allocation is not None:
            status = _note_available(data, index, claim.allocation)
            if status is not None:
                return status
            continue
        pending = manager.pending_allocation(entry.uid)
        if pending is not None and group is not None and group.pending.get(entry.uid):
            data.reused[index] = pending
            status = _note_available(data, index, pending)
            if status is not None:
                return status
            continue
        if pending is not None:
            return unschedulable(f"resource claim {claim.key} is in the process of being allocated")
        if index == data.extended_index:
            continue  # made per node by Filter (or checked there, from an earlier cycle)
        status = _check_classes(manager, entry)
        if status is not None:
            return status
    return None


def _note_available(data: CycleData, index: int, allocation: AllocationResult) -> Status | None:
    selector = allocation.node_selector
    if selector is not None:
        try:
            data.available_on[index] = compile_node_selector(selector)
        except AllocationError as exc:
            return error(str(exc))
    return None


def _check_classes(manager: SharedDRAManager, entry: Claim) -> Status | None:
    claim = entry.claim
    for request in claim.requests:
        if request.exactly is not None:
            status = _check_class(manager, request.exactly.device_class_name, request.name)
        elif request.first_available:
            status = None
            for sub in request.first_available:
                status = _check_class(manager, sub.device_class_name, f"{request.name}/{sub.name}")
                if status is not None:
                    break
        else:
            status = unschedulable(
                f"resource claim {claim.key}, request {request.name}: unknown request type"
            )
        if status is not None:
            return status
    return None


def _check_class(manager: SharedDRAManager, class_name: str, request: str) -> Status | None:
    if not class_name:
        return error(f"request {request}: unsupported request type")
    if manager.device_class(class_name) is None:
        return unschedulable(f"request {request}: device class {class_name} does not exist")
    return None
