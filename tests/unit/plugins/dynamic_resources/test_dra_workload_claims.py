"""A claim shared by the members of a native PodGroup, as kube-scheduler v1.37.2's
DynamicResources handles it: within one pod-group cycle a member reuses the allocation an
earlier member put in flight (upstream `PreFilter` reading `podGroupStateData.
pendingAllocations`, `Reserve` adding to it, `Unreserve` / `MaybeRemoveClaimPendingAllocation`
counting sharers), and with the DRAWorkloadResourceClaims gate a claim the PodGroup declares
is reserved for the PodGroup (`resourceclaim.BindTo`, `IsReservedForPod`, `IsForPod`,
`getPodGroupSnapshot`)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import Code, CycleState, QueueingHint
from kubesched.framework.dra import Claim
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.model.pod_volumes import PodResourceClaim
from kubesched.plugins.dynamic_resources import DynamicResources
from kubesched.plugins.dynamic_resources.pod_claims import (
    ClaimsNotReady,
    owner_problem,
    reserved_for_pod,
)
from kubesched.plugins.dynamic_resources.resources import ALL, CLAIMS, DEVICE_CLASSES, SLICES
from kubesched.plugins.dynamic_resources.workload_claims import Consumer, bind_to
from kubesched.runtime.dra_manager import DraManager
from kubesched.testing import FakeHandle, make_node
from tests.unit.plugins.dynamic_resources.test_dra_plugin import claim, device_class, node_slice

GROUP_REF = {
    "apiGroup": "scheduling.k8s.io",
    "resource": "podgroups",
    "name": "train",
    "uid": "uid-train",
}


def member(name: str, *, group: str = "train", claim_name: str = "shared") -> Pod:
    return Pod.from_json(
        {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {
                "containers": [{"name": "c", "image": "i"}],
                "schedulingGroup": {"podGroupName": group},
                "resourceClaims": [{"name": "gpu", "resourceClaimName": claim_name}],
            },
            "status": {"phase": "Pending"},
        }
    )


def pod_group(claims: list[dict[str, Any]]) -> ApiObject:
    return ApiObject.from_json(
        {
            "metadata": {"name": "train", "namespace": "default", "uid": "uid-train"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "resourceClaims": claims},
        }
    )


SHARED = [{"name": "gpu", "resourceClaimName": "shared"}]


def handle(*objects: tuple[Any, ApiObject]) -> FakeHandle:
    h = FakeHandle(nodes=[make_node().name(n).model() for n in ("n1", "n2")])
    h.listers = ClusterListers((*ALL, SCHEDULING_PODGROUPS))
    h.listers.add(DEVICE_CLASSES, device_class())
    h.listers.add(CLAIMS, claim("shared"))
    h.listers.add(SLICES, node_slice("n1", 0))
    h.listers.add(SLICES, node_slice("n2", 1))
    for spec, obj in objects:
        h.listers.add(spec, obj)
    return h


def plugin(h: FakeHandle, *, gate: bool) -> DynamicResources:
    pl = DynamicResources(args={}, handle=h)
    pl.workload_resource_claims = gate
    return pl


def place(
    pl: DynamicResources, h: FakeHandle, p: Pod, group: CycleState | None
) -> tuple[CycleState, dict[str, Any]]:
    """PreFilter and Filter on every node; Reserve on the feasible node, if one."""
    state = CycleState()
    state.pod_group_cycle = group
    status = pl.pre_filter(state, p, h.list_node_infos())
    if not status.is_success():
        return state, {"prefilter": status}
    found = {info.name: pl.filter(state, p, info) for info in h.list_node_infos()}
    fits = [name for name, status in found.items() if status is None]
    if fits:
        assert pl.reserve(state, p, fits[0]) is None
    return state, found


def in_flight(pl: DynamicResources) -> dict[str, int]:
    manager = pl.manager
    assert isinstance(manager, DraManager)
    return {uid: manager.sharers[uid] for uid in manager.pending}


def test_a_member_reuses_the_allocation_an_earlier_member_put_in_flight() -> None:
    """upstream PreFilter: `podGroupState.pendingAllocations[claim.UID]` -> the pending
    allocation's node selector; Filter's `pendingResult`; Reserve signals a second share."""
    h = handle()
    pl = plugin(h, gate=False)
    group = CycleState()
    first, found = place(pl, h, member("a"), group)
    assert found["n2"] is None
    second, found = place(pl, h, member("b"), group)
    assert found == {
        "n1": found["n1"],
        "n2": None,
    }
    assert found["n1"].code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert found["n1"].message == "resourceclaim not available on the node"
    assert in_flight(pl) == {"uid-shared": 2}
    # upstream Unreserve -> MaybeRemoveClaimPendingAllocation(uid, false): the last sharer
    # takes it out of flight.
    pl.unreserve(second, member("b"), "n2")
    assert in_flight(pl) == {"uid-shared": 1}
    pl.unreserve(first, member("a"), "n2")
    assert in_flight(pl) == {}


def test_outside_one_pod_group_cycle_the_member_waits_for_the_write() -> None:
    h = handle()
    pl = plugin(h, gate=False)
    place(pl, h, member("a"), CycleState())
    _, found = place(pl, h, member("b"), CycleState())  # another group cycle
    assert found["prefilter"].message == (
        "resource claim default/shared is in the process of being allocated"
    )
    _, found = place(pl, h, member("c"), None)  # a pod-by-pod cycle
    assert found["prefilter"].code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def _written(h: FakeHandle) -> dict[str, Any]:
    obj = h.listers.store(CLAIMS).get("shared", "default")
    assert obj is not None
    return dict(obj.status)


def test_with_the_gate_the_claim_is_reserved_for_the_pod_group_once() -> None:
    """upstream `bindClaim` appends `claimStore.getBinding` (`BindTo`: the PodGroup); the
    next member's PreBind skips a claim `IsReservedForPod(pod, claim, true)`."""
    h = handle((SCHEDULING_PODGROUPS, pod_group(SHARED)))
    pl = plugin(h, gate=True)
    state, _ = place(pl, h, member("a"), None)
    assert asyncio.run(pl.pre_bind(state, member("a"), "n2")) is None
    assert _written(h)["reservedFor"] == [GROUP_REF]
    later, found = place(pl, h, member("b"), None)
    assert found["n2"] is None
    assert found["n1"].message == "resourceclaim not available on the node"
    assert asyncio.run(pl.pre_bind(later, member("b"), "n2")) is None
    assert _written(h)["reservedFor"] == [GROUP_REF]
    # upstream Unreserve passes acceptPodGroupReservation=false: the group keeps it.
    pl.unreserve(later, member("b"), "n2")
    assert _written(h)["reservedFor"] == [GROUP_REF]


