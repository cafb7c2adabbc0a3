"""Failed attempts, cluster events, events during a cycle, activate and pod updates."""

from __future__ import annotations

from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.queue import QueuedPodInfo, QueueingStrategy, SchedulingQueue
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock, priority_sort

NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)


async def fail(queue: SchedulingQueue, *plugins: str) -> QueuedPodInfo:
    """Pop the head and report it unschedulable by `plugins` in the same cycle."""
    qpi = await queue.pop()
    assert qpi is not None
    qpi.unschedulable_plugins = set(plugins)
    assert queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    return qpi


async def test_rejected_pod_waits_for_an_event(queue: SchedulingQueue) -> None:
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    assert queue.pending_counts()["unschedulable"] == 1
    assert queue.in_flight_pods() == [], "add_unschedulable_if_not_present calls done"


async def test_event_moves_pod_to_backoff_then_active(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(NODE_ADD)
    assert queue.pending_counts()["backoff"] == 1, "still backing off"
    clock.step(2)
    queue.flush_backoff_completed()
    assert queue.pending_counts()["active"] == 1


async def test_event_after_backoff_moves_pod_straight_to_active(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    clock.step(5)
    queue.move_all_to_active_or_backoff(NODE_ADD)
    assert queue.pending_counts()["active"] == 1


async def test_events_go_only_to_pods_they_may_help(clock: FakeClock) -> None:
    def strategy(qpi: QueuedPodInfo, event: object, old: object, new: object) -> QueueingStrategy:
        assert isinstance(event, ClusterEvent)
        if event.resource == "Node" and "NodeResourcesFit" in qpi.unschedulable_plugins:
            return QueueingStrategy.AFTER_BACKOFF
        return QueueingStrategy.SKIP

    queue = SchedulingQueue(less=priority_sort, requeue_strategy=strategy, clock=clock)
    queue.add(make_pod().name("fit").model())
    queue.add(make_pod().name("affinity").model())
    await fail(queue, "NodeResourcesFit")
    await fail(queue, "InterPodAffinity")
    clock.step(10)
    queue.move_all_to_active_or_backoff(POD_DELETE)
    assert queue.pending_counts()["unschedulable"] == 2
    queue.move_all_to_active_or_backoff(NODE_ADD)
    assert [q.pod.name for q in queue.pending_pods()["active"]] == ["fit"]


async def test_pre_check_narrows_the_candidates(queue: SchedulingQueue, clock: FakeClock) -> None:
    queue.add(make_pod().name("a").model())
    queue.add(make_pod().name("b").model())
    await fail(queue, "X")
    await fail(queue, "X")
    clock.step(10)
    queue.move_all_to_active_or_backoff(NODE_ADD, pre_check=lambda pod: pod.name == "b")
    assert [q.pod.name for q in queue.pending_pods()["active"]] == ["b"]
    queue.move_all_to_active_or_backoff(POD_DELETE, make_pod().node("n").model(), None)
    assert queue.pending_counts()["active"] == 2


async def test_an_event_during_the_cycle_sends_pod_to_backoff(queue: SchedulingQueue) -> None:
    queue.add(make_pod().model())
    qpi = await queue.pop()
    assert qpi is not None
    cycle = queue.scheduling_cycle
    queue.move_all_to_active_or_backoff(NODE_ADD)  # while the pod is being scheduled
    qpi.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=cycle)
    assert queue.pending_counts()["backoff"] == 1
    # a later cycle without an event goes to the pool again
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    assert queue.pending_counts()["unschedulable"] == 1


async def test_update_of_the_pod_during_its_cycle_sends_it_to_backoff(
    queue: SchedulingQueue,
) -> None:
    pod = make_pod().name("p").model()
    queue.add(pod)
    qpi = await queue.pop()
    assert qpi is not None
    new = make_pod().name("p").label("fixed", "yes").model()
    queue.update(pod, new)
    assert queue.pending_counts()["active"] == 0
    assert qpi.pod is new
    qpi.unschedulable_plugins = {"NodeAffinity"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["backoff"] == 1


async def test_error_goes_to_backoff(queue: SchedulingQueue) -> None:
    queue.add(make_pod().model())
    qpi = await queue.pop()
    assert qpi is not None
    qpi.unschedulable_plugins = {"Stale"}
    queue.requeue_after_error(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["backoff"] == 1
    assert qpi.unschedulable_plugins == set()


async def test_update_with_a_spec_change_frees_an_unschedulable_pod(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    old = make_pod().name("p").model()
    queue.add(old)
    await fail(queue, "NodeAffinity")
    status_only = make_pod().name("p").phase("Pending").model()
    status_only.resource_version = "2"
    queue.update(old, status_only)
    assert queue.pending_counts()["unschedulable"] == 1
    queue.update(status_only, make_pod().name("p").node_selector(zone="a").model())
    assert queue.pending_counts()["backoff"] == 1
    clock.step(2)
    queue.flush_backoff_completed()
    assert queue.pending_counts()["active"] == 1


async def test_activate_skips_backoff(queue: SchedulingQueue) -> None:
    pod = make_pod().name("p").model()
    queue.add(pod)
    await fail(queue, "X")
    queue.activate([pod])
    assert queue.pending_counts()["active"] == 1


async def test_activate_of_an_in_flight_pod_requeues_it_after_the_cycle(
    queue: SchedulingQueue,
) -> None:
    pod = make_pod().name("p").model()
    queue.add(pod)
    qpi = await queue.pop()
    assert qpi is not None
    queue.activate([pod])
    qpi.unschedulable_plugins = {"X"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["backoff"] == 1


async def test_requeue_of_a_pod_already_queued_is_refused(queue: SchedulingQueue) -> None:
    pod = make_pod().name("p").model()
    queue.add(pod)
    qpi = await queue.pop()
    assert qpi is not None
    queue.done(qpi.uid)
    queue.add(pod)  # the informer re-added it after the attempt was given up
    assert not queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)
    assert queue.pending_counts()["active"] == 1


async def test_only_events_a_hint_queues_for_count_during_the_cycle(clock: FakeClock) -> None:
    asked = []

    def strategy(qpi: QueuedPodInfo, event: object, old: object, new: object) -> QueueingStrategy:
        asked.append((event, new))
        return QueueingStrategy.AFTER_BACKOFF if new == "helps" else QueueingStrategy.SKIP

    queue = SchedulingQueue(less=priority_sort, requeue_strategy=strategy, clock=clock)
    queue.move_all_to_active_or_backoff(NODE_ADD, None, "before")  # nothing in flight
    queue.add(make_pod().name("p").model())
    qpi = await queue.pop()
    assert qpi is not None
    queue.move_all_to_active_or_backoff(NODE_ADD, None, "useless")
    qpi.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["unschedulable"] == 1
    assert asked == [(NODE_ADD, "useless")], "only events since the pop are replayed"
    assert queue.inflight.counts == {"PodPopped": 0, "NodeAdd": 0}, "all dropped after done"


async def test_a_pending_plugin_that_says_queue_skips_the_backoff(clock: FakeClock) -> None:
    def strategy(qpi: QueuedPodInfo, event: object, old: object, new: object) -> QueueingStrategy:
        return QueueingStrategy.IMMEDIATELY

    queue = SchedulingQueue(less=priority_sort, requeue_strategy=strategy, clock=clock)
    queue.add(make_pod().name("p").model())
    qpi = await queue.pop()
    assert qpi is not None
    queue.move_all_to_active_or_backoff(NODE_ADD)
    qpi.pending_plugins = {"Waiting"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["active"] == 1


async def test_events_no_plugin_registered_are_neither_applied_nor_recorded(
    clock: FakeClock,
) -> None:
    queue = SchedulingQueue(less=priority_sort, interested=lambda event: False, clock=clock)
    queue.add(make_pod().name("a").model())
    queue.add(make_pod().name("b").model())
    await fail(queue, "X")
    qpi = await queue.pop()
    assert qpi is not None
    clock.step(10)
    queue.move_all_to_active_or_backoff(NODE_ADD)
    assert queue.pending_counts()["unschedulable"] == 1
    assert "NodeAdd" not in queue.inflight.counts


async def test_the_leftover_flush_moves_each_pod_once_per_period(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().name("p").model())
    qpi = await fail(queue, "X")
    clock.step(301)
    queue.flush_unschedulable_left_over()
    assert queue.pending_counts()["active"] == 1
    assert qpi.flush_timestamp is not None
