"""GangScheduling against a FakeHandle: PreEnqueue's waiting messages, PlacementFeasible's
verdicts, Permit holding members until minCount are placed, then allowing them all."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    PlacementProgress,
    QueueingHint,
    Status,
)
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import resource_event
from kubesched.framework.waiting import WaitingPod
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.plugins.gang_scheduling import GangScheduling
from kubesched.plugins.gang_scheduling.members import GroupPods
from kubesched.testing import FakeHandle, make_pod


def _group(name: str = "pg", *, min_count: int | None = 3) -> ApiObject:
    policy: dict[str, Any] = (
        {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    )
    body = {"metadata": {"namespace": "ns", "name": name}, "spec": {"schedulingPolicy": policy}}
    return ApiObject.from_json(body)


def _member(name: str, group: str = "pg", *, node: str = "") -> Pod:
    builder = make_pod().name(name).namespace("ns").uid(name).pod_group(group)
    return (builder.node(node) if node else builder).model()


def _setup(members: int, *, min_count: int | None = 3) -> tuple[FakeHandle, GangScheduling]:
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    handle.listers.add(SCHEDULING_PODGROUPS, _group(min_count=min_count))
    for i in range(members):
        handle.listers.pods.on_add(_member(f"w{i}"))
    return handle, GangScheduling(args={}, handle=handle)


def _status(result: Status | None) -> tuple[Code, str] | None:
    return None if result is None else (result.code, result.message)


def test_pre_enqueue_waits_for_the_pod_group_object() -> None:
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    plugin = GangScheduling(args={}, handle=handle)
    assert _status(plugin.pre_enqueue(_member("w0", "late"))) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        'waiting for pods\'s pod group "late" to appear in scheduling queue',
    )


def test_pre_enqueue_waits_for_min_count_members() -> None:
    _, plugin = _setup(2)
    assert _status(plugin.pre_enqueue(_member("w0"))) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "waiting for minCount pods from a gang to appear in scheduling queue",
    )


def test_pre_enqueue_lets_a_complete_gang_a_basic_group_and_other_pods_in() -> None:
    _, plugin = _setup(3)
    assert plugin.pre_enqueue(_member("w0")) is None
    assert plugin.pre_enqueue(make_pod().name("solo").model()) is None
    _, basic = _setup(1, min_count=None)
    assert basic.pre_enqueue(_member("w0")) is None


@pytest.mark.parametrize(
    ("scheduled", "remaining", "expected"),
    [
        (6, 1, (Code.UNSCHEDULABLE, "minCount (8) cannot be satisfied: 6 scheduled, 1 remaining")),
        (3, 5, (Code.WAIT, "minCount (8) is not yet satisfied: 3 scheduled, 5 remaining")),
        (8, 0, None),
    ],
)
def test_placement_feasible(scheduled: int, remaining: int, expected: Any) -> None:
    _, plugin = _setup(0)
    group = SchedulingPodGroup.of(_group(min_count=8))
    result = plugin.placement_feasible(group, PlacementProgress(scheduled, remaining))
    assert _status(result) == expected


def test_placement_feasible_of_a_basic_group_needs_one_member() -> None:
    _, plugin = _setup(0)
    group = SchedulingPodGroup.of(_group(min_count=None))
    status = _status(plugin.placement_feasible(group, PlacementProgress(0, 0)))
    assert status is not None
    assert status[0] is Code.UNSCHEDULABLE
    assert plugin.placement_feasible(group, PlacementProgress(1, 0)) is None


def test_permit_holds_members_until_min_count_are_reserved_then_allows_all() -> None:
    async def run() -> None:
        handle, plugin = _setup(3)
        pods = [_member(f"w{i}") for i in range(3)]
        waiting = []
        for pod in pods[:2]:
            plugin.reserve(CycleState(), pod, "n1")
            status, timeout = plugin.permit(CycleState(), pod, "n1")
            assert _status(status) == (
                Code.WAIT,
                "waiting for minCount pods from a gang to be scheduled",
            )
            assert timeout == 300
            waiter = WaitingPod(pod=pod, plugin_timeouts={"GangScheduling": timeout})
            handle.waiting_pods.add(waiter)
            waiting.append(waiter)
        assert "ns/w2" in handle.activated  # the one not placed yet is brought forward
        plugin.reserve(CycleState(), pods[2], "n1")
        assert plugin.permit(CycleState(), pods[2], "n1") == (None, 0)
        for waiter in waiting:
            assert (await waiter.wait()).is_success()

    asyncio.run(run())


def test_unreserve_forgets_a_member_and_bound_members_count() -> None:
    handle, plugin = _setup(2)
    handle.listers.pods.on_add(_member("w9", node="n1"))
    pod = _member("w0")
    plugin.reserve(CycleState(), pod, "n1")
    plugin.unreserve(CycleState(), pod, "n1")
    status, _ = plugin.permit(CycleState(), _member("w1"), "n1")
    assert _status(status) is not None  # w9 bound + nobody reserved: 1 of 3
    plugin.reserve(CycleState(), pod, "n1")
    plugin.reserve(CycleState(), _member("w1"), "n1")
    assert plugin.permit(CycleState(), _member("w1"), "n1") == (None, 0)


def test_pending_pods_of_another_scheduler_do_not_count_bound_ones_do() -> None:
    handle, plugin = _setup(2)
    other = make_pod().name("x").namespace("ns").uid("x").pod_group("pg").scheduler("other")
    handle.listers.pods.on_add(other.model())
    assert plugin.pre_enqueue(_member("w0")) is not None  # 2 of ours + 1 pending elsewhere
    handle.listers.pods.on_add(other.name("y").uid("y").node("n1").model())
    assert plugin.pre_enqueue(_member("w0")) is None  # a bound member counts


# ---- queueing hints (upstream's Test_isSchedulableAfterPodAdded,
# Test_isSchedulableAfterPodGroupAdded and Test_isSchedulableAfterPodGroupUpdated, the
# CompositePodGroup=false cases: the gate is off by default and kubesched has no
# CompositePodGroups, so a parent composite group changes nothing) -------------------------


def _pod(name: str = "", group: str = "", *, namespace: str = "", node: str = "") -> Pod:
    builder = make_pod().namespace(namespace)
    if name:
        builder.name(name)
    if group:
        builder.pod_group(group)
    if node:
        builder.node(node)
    return builder.model()


def _pg(
    name: str, *, namespace: str = "", min_count: int | None = 1, parent: str = ""
) -> ApiObject:
    policy: dict[str, Any] = (
        {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    )
    spec: dict[str, Any] = {"schedulingPolicy": policy}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    meta = {"namespace": namespace, "name": name}
    return ApiObject.from_json({"metadata": meta, "spec": spec})


def _plugin() -> GangScheduling:
    return GangScheduling(
        args={}, handle=FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    )


QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize(
    ("pod", "added", "hint"),
    [
        pytest.param(
            _pod("p", "pg"),
            _pod(group="pg"),
            QUEUE,
            id="add a newPod which matches the pod's scheduling group",
        ),
        pytest.param(
            _pod("p", "pg"),
            _pod(group="pg", node="node1"),
            QUEUE,
            id="add a newPod with NodeName set which matches the pod's scheduling group",
        ),
        pytest.param(
            _pod("p", "pg"),
            _pod(group="pg", namespace="foo"),
            SKIP,
            id="add a newPod which doesn't match the pod's namespace",
        ),
        pytest.param(
            _pod("p", "pg1"),
            _pod(group="pg2"),
            SKIP,
            id="add a newPod which doesn't match the pod's pod group name",
        ),
        pytest.param(
            _pod("p1", "pg1"),
            _pod("p2", "pg2"),
            SKIP,
            id="add a newPod which belongs to a different scheduling group but matches the "
            "root CPG",
        ),
        pytest.param(
            _pod("p1", "pg1"),
            _pod("p2", "pg2"),
            SKIP,
            id="add a newPod which belongs to a different scheduling group and does not match "
            "the root CPG",
        ),
        pytest.param(_pod("p"), _pod(group="pg"), SKIP, id="the rejected pod has no group"),
        pytest.param(_pod("p", "pg"), _pod("q"), SKIP, id="the added pod has no group"),
    ],
)
def test_is_schedulable_after_pod_added(pod: Pod, added: Pod, hint: QueueingHint) -> None:
    assert _plugin().is_schedulable_after_pod_added(pod, None, added) is hint


@pytest.mark.parametrize(
    ("pod", "added", "hint"),
    [
        pytest.param(
            _pod("p", "pg"),
            _pg("pg"),
            QUEUE,
            id="add a pod group which matches the pod's pod group name",
        ),
        pytest.param(
            _pod("p", "pg1"),
            _pg("pg2"),
            SKIP,
            id="add a pod group which doesn't match the pod's scheduling group name",
        ),
        pytest.param(
            _pod("p", "pg", namespace="ns1"),
            _pg("pg", namespace="ns2"),
            SKIP,
            id="add a pod group which doesn't match the pod's scheduling group namespace",
        ),
        pytest.param(
            _pod("p", "pg1"),
            _pg("pg2", parent="cpg-root"),
            SKIP,
            id="add a pod group which doesn't match the pod's scheduling group but matches "
            "the root CPG",
        ),
        pytest.param(
            _pod("p", "pg1"),
            _pg("pg2", parent="cpg-root2"),
            SKIP,
            id="add a pod group which doesn't match the pod's scheduling group and doesn't "
            "match the root CPG",
        ),
        pytest.param(_pod("p"), _pg("pg"), SKIP, id="the rejected pod has no group"),
    ],
)
def test_is_schedulable_after_pod_group_added(
    pod: Pod, added: ApiObject, hint: QueueingHint
) -> None:
    assert _plugin().is_schedulable_after_pod_group_added(pod, None, added) is hint


@pytest.mark.parametrize(
    ("pod", "old", "new", "hint"),
    [
        pytest.param(
            _pod("p", "pg", namespace="ns1"),
            _pg("pg", namespace="ns1", min_count=4),
            _pg("pg", namespace="ns1", min_count=3),
            QUEUE,
            id="minCount decreased matches target pod",
        ),
        pytest.param(
            _pod("p", "pg", namespace="ns1"),
            _pg("pg", namespace="ns1", min_count=None),
            _pg("pg", namespace="ns1", min_count=None),
            SKIP,
            id="update Basic policy",
        ),
        pytest.param(
            _pod("p", "pg", namespace="ns1"),
            _pg("pg", namespace="ns1", min_count=3),
            _pg("pg", namespace="ns1", min_count=4),
            SKIP,
            id="minCount increased matches target pod",
        ),
        pytest.param(
            _pod("p", "pg", namespace="ns1"),
            _pg("pg", namespace="ns1", min_count=3),
            _pg("pg", namespace="ns1", min_count=3),
            SKIP,
            id="minCount unchanged matches target pod",
        ),
        pytest.param(
            _pod("p", "pg-other", namespace="ns1"),
            _pg("pg", namespace="ns1", min_count=4),
            _pg("pg", namespace="ns1", min_count=3),
            SKIP,
            id="minCount decreased but pod group name doesn't match target pod",
        ),
        pytest.param(
            _pod("p", "pg", namespace="ns-other"),
            _pg("pg", namespace="ns1", min_count=4),
            _pg("pg", namespace="ns1", min_count=3),
            SKIP,
            id="minCount decreased but pod group namespace doesn't match target pod",
        ),
        pytest.param(
            _pod("p", namespace="ns1"),
            _pg("pg", namespace="ns1", min_count=4),
            _pg("pg", namespace="ns1", min_count=3),
            SKIP,
            id="pod without a scheduling group is skipped",
        ),
        pytest.param(
            _pod("p", "pg", namespace="ns1"),
            _pg("pg", namespace="ns1", min_count=None),
            _pg("pg", namespace="ns1", min_count=1),
            SKIP,
            id="a basic policy turned into a gang",
        ),
    ],
)
def test_is_schedulable_after_pod_group_updated(
    pod: Pod, old: ApiObject, new: ApiObject, hint: QueueingHint
) -> None:
    assert _plugin().is_schedulable_after_pod_group_updated(pod, old, new) is hint


@pytest.mark.parametrize(
    ("hint_name", "old", "new"),
    [
        pytest.param("is_schedulable_after_pod_added", None, _pg("pg"), id="pod hint, a group"),
        pytest.param(
            "is_schedulable_after_pod_group_added", None, _pod("q", "pg"), id="group hint, a pod"
        ),
        pytest.param(
            "is_schedulable_after_pod_group_updated", None, _pg("pg"), id="update without old"
        ),
    ],
)
def test_a_wrong_object_is_an_error(hint_name: str, old: object, new: object) -> None:
    hint = getattr(_plugin(), hint_name)
    with pytest.raises(TypeError):
        hint(_pod("p", "pg"), old, new)


def test_events_to_register() -> None:
    plugin = _plugin()
    assert plugin.events_to_register() == (
        ClusterEventWithHint(
            ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD),
            plugin.is_schedulable_after_pod_added,
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD),
            plugin.is_schedulable_after_pod_added,
        ),
        ClusterEventWithHint(
            resource_event(SCHEDULING_PODGROUPS, ActionType.ADD),
            plugin.is_schedulable_after_pod_group_added,
        ),
        ClusterEventWithHint(
            resource_event(SCHEDULING_PODGROUPS, ActionType.UPDATE),
            plugin.is_schedulable_after_pod_group_updated,
        ),
    )


def test_a_groups_pods_follow_the_lister_without_a_namespace_scan() -> None:
    handle, plugin = _setup(2)
    pods = handle.listers.pods
    pods.on_add(_member("x0", group="other"))
    groups = GroupPods(pods)
    assert sorted(p.name for p in groups.of("ns", "pg")) == ["w0", "w1"]
    pods.on_add(_member("w2"))
    pods.on_update(_member("w0"), _member("w0", node="n1"))
    assert {p.name: p.node_name for p in groups.of("ns", "pg")} == {
        "w0": "n1",
        "w1": "",
        "w2": "",
    }
    assert plugin.pre_enqueue(_member("w2")) is None  # the plugin's own index: 3 of 3
    pods.on_delete(_member("w1"))
    pods.on_delete(_member("x0", group="other"))
    assert sorted(p.name for p in groups.of("ns", "pg")) == ["w0", "w2"]
    assert groups.of("ns", "other") == []
    assert plugin.pre_enqueue(_member("w2")) is not None  # 2 of 3 again