def test_without_the_gate_the_pod_groups_claims_are_ignored() -> None:
    h = handle((SCHEDULING_PODGROUPS, pod_group(SHARED)))
    pl = plugin(h, gate=False)
    state, _ = place(pl, h, member("a"), None)
    assert asyncio.run(pl.pre_bind(state, member("a"), "n2")) is None
    assert _written(h)["reservedFor"] == [{"resource": "pods", "name": "a", "uid": "uid-a"}]


def test_with_the_gate_a_missing_pod_group_is_unschedulable() -> None:
    """upstream PreFilter: `podResourceClaimBindings` -> the snapshot's PodGroup lister."""
    h = handle()
    _, found = place(plugin(h, gate=True), h, member("a"), None)
    assert found["prefilter"].code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert found["prefilter"].message == "pod group object not found for pod group default/train"


def test_bind_to_matches_every_field_of_the_pod_groups_claim() -> None:
    """upstream `BindTo`: name, resourceClaimName and resourceClaimTemplateName all equal."""
    group = pod_group(SHARED)
    pod = member("a")
    same = PodResourceClaim("gpu", claim_name="shared")
    assert bind_to(pod, group, same) == Consumer(
        "podgroups", "train", "uid-train", "scheduling.k8s.io"
    )
    other_name = PodResourceClaim("other", claim_name="shared")
    assert bind_to(pod, group, other_name) == Consumer("pods", "a", "uid-a")
    template = PodResourceClaim("gpu", template_name="shared")
    assert bind_to(pod, group, template) == Consumer("pods", "a", "uid-a")
    broken = pod_group([{"name": "gpu"}])
    with pytest.raises(ClaimsNotReady) as refused:
        bind_to(pod, broken, same)
    assert str(refused.value) == (
        "PodGroup default/train claim gpu: none of the supported fields are set"
    )


def _claim_json(owner: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {
            "name": "train-gpu-x",
            "namespace": "default",
            "uid": "uid-x",
            "ownerReferences": [owner],
        },
        "spec": {"devices": {"requests": []}},
    }


def _generated(owner: dict[str, Any]) -> Claim:
    return Claim.of(ApiObject.from_json(_claim_json(owner)))


