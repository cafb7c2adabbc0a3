"""GangScheduling with the `CompositePodGroup` gate (its CompositePodGroup lister served),
as upstream's `preEnqueueWithHierarchies`, `isCPGTreeReady`, `permitPodForHierarchy` and
`areSameHierarchy`; without the gate a PodGroup's parent is ignored."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.framework import Code, CycleState, QueueingHint, Status
from kubesched.framework.listers import ClusterListers
from kubesched.framework.waiting import WaitingPod
from kubesched.model import ApiObject, Pod
from kubesched.plugins.gang_scheduling import GangScheduling
from kubesched.plugins.helper.hierarchy import Hierarchy, HierarchyError, composite_key
from kubesched.testing import FakeHandle, make_pod


def _obj(name: str, spec: dict[str, Any]) -> ApiObject:
    return ApiObject.from_json({"metadata": {"namespace": "ns", "name": name}, "spec": spec})


def _pg(name: str, parent: str = "job", min_count: int = 2) -> ApiObject:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return _obj(name, spec)


def _cpg(name: str, min_group_count: int = 2, parent: str = "") -> ApiObject:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minGroupCount": min_group_count}}}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return _obj(name, spec)


def _member(name: str, group: str) -> Pod:
    return make_pod().name(name).namespace("ns").uid(name).pod_group(group).model()


def _setup(*, gate: bool = True) -> tuple[FakeHandle, GangScheduling]:
    specs = [SCHEDULING_PODGROUPS, *([SCHEDULING_COMPOSITEPODGROUPS] if gate else [])]
    handle = FakeHandle(listers=ClusterListers(specs))
    for group in ("pg-a", "pg-b"):
        handle.listers.add(SCHEDULING_PODGROUPS, _pg(group))
        for i in range(2):
            handle.listers.pods.on_add(_member(f"{group}-{i}", group))
    return handle, GangScheduling(args={}, handle=handle)


def _status(result: Status | None) -> tuple[Code, str] | None:
    return None if result is None else (result.code, result.message)


def test_pre_enqueue_waits_for_the_root_composite() -> None:
    _, plugin = _setup()
    assert _status(plugin.pre_enqueue(_member("pg-a-0", "pg-a"))) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        (
            "failed to build hierarchy snapshot: composite pod group object not found in "
            "state for compositepodgroup/ns/job"
        ),
    )


def test_pre_enqueue_waits_for_min_group_count_ready_children() -> None:
    handle, plugin = _setup()
    handle.listers.add(SCHEDULING_COMPOSITEPODGROUPS, _cpg("job", min_group_count=3))
    assert _status(plugin.pre_enqueue(_member("pg-a-0", "pg-a"))) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        'waiting for composite pod group "job" tree to meet quorum',
    )
    handle.listers.add(SCHEDULING_COMPOSITEPODGROUPS, _cpg("job", min_group_count=2))
    assert plugin.pre_enqueue(_member("pg-a-0", "pg-a")) is None


def test_without_the_gate_the_parent_is_ignored() -> None:
    _, plugin = _setup(gate=False)
    assert plugin.pre_enqueue(_member("pg-a-0", "pg-a")) is None


def test_permit_waits_for_the_tree_then_allows_every_member() -> None:
    async def run() -> None:
        handle, plugin = _setup()
        handle.listers.add(SCHEDULING_COMPOSITEPODGROUPS, _cpg("job"))
        pods = [_member(f"{g}-{i}", g) for g in ("pg-a", "pg-b") for i in range(2)]
        waiting = []
        for pod in pods[:3]:
            plugin.reserve(CycleState(), pod, "n1")
            status, timeout = plugin.permit(CycleState(), pod, "n1")
            assert _status(status) == (
                Code.WAIT,
                'waiting for composite pod group "job" tree to meet quorum',
            )
            waiter = WaitingPod(pod=pod, plugin_timeouts={"GangScheduling": timeout})
            handle.waiting_pods.add(waiter)
            waiting.append(waiter)
        assert "ns/pg-b-1" in handle.activated
        plugin.reserve(CycleState(), pods[3], "n1")
        assert plugin.permit(CycleState(), pods[3], "n1") == (None, 0)
        for waiter in waiting:
            assert (await waiter.wait()).is_success()

    asyncio.run(run())


def test_a_composite_added_requeues_the_members_of_its_tree_only() -> None:
    handle, plugin = _setup()
    handle.listers.add(SCHEDULING_COMPOSITEPODGROUPS, _cpg("job"))
    handle.listers.add(SCHEDULING_PODGROUPS, _pg("other", parent=""))
    hint = plugin.is_schedulable_after_composite_added
    assert hint(_member("pg-a-0", "pg-a"), None, _cpg("job")) is QueueingHint.QUEUE
    assert hint(_member("o-0", "other"), None, _cpg("job")) is QueueingHint.QUEUE_SKIP
    # a sibling PodGroup's new member is in the same tree
    added = plugin.is_schedulable_after_pod_added
    assert added(_member("pg-a-0", "pg-a"), None, _member("pg-b-9", "pg-b")) is QueueingHint.QUEUE


def test_a_cycle_in_the_parents_is_an_error() -> None:
    handle, _ = _setup()
    handle.listers.add(SCHEDULING_COMPOSITEPODGROUPS, _cpg("job", parent="top"))
    handle.listers.add(SCHEDULING_COMPOSITEPODGROUPS, _cpg("top", parent="job"))
    tree = Hierarchy(
        handle.lister(SCHEDULING_PODGROUPS), handle.lister(SCHEDULING_COMPOSITEPODGROUPS)
    )
    with pytest.raises(HierarchyError):
        tree.root(composite_key("ns", "job"))
