"""activeQ order, pop waiting, duplicates and the keyed heap under it."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from kubesched.queue import SchedulingQueue
from kubesched.queue.heap import KeyedHeap
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock, priority_sort


async def drain(queue: SchedulingQueue) -> list[str]:
    names = []
    while queue.pending_counts()["active"]:
        qpi = await queue.pop()
        assert qpi is not None
        names.append(qpi.pod.name)
    return names


async def test_pops_by_priority_then_timestamp(queue: SchedulingQueue, clock: FakeClock) -> None:
    for name, priority in [("low", 0), ("high", 100), ("mid", 10), ("low2", 0)]:
        queue.add(make_pod().name(name).priority(priority).model())
        clock.step(1)
    assert await drain(queue) == ["high", "mid", "low", "low2"]


async def test_equal_priority_and_timestamp_is_fifo(queue: SchedulingQueue) -> None:
    for name in ["a", "b", "c", "d"]:
        queue.add(make_pod().name(name).model())
    assert await drain(queue) == ["a", "b", "c", "d"]


async def test_pop_counts_attempts_and_cycles(queue: SchedulingQueue, clock: FakeClock) -> None:
    queue.add(make_pod().name("p").model())
    qpi = await queue.pop()
    assert qpi is not None
    assert (qpi.attempts, queue.scheduling_cycle) == (1, 1)
    assert qpi.initial_attempt_timestamp == clock.now
    assert queue.in_flight_pods() == [qpi.pod]
    queue.done(qpi.uid)
    assert queue.in_flight_pods() == []


async def test_pop_waits_until_a_pod_is_added(queue: SchedulingQueue) -> None:
    waiter = asyncio.create_task(queue.pop())
    await asyncio.sleep(0)
    assert not waiter.done()
    queue.add(make_pod().name("late").model())
    qpi = await asyncio.wait_for(waiter, 1)
    assert qpi is not None
    assert qpi.pod.name == "late"


async def test_close_wakes_a_waiting_pop(queue: SchedulingQueue) -> None:
    waiter = asyncio.create_task(queue.pop())
    await asyncio.sleep(0)
    queue.close()
    assert await asyncio.wait_for(waiter, 1) is None
    queue.add(make_pod().model())
    assert await queue.pop() is None


async def test_a_pod_is_never_queued_twice(queue: SchedulingQueue) -> None:
    pod = make_pod().name("p").model()
    queue.add(pod)
    queue.add(pod)
    queue.update(pod, pod)
    assert queue.pending_counts()["active"] == 1
    qpi = await queue.pop()
    assert qpi is not None
    queue.add(pod)  # a relist while the pod is being scheduled
    assert queue.pending_counts()["active"] == 0


async def test_update_in_active_queue_reorders(queue: SchedulingQueue) -> None:
    low = make_pod().name("p").priority(0).model()
    queue.add(low)
    queue.add(make_pod().name("other").priority(5).model())
    queue.update(low, make_pod().name("p").priority(10).model())
    assert await drain(queue) == ["p", "other"]


def test_incoming_hook_sees_each_move(clock: FakeClock) -> None:
    seen: list[tuple[str, str]] = []
    queue = SchedulingQueue(
        less=priority_sort, clock=clock, on_incoming=lambda q, e: seen.append((q, e))
    )
    queue.add(make_pod().model())
    assert seen == [("active", "UnschedulablePodAdd")]


@given(st.lists(st.tuples(st.sampled_from(["add", "pop", "delete"]), st.integers(0, 20))))
def test_keyed_heap_matches_a_sorted_reference(ops: list[tuple[str, int]]) -> None:
    heap: KeyedHeap[tuple[str, int]] = KeyedHeap(key=lambda t: t[0], less=lambda a, b: a[1] < b[1])
    reference: dict[str, int] = {}
    for op, value in ops:
        key = f"k{value % 7}"
        if op == "add":
            heap.add_or_update((key, value))
            reference[key] = value
        elif op == "delete":
            assert (heap.delete(key) is not None) == (key in reference)
            reference.pop(key, None)
        elif reference:
            _, smallest = heap.pop()
            assert smallest == min(reference.values())
            del reference[next(k for k, v in reference.items() if v == smallest)]
        assert len(heap) == len(reference)
    assert sorted(v for _, v in heap) == sorted(reference.values())
