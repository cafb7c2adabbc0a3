"""Backoff durations, the backoff flush and the unschedulable-pool leftover flush."""

from __future__ import annotations

import asyncio

import pytest

import kubesched.queue.scheduling_queue as sq
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock


async def attempt(queue: SchedulingQueue) -> QueuedPodInfo:
    qpi = await queue.pop()
    assert qpi is not None
    return qpi


async def test_backoff_doubles_per_attempt_up_to_the_maximum(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().name("p").model())
    durations = []
    for _ in range(6):
        qpi = await attempt(queue)
        queue.requeue_after_error(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
        assert queue.pending_counts()["backoff"] == 1
        assert qpi.backoff_expiration is not None
        durations.append(qpi.backoff_expiration - clock.now)
        # Backoffs end on whole seconds: the pod leaves at the first window after its end.
        clock.step(durations[-1] + 0.999)
        queue.flush_backoff_completed()
        assert queue.pending_counts()["backoff"] == 1, "left backoff too early"
        clock.step(0.001)
        queue.flush_backoff_completed()
        assert queue.pending_counts()["active"] == 1
    assert durations == pytest.approx([1, 2, 4, 8, 10, 10])


async def test_backoff_ends_in_the_window_after_it_expires(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    clock.now = 1000.4
    queue.add(make_pod().name("p").model())
    qpi = await attempt(queue)
    queue.requeue_after_error(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert qpi.backoff_expiration == 1001.0, "1000.4 + 1 s, truncated to the window"
    clock.now = 1001.9
    queue.flush_backoff_completed()
    assert queue.pending_counts()["backoff"] == 1
    clock.now = 1002.0
    queue.flush_backoff_completed()
    assert queue.pending_counts()["active"] == 1


async def test_backoff_settings_are_honoured(clock: FakeClock) -> None:
    from tests.unit.queue.queue_fakes import priority_sort  # noqa: PLC0415

    queue = SchedulingQueue(
        less=priority_sort, clock=clock, pod_initial_backoff_seconds=3, pod_max_backoff_seconds=5
    )
    queue.add(make_pod().model())
    for expected in (3, 5, 5):
        qpi = await attempt(queue)
        queue.requeue_after_error(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
        assert qpi.backoff_expiration is not None
        assert qpi.backoff_expiration - clock.now == expected
        clock.step(expected + 1)
        queue.flush_backoff_completed()


async def test_the_count_is_the_errors_in_a_row_else_the_rejections(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().name("p").model())
    for _ in range(3):
        qpi = await attempt(queue)
        qpi.unschedulable_plugins = {"X"}
        queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
        queue.activate([qpi.pod])
    qpi = await attempt(queue)
    assert (qpi.unschedulable_count, qpi.consecutive_errors_count) == (3, 0)
    queue.requeue_after_error(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert (qpi.unschedulable_count, qpi.consecutive_errors_count) == (3, 1)
    assert qpi.backoff_expiration is not None
    assert qpi.backoff_expiration - clock.now == 1, "one error: 1 s, not the 4th rejection's 8 s"


async def test_backoff_flush_moves_pods_in_expiry_order(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    for name in ("a", "b"):
        queue.add(make_pod().name(name).model())
    first, second = await attempt(queue), await attempt(queue)
    first.consecutive_errors_count = 2  # longer backoff once requeued (count 3)
    queue.requeue_after_error(first, pod_scheduling_cycle=queue.scheduling_cycle)
    queue.requeue_after_error(second, pod_scheduling_cycle=queue.scheduling_cycle)
    clock.step(2)
    queue.flush_backoff_completed()
    assert [q.pod.name for q in queue.pending_pods()["active"]] == ["b"]
    clock.step(4)
    queue.flush_backoff_completed()
    assert queue.pending_counts()["backoff"] == 0


async def test_an_idle_queue_pops_a_rejected_pod_from_backoff(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().name("rejected").model())
    queue.add(make_pod().name("error").model())
    rejected, error = await attempt(queue), await attempt(queue)
    rejected.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(rejected, pod_scheduling_cycle=1)
    queue.activate([rejected.pod])  # -> activeQ (ForceActivate), then failed again:
    again = await attempt(queue)
    again.unschedulable_plugins = {"NodeResourcesFit"}
    queue.requeue_after_error(error, pod_scheduling_cycle=queue.scheduling_cycle)
    queue.add_unschedulable_if_not_present(again, pod_scheduling_cycle=queue.scheduling_cycle)
    queue.move_all_to_active_or_backoff(object())  # an event: to backoffQ, still backing off
    assert queue.pending_counts()["backoff"] == 2
    popped = await asyncio.wait_for(queue.pop(), 1)
    assert popped is again, "activeQ is empty: the rejected pod, backoff or not"
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(queue.pop(), 0.05)  # the errored pod waits its backoff out


async def test_without_the_gate_an_idle_queue_waits_for_backoffs(clock: FakeClock) -> None:
    from tests.unit.queue.queue_fakes import priority_sort  # noqa: PLC0415

    queue = SchedulingQueue(less=priority_sort, clock=clock, pop_from_backoff=False)
    queue.add(make_pod().name("p").model())
    qpi = await attempt(queue)
    qpi.unschedulable_plugins = {"X"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)
    queue.move_all_to_active_or_backoff(object())
    assert queue.pending_counts()["backoff"] == 1
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(queue.pop(), 0.05)


async def test_unschedulable_pods_are_flushed_after_five_minutes(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().name("p").model())
    qpi = await attempt(queue)
    qpi.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["unschedulable"] == 1
    clock.step(300)
    queue.flush_unschedulable_left_over()
    assert queue.pending_counts()["unschedulable"] == 1, "exactly 5 min is not longer than 5 min"
    clock.step(0.5)
    queue.flush_unschedulable_left_over()
    assert queue.pending_counts() == {"active": 1, "backoff": 0, "unschedulable": 0, "gated": 0}


async def test_flush_loops_run_and_stop(
    queue: SchedulingQueue, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sq, "BACKOFF_FLUSH_PERIOD", 0.01)
    queue.add(make_pod().model())
    qpi = await attempt(queue)
    queue.requeue_after_error(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    runner = asyncio.create_task(queue.run())
    clock.step(2)
    for _ in range(100):
        await asyncio.sleep(0.01)
        if queue.pending_counts()["active"]:
            break
    assert queue.pending_counts()["active"] == 1
    queue.close()
    await asyncio.wait_for(runner, 1)
    assert all(task.done() for task in queue._tasks)