def test_a_claim_made_for_the_pod_group_is_the_members_with_the_gate() -> None:
    """upstream `IsForPod(pod, claim, acceptPodGroupOwner)` / `isForPodGroupByPod`."""
    owner = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "name": "train",
        "uid": "uid-train",
        "controller": True,
    }
    entry = _generated(owner)
    pod = member("a")
    assert owner_problem(pod, entry, accept_group=True) == ""
    assert owner_problem(pod, entry, accept_group=False) == (
        "ResourceClaim default/train-gpu-x was not created for Pod default/a (Pod is not owner)"
    )
    stranger = member("z", group="other")
    assert owner_problem(stranger, entry, accept_group=True) == (
        "ResourceClaim default/train-gpu-x was not created for Pod default/z "
        "(neither Pod nor PodGroup other is the owner)"
    )


def test_with_the_gate_a_member_is_queued_once_its_pod_groups_claim_is_named() -> None:
    """upstream `isSchedulableAfterPodChange` with the gate: the resourceclaim controller
    names the PodGroup's claim (made from a template) in the member's status."""
    owner = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "name": "train",
        "uid": "uid-train",
        "controller": True,
    }
    h = handle((CLAIMS, _generated(owner).obj))
    raw = {
        "metadata": {"name": "a", "namespace": "default", "uid": "uid-a"},
        "spec": {
            "containers": [{"name": "c", "image": "i"}],
            "schedulingGroup": {"podGroupName": "train"},
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
        },
        "status": {"phase": "Pending"},
    }
    old = Pod.from_json(raw)
    named = [{"name": "gpu", "resourceClaimName": "train-gpu-x"}]
    new = Pod.from_json({**raw, "status": {"phase": "Pending", "resourceClaimStatuses": named}})
    with_gate, without = plugin(h, gate=True), plugin(h, gate=False)
    assert with_gate.pre_enqueue(old) is not None
    assert with_gate.is_schedulable_after_target_pod_update(old, old, new) is QueueingHint.QUEUE
    assert with_gate.pre_enqueue(new) is None
    hint = without.is_schedulable_after_target_pod_update(old, old, new)
    assert hint is QueueingHint.QUEUE_SKIP
    # A change of that claim's status concerns the member too, with the gate only.
    claim_obj = _generated(owner).obj
    reserved = {"reservedFor": [GROUP_REF]}
    changed = ApiObject.from_json({**_claim_json(owner), "status": reserved})
    assert (
        with_gate.is_schedulable_after_claim_change(new, claim_obj, changed) is QueueingHint.QUEUE
    )
    hint = without.is_schedulable_after_claim_change(new, claim_obj, changed)
    assert hint is QueueingHint.QUEUE_SKIP


def test_reserved_for_the_pod_group_counts_only_with_the_gate() -> None:
    entry = Claim.of(
        ApiObject.from_json(
            {
                "metadata": {"name": "shared", "namespace": "default", "uid": "uid-shared"},
                "spec": {"devices": {"requests": []}},
                "status": {"reservedFor": [GROUP_REF]},
            }
        )
    )
    assert reserved_for_pod(member("a"), entry, accept_group=True)
    assert not reserved_for_pod(member("a"), entry, accept_group=False)
    assert not reserved_for_pod(member("a", group="other"), entry, accept_group=True)


def test_a_reused_allocation_keeps_its_claims_place_beside_a_new_one() -> None:
    """A member with the shared claim first and its own claim second: Filter allocates only
    its own claim and keeps both results in claim order for Reserve (upstream appends the
    pending results after the new ones, which matches Reserve's order only when the reused
    claims come last)."""
    h = handle((CLAIMS, claim("own")))
    h.listers.add(SLICES, node_slice("n2", 2))  # replaces n2's slice: two devices
    pl = plugin(h, gate=False)
    group = CycleState()
    place(pl, h, member("a"), group)
    two = Pod.from_json(
        {
            "metadata": {"name": "b", "namespace": "default", "uid": "uid-b"},
            "spec": {
                "containers": [{"name": "c", "image": "i"}],
                "schedulingGroup": {"podGroupName": "train"},
                "resourceClaims": [
                    {"name": "gpu", "resourceClaimName": "shared"},
                    {"name": "mine", "resourceClaimName": "own"},
                ],
            },
            "status": {"phase": "Pending"},
        }
    )
    state, found = place(pl, h, two, group)
    assert found["n2"] is None
    explained = pl.explain_node(state, "n2")
    assert explained is not None
    assert explained.startswith("devices shared: gpu.example.com/n2/")
    shared_device = explained.split(";")[0].rsplit("/", 1)[1]
    own_device = explained.split(";")[1].rsplit("/", 1)[1]
    manager = pl.manager
    assert isinstance(manager, DraManager)
    assert shared_device == manager.pending["uid-shared"].results[0].device  # member a's
    assert shared_device != own_device
    assert in_flight(pl) == {"uid-shared": 2, "uid-own": 1}
