"""A native pod group queued as one unit (`SchedulingQueue.enable_pod_groups`, the
`GenericWorkload` gate), as kube-scheduler v1.37.2's workload queue: popped once, back as
one after its cycle, its own backoff (not the pods'), not moved by cluster events."""

from __future__ import annotations

import pytest

from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.queue.pod_groups import ERROR, REJECTED, SUCCESS
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock, gates, priority_sort

KEY = ("default", "g")


def group_of(pod: Pod) -> tuple[str, str] | None:
    return (pod.namespace, pod.pod_group_name) if pod.pod_group_name else None


@pytest.fixture
def units(clock: FakeClock) -> SchedulingQueue:
    queue = SchedulingQueue(less=priority_sort, pre_enqueue=gates, clock=clock)
    queue.enable_pod_groups(group_of)
    return queue


def member(name: str, group: str = "g") -> Pod:
    return make_pod().name(name).pod_group(group).model()


async def pop_group(queue: SchedulingQueue) -> list[QueuedPodInfo]:
    first = await queue.pop()
    assert first is not None
    return [first, *queue.take_group(first)]


def fail(queue: SchedulingQueue, members: list[QueuedPodInfo], outcome: str = REJECTED) -> None:
    """The cycle rejects every member, then the group's attempt is over."""
    for qpi in members:
        qpi.unschedulable_plugins = {"NodeResourcesFit"}
        assert queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)
        assert queue.pending_counts() == {"active": 0, "backoff": 0, "unschedulable": 0, "gated": 0}
        assert queue.get(qpi.uid) is qpi, "waits beside its group in flight"
    queue.group_attempted(KEY, outcome)


async def test_the_group_is_popped_once_with_every_member(units: SchedulingQueue) -> None:
    for name in ("a", "b", "c"):
        units.add(member(name))
    units.add(make_pod().name("single").model())
    members = await pop_group(units)
    assert sorted(qpi.pod.name for qpi in members) == ["a", "b", "c"]
    assert units.pending_counts()["active"] == 1, "only the single pod is left"


async def test_a_rejected_group_waits_out_one_backoff_then_comes_back_whole(
    units: SchedulingQueue, clock: FakeClock
) -> None:
    for name in ("a", "b", "c"):
        units.add(member(name))
    fail(units, await pop_group(units))
    waiting = units.pending_pods()["backoff"]
    assert len(waiting) == 3
    assert {qpi.backoff_expiration for qpi in waiting} == {clock.now + 1}, "one backoff"
    # A pop with activeQ empty does not take the group early (upstream's error heap).
    assert units._pools.backoff.rejected == 0
    # Cluster events do not move it either.
    units.move_all_to_active_or_backoff("NodeAdd")
    assert units.pending_counts()["backoff"] == 3
    clock.step(1)  # the window its backoff ends in is still backing off, as upstream's
    units.flush_backoff_completed()
    assert units.pending_counts()["backoff"] == 3
    clock.step(1)
    units.flush_backoff_completed()
    assert units.pending_counts()["active"] == 3
    assert len(await pop_group(units)) == 3


async def test_the_group_backoff_doubles_and_is_capped_by_its_size(
    units: SchedulingQueue, clock: FakeClock
) -> None:
    for name in ("a", "b", "c", "d"):
        units.add(member(name))
    durations = []
    for _ in range(7):
        members = await pop_group(units)
        assert len(members) == 4
        fail(units, members)
        (expiration,) = {qpi.backoff_expiration for qpi in units.pending_pods()["backoff"]}
        assert expiration is not None
        durations.append(expiration - clock.now)
        clock.step(durations[-1] + 1)
        units.flush_backoff_completed()
    # 10 s (the pods' maximum) times the square root of the group's size (4).
    assert durations == pytest.approx([1, 2, 4, 8, 16, 20, 20])


async def test_errors_count_apart_and_success_resets(
    units: SchedulingQueue, clock: FakeClock
) -> None:
    for name in ("a", "b"):
        units.add(member(name))
    fail(units, await pop_group(units), ERROR)
    clock.step(2)
    units.flush_backoff_completed()
    fail(units, await pop_group(units), ERROR)
    (expiration,) = {qpi.backoff_expiration for qpi in units.pending_pods()["backoff"]}
    assert expiration == clock.now + 2
    clock.step(3)
    units.flush_backoff_completed()
    members = await pop_group(units)
    # The group succeeds, but one member was not placed (a basic group): back at once.
    units.add_unschedulable_if_not_present(members[1], pod_scheduling_cycle=1)
    units.done(members[0].uid)
    units.group_attempted(KEY, SUCCESS)
    assert [qpi.pod.name for qpi in units.pending_pods()["active"]] == [members[1].pod.name]


async def test_a_new_member_joins_its_group_where_it_waits(
    units: SchedulingQueue, clock: FakeClock
) -> None:
    for name in ("a", "b"):
        units.add(member(name))
    fail(units, await pop_group(units))
    units.add(member("c"))
    waiting = units.pending_pods()["backoff"]
    assert sorted(qpi.pod.name for qpi in waiting) == ["a", "b", "c"]
    assert {qpi.backoff_expiration for qpi in waiting} == {clock.now + 1}
    units.add(member("x", group="other"))
    assert [qpi.pod.name for qpi in units.pending_pods()["active"]] == ["x"]


async def test_a_member_deleted_while_its_group_is_in_flight_is_dropped(
    units: SchedulingQueue,
) -> None:
    for name in ("a", "b"):
        units.add(member(name))
    first, second = await pop_group(units)
    second.unschedulable_plugins = {"NodeResourcesFit"}
    units.add_unschedulable_if_not_present(second, pod_scheduling_cycle=1)
    units.delete(second.pod)
    units.add_unschedulable_if_not_present(first, pod_scheduling_cycle=1)
    units.group_attempted(KEY, REJECTED)
    assert [qpi.pod.name for qpi in units.pending_pods()["backoff"]] == ["a"]


async def test_a_member_failing_after_its_cycle_goes_back_as_a_new_group(
    units: SchedulingQueue,
) -> None:
    units.add(member("a"))
    (first,) = await pop_group(units)
    units.group_attempted(KEY, SUCCESS)  # placed; its binding fails later
    first.unschedulable_plugins = {"GangScheduling"}
    units.add_unschedulable_if_not_present(first, pod_scheduling_cycle=1)
    assert [qpi.pod.name for qpi in units.pending_pods()["active"]] == ["a"]


async def test_without_the_gate_members_are_queued_as_pods(queue: SchedulingQueue) -> None:
    for name in ("a", "b"):
        queue.add(member(name))
    members = await pop_group(queue)
    for qpi in members:
        qpi.unschedulable_plugins = {"NodeResourcesFit"}
        queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)
    queue.group_attempted(KEY, REJECTED)
    assert queue.pending_counts()["unschedulable"] == 2
