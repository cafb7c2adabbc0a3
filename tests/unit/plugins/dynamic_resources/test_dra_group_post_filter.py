"""DynamicResources' PodGroupPostFilter, as kube-scheduler v1.37.2's `PodGroupPostFilter`
and `deallocatePodGroupClaims` (the cases of upstream's `TestPodGroupPostFilter`): after a
native PodGroup's failed cycle, a PodGroup claim allocated where a member cannot go and
reserved for nobody or for the PodGroup alone is deallocated, else the PodGroup is taken out
of `reservedFor` of its allocated claims; only with DRAWorkloadResourceClaims and while no
member is bound or assumed."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import Code, CycleState, Status
from kubesched.model import ApiObject
from kubesched.plugins.dynamic_resources import DynamicResources
from kubesched.plugins.dynamic_resources.group_post_filter import (
    DEALLOCATED,
    DONE,
    UNRESERVED,
    GroupCycle,
)
from kubesched.plugins.dynamic_resources.resources import CLAIMS
from kubesched.testing import FakeHandle
from tests.unit.plugins.dynamic_resources.test_dra_workload_claims import (
    GROUP_REF,
    SHARED,
    handle,
    member,
    place,
    plugin,
    pod_group,
)


def _claim_status(h: FakeHandle, name: str = "shared") -> dict[str, Any]:
    obj = h.listers.store(CLAIMS).get(name, "default")
    assert obj is not None
    return dict(obj.status)


def _allocated_on_n2(*, gate: bool, group: ApiObject | None = None) -> FakeHandle:
    """The claim `shared` allocated on n2 by member a's PreBind: reserved for the PodGroup
    with the gate, for pod a without."""
    h = handle((SCHEDULING_PODGROUPS, group or pod_group(SHARED)))
    pl = plugin(h, gate=gate)
    state, _ = place(pl, h, member("a"), None)
    assert asyncio.run(pl.pre_bind(state, member("a"), "n2")) is None
    return h


def _run(
    pl: DynamicResources,
    shared: CycleState,
    *,
    scheduled: int = 0,
    group: ApiObject | None = None,
    topology_aware: bool = False,
) -> Status:
    """PodGroupPostFilter for the unscheduled member b; its writes done."""
    cycle = GroupCycle(
        group=group or pod_group(SHARED),
        unscheduled=[member("b")],
        shared=shared,
        scheduled=scheduled,
        topology_aware=topology_aware,
    )

    async def run() -> Status:
        status = pl.pod_group_post_filter(cycle)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return status

    return asyncio.run(run())


def _member_b_filtered(h: FakeHandle, *, gate: bool) -> tuple[DynamicResources, CycleState]:
    """Member b through PreFilter and Filter in a pod-group cycle: the claim is unavailable
    on n1 (upstream `unavailableClaims`)."""
    pl = plugin(h, gate=gate)
    shared = CycleState()
    _, found = place(pl, h, member("b"), shared)
    assert found["n1"].message == "resourceclaim not available on the node"
    return pl, shared


def test_a_claim_reserved_for_the_pod_group_alone_is_deallocated() -> None:
    """upstream case `deallocate-podgroup-level-claim`: `reservedForOnlyThisPodGroup` ->
    UpdateStatus with ReservedFor, Allocation and Devices nil."""
    h = _allocated_on_n2(gate=True)
    assert _claim_status(h)["reservedFor"] == [GROUP_REF]
    pl, shared = _member_b_filtered(h, gate=True)
    status = _run(pl, shared)
    assert status == Status(Code.UNSCHEDULABLE, DEALLOCATED)
    written = _claim_status(h)
    assert written.get("allocation") is None
    assert written.get("reservedFor") is None
    assert written.get("devices") is None


def test_an_allocated_claim_is_unreserved_for_the_pod_group() -> None:
    """upstream case `unreserve-podgroup-claim`: no unavailable claim; the PodGroup's
    allocated claim `IsReservedForPod(pod, claim, true)` -> a strategic merge patch deleting
    the PodGroup's uid from reservedFor; the allocation stays."""
    h = _allocated_on_n2(gate=True)
    pl = plugin(h, gate=True)
    shared = CycleState()
    state = CycleState()
    state.pod_group_cycle = shared
    assert pl.pre_filter(state, member("b"), h.list_node_infos()).is_success()
    status = _run(pl, shared)
    assert status == Status(Code.UNSCHEDULABLE, UNRESERVED)
    written = _claim_status(h)
    assert not written.get("reservedFor")
    assert written["allocation"]["devices"]["results"]
    patches = [p for key, on_status, p in h.object_patches if key == "default/shared"]
    assert patches[-1]["status"] == {"reservedFor": [{"$patch": "delete", "uid": "uid-train"}]}


def test_without_the_gate_only_the_members_own_claims_are_looked_at() -> None:
    """upstream case `skip-deallocate-feature-disabled`: the claim is reserved for pod a, so
    `deallocateOrDeletePodClaims` frees nothing, and without EnableDRAWorkloadResourceClaims
    the group's claims are left alone."""
    h = _allocated_on_n2(gate=False)
    pl, shared = _member_b_filtered(h, gate=False)
    before = _claim_status(h)
    assert _run(pl, shared) == Status(Code.UNSCHEDULABLE, DONE)
    assert _claim_status(h) == before


def test_nothing_is_freed_while_a_member_is_bound_or_assumed() -> None:
    """upstream `deallocatePodGroupClaims`: `podGroupState.ScheduledPodsCount() > 0` ->
    nil (the claim may be in use)."""
    h = _allocated_on_n2(gate=True)
    pl, shared = _member_b_filtered(h, gate=True)
    before = _claim_status(h)
    assert _run(pl, shared, scheduled=1) == Status(Code.UNSCHEDULABLE, DONE)
    assert _claim_status(h) == before


def test_a_claim_reserved_for_nobody_is_freed_like_postfilter_does() -> None:
    """upstream step 1 (`deallocateOrDeletePodClaims` per unscheduled member): a claim
    reserved for nobody is deallocated; the member found one, so the group's claims are not
    looked at and the status is `deallocation and deletion of ResourceClaims completed`."""
    h = _allocated_on_n2(gate=True)
    store = h.listers.store(CLAIMS)
    obj = store.get("shared", "default")
    assert obj is not None
    status = {**obj.status, "reservedFor": []}
    h.listers.add(CLAIMS, dataclasses.replace(obj, body={**obj.body, "status": status}))
    pl, shared = _member_b_filtered(h, gate=True)
    assert _run(pl, shared) == Status(Code.UNSCHEDULABLE, DONE)
    assert _claim_status(h).get("allocation") is None


def test_topology_aware_groups_and_a_cycle_without_prefilter_data() -> None:
    """upstream: `EnableTopologyAwareWorkloadScheduling` and `Spec.SchedulingConstraints`
    -> a plain Unschedulable; no `podGroupStateData` in the cycle state -> the error of
    `pgState.Read` (`fwk.ErrNotFound`)."""
    plain = pod_group(SHARED)
    spec = {**plain.spec, "schedulingConstraints": {"topology": [{"key": "rack"}]}}
    constrained = dataclasses.replace(plain, body={**plain.body, "spec": spec})
    h = _allocated_on_n2(gate=True, group=constrained)
    pl, shared = _member_b_filtered(h, gate=True)
    before = _claim_status(h)
    status = _run(pl, shared, group=constrained, topology_aware=True)
    assert status == Status(Code.UNSCHEDULABLE)
    assert _claim_status(h) == before
    assert _run(pl, CycleState()) == Status(Code.ERROR, "not found")
