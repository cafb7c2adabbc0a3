"""DynamicResources' PodGroupPostFilter (kube-scheduler v1.37.2 `PodGroupPostFilter` and
`deallocatePodGroupClaims`): run when a native PodGroup's cycle found no placement.

For every unscheduled member whose PreFilter ran in the cycle it does what PostFilter does
for a pod (`deallocateOrDeletePodClaims`: free a claim allocated where the member cannot go
and reserved for nobody else, or delete a stale extended-resource claim). If one member had
nothing to free and the `DRAWorkloadResourceClaims` gate is on, and no member of the group
is bound or assumed, the group's own claims are cleaned up: the first claim a member could
not use (`unavailable`) reserved for nobody or for this PodGroup alone is deallocated
(`status.allocation`, `reservedFor` and `devices` cleared); otherwise the PodGroup is taken
out of `reservedFor` of the first allocated claim it declares. One write at most there.

The status is always Unschedulable: upstream's message for the write made, else
`deallocation and deletion of ResourceClaims completed`. Not for topology-aware groups
(the gate on and the PodGroup has `schedulingConstraints`): an empty status.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from kubesched.framework import Code, CycleState, Status
from kubesched.framework.dra import Claim, SharedDRAManager
from kubesched.model import ApiObject, Pod
from kubesched.model.pod_volumes import PodResourceClaim, pod_resource_claims
from kubesched.plugins.dynamic_resources.cycle import CycleData
from kubesched.plugins.dynamic_resources.pod_claims import reserved_for_pod
from kubesched.plugins.dynamic_resources.workload_claims import GROUP_KEY

DONE: Final = "deallocation and deletion of ResourceClaims completed"
DEALLOCATED: Final = "deallocation of PodGroup ResourceClaim completed"
UNRESERVED: Final = "ResourceClaim unreserved for PodGroup"
NOT_FOUND: Final = "not found"
"""upstream `fwk.ErrNotFound`: the cycle state has no DynamicResources data (no member's
PreFilter ran)."""

PodPostFilter = Callable[[CycleData, Pod], bool]
"""upstream `deallocateOrDeletePodClaims`: whether a claim of the pod was freed or deleted."""


@dataclass(frozen=True, slots=True)
class GroupWrites:
    """The plugin's writes the group's cleanup may start (in the background)."""

    deallocate: Callable[[Claim], None]
    unreserve: Callable[[Claim, str], None]
    """Take the consumer with this uid out of the claim's `reservedFor`."""


@dataclass(frozen=True, slots=True)
class GroupCycle:
    """What the pod-group cycle hands the plugin."""

    group: ApiObject
    unscheduled: Sequence[Pod]
    shared: CycleState | None
    """The cycle state the members' states share (upstream `PodGroupCycleState`)."""
    scheduled: int
    """Members bound or assumed before the cycle (upstream `ScheduledPodsCount`)."""
    topology_aware: bool = False


def pod_group_post_filter(
    cycle: GroupCycle,
    *,
    gate: bool,
    manager: SharedDRAManager,
    pod_post_filter: PodPostFilter,
    writes: GroupWrites,
) -> Status:
    """upstream `DynamicResources.PodGroupPostFilter` for a native PodGroup."""
    if cycle.topology_aware and cycle.group.spec.get("schedulingConstraints") is not None:
        return Status(Code.UNSCHEDULABLE)
    data = _group_states(cycle.shared)
    if data is None:
        return Status(Code.ERROR, NOT_FOUND)
    unreserve_group = False
    for pod in cycle.unscheduled:
        state = data.get((pod.namespace, pod.name))
        if state is not None and not pod_post_filter(state, pod):
            unreserve_group = True
    if unreserve_group and gate and cycle.unscheduled:
        status = _clean_up_group_claims(cycle, list(data.values()), manager, writes)
        if status is not None:
            return status
    return Status(Code.UNSCHEDULABLE, DONE)


def _group_states(shared: CycleState | None) -> dict[tuple[str, str], CycleData] | None:
    """upstream `getPodGroupStateDataFromPodGroupCycleState`: the members' PreFilter data
    (None: not written)."""
    data = None if shared is None else shared.get(GROUP_KEY)
    return None if data is None else data.pods


def _clean_up_group_claims(
    cycle: GroupCycle,
    states: list[CycleData],
    manager: SharedDRAManager,
    writes: GroupWrites,
) -> Status | None:
    """upstream `deallocatePodGroupClaims` (for the first unscheduled member)."""
    pod, group = cycle.unscheduled[0], cycle.group
    if not pod.pod_group_name or cycle.scheduled > 0:
        return None
    for state in states:
        for index in sorted(state.unavailable):
            entry = state.claims[index]
            reserved = entry.claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == group.uid):
                writes.deallocate(entry)
                return Status(Code.UNSCHEDULABLE, DEALLOCATED)
    for declared in pod_resource_claims(group.spec):
        try:
            found = _declared_claim(group, declared, manager)
        except LookupError as exc:
            return Status(Code.ERROR, str(exc))
        if found is None or found.claim.allocation is None:
            continue
        if reserved_for_pod(pod, found, accept_group=True):
            writes.unreserve(found, group.uid)
            return Status(Code.UNSCHEDULABLE, UNRESERVED)
    return None


def _declared_claim(
    group: ApiObject, declared: PodResourceClaim, manager: SharedDRAManager
) -> Claim | None:
    """upstream `resourceclaim.NameFromPodGroup`, the lister's Get and `IsForPodGroup`: the
    claim (None: not made, or not controlled by the PodGroup); LookupError with upstream's
    text otherwise."""
    key = f"{group.namespace}/{group.name}"
    name: str | None
    if declared.claim_name:
        name, check_owner = declared.claim_name, False
    elif declared.template_name:
        made = [
            entry
            for entry in group.status.get("resourceClaimStatuses") or ()
            if entry.get("name") == declared.name
        ]
        if not made:
            raise LookupError(f"PodGroup {key}: ResourceClaim not created yet")
        name, check_owner = made[0].get("resourceClaimName") or None, True
    else:
        raise LookupError(
            f"PodGroup {key}, spec.resourceClaim {declared.name}: "
            "none of the supported fields are set"
        )
    if name is None:
        return None
    entry = manager.claim(group.namespace, name)
    if entry is None:
        raise LookupError(f'resourceclaim.resource.k8s.io "{name}" not found')
    if check_owner and entry.controller_uid != group.uid:
        return None
    return entry
