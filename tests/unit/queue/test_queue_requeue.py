"""Failed attempts, cluster events, move requests, activate and pod updates."""

from __future__ import annotations

from queue_fakes import priority_sort

from kubesched.queue import QueuedPodInfo, QueueEvent, SchedulingQueue
from kubesched.testing import make_pod

NODE_ADD = QueueEvent("Node", "Add", "NodeAdd")


async def fail(queue: SchedulingQueue, *plugins: str) -> QueuedPodInfo:
    """Pop the head and report it unschedulable by `plugins` in the same cycle."""
    qpi = await queue.pop()
    assert qpi is not None
    qpi.unschedulable_plugins = set(plugins)
    assert queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    return qpi


async def test_rejected_pod_waits_for_an_event(queue):
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    assert queue.pending_counts()["unschedulable"] == 1
    assert queue.in_flight_pods() == [], "add_unschedulable_if_not_present calls done"


async def test_event_moves_pod_to_backoff_then_active(queue, clock):
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    queue.move_all_to_active_or_backoff(NODE_ADD)
    assert queue.pending_counts()["backoff"] == 1, "still backing off"
    clock.step(1)
    queue.flush_backoff_completed()
    assert queue.pending_counts()["active"] == 1


async def test_event_after_backoff_moves_pod_straight_to_active(queue, clock):
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    clock.step(5)
    queue.move_all_to_active_or_backoff(NODE_ADD)
    assert queue.pending_counts()["active"] == 1


async def test_events_go_only_to_pods_they_may_help(clock):
    def worth(qpi, event):
        return event.resource == "Node" and "NodeResourcesFit" in qpi.unschedulable_plugins

    queue = SchedulingQueue(less=priority_sort, is_worth_requeuing=worth, clock=clock)
    queue.add(make_pod().name("fit").model())
    queue.add(make_pod().name("affinity").model())
    await fail(queue, "NodeResourcesFit")
    await fail(queue, "InterPodAffinity")
    clock.step(10)
    queue.move_all_to_active_or_backoff(QueueEvent("Pod", "Delete", "AssignedPodDelete"))
    assert queue.pending_counts()["unschedulable"] == 2
    queue.move_all_to_active_or_backoff(NODE_ADD)
    assert [q.pod.name for q in queue.pending_pods()["active"]] == ["fit"]


async def test_pre_check_narrows_the_candidates(queue, clock):
    queue.add(make_pod().name("a").model())
    queue.add(make_pod().name("b").model())
    await fail(queue, "X")
    await fail(queue, "X")
    clock.step(10)
    queue.move_all_to_active_or_backoff(NODE_ADD, pre_check=lambda pod: pod.name == "b")
    assert [q.pod.name for q in queue.pending_pods()["active"]] == ["b"]
    queue.assigned_pod_deleted(make_pod().node("n").model())
    assert queue.pending_counts()["active"] == 2


async def test_move_request_during_the_cycle_sends_pod_to_backoff(queue):
    queue.add(make_pod().model())
    qpi = await queue.pop()
    assert qpi is not None
    cycle = queue.scheduling_cycle
    queue.move_all_to_active_or_backoff(NODE_ADD)  # while the pod is being scheduled
    qpi.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=cycle)
    assert queue.pending_counts()["backoff"] == 1
    # a later cycle without a move request goes to the pool again
    queue.add(make_pod().model())
    await fail(queue, "NodeResourcesFit")
    assert queue.pending_counts()["unschedulable"] == 1


async def test_update_of_the_pod_during_its_cycle_sends_it_to_backoff(queue):
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


async def test_error_goes_to_backoff(queue):
    queue.add(make_pod().model())
    qpi = await queue.pop()
    assert qpi is not None
    qpi.unschedulable_plugins = {"Stale"}
    queue.requeue_after_error(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["backoff"] == 1
    assert qpi.unschedulable_plugins == set()


async def test_update_with_a_spec_change_frees_an_unschedulable_pod(queue, clock):
    old = make_pod().name("p").model()
    queue.add(old)
    await fail(queue, "NodeAffinity")
    status_only = make_pod().name("p").phase("Pending").model()
    status_only.resource_version = "2"
    queue.update(old, status_only)
    assert queue.pending_counts()["unschedulable"] == 1
    queue.update(status_only, make_pod().name("p").node_selector(zone="a").model())
    assert queue.pending_counts()["backoff"] == 1
    clock.step(1)
    queue.flush_backoff_completed()
    assert queue.pending_counts()["active"] == 1


async def test_activate_skips_backoff(queue):
    pod = make_pod().name("p").model()
    queue.add(pod)
    await fail(queue, "X")
    queue.activate([pod])
    assert queue.pending_counts()["active"] == 1


async def test_activate_of_an_in_flight_pod_requeues_it_after_the_cycle(queue):
    pod = make_pod().name("p").model()
    queue.add(pod)
    qpi = await queue.pop()
    assert qpi is not None
    queue.activate([pod])
    qpi.unschedulable_plugins = {"X"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["backoff"] == 1


async def test_requeue_of_a_pod_already_queued_is_refused(queue):
    pod = make_pod().name("p").model()
    queue.add(pod)
    qpi = await queue.pop()
    assert qpi is not None
    queue.done(qpi.uid)
    queue.add(pod)  # the informer re-added it after the attempt was given up
    assert not queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)
    assert queue.pending_counts()["active"] == 1
