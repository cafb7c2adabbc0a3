"""GangScheduling against a FakeHandle: PreEnqueue's waiting messages, PlacementFeasible's
verdicts, Permit holding members until minCount are placed, then allowing them all."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import Code, CycleState, PlacementProgress, Status
from kubesched.framework.listers import ClusterListers
from kubesched.framework.waiting import WaitingPod
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.plugins.gang_scheduling import GangScheduling
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
    assert (
        _status(plugin.placement_feasible(group, PlacementProgress(0, 0)))[0] is Code.UNSCHEDULABLE
    )  # type: ignore[index]
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
