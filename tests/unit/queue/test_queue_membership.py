"""Scheduling gates, deletion from every sub-queue, and nominated pods."""

from __future__ import annotations

import pytest

from kubesched.model.pod import Pod
from kubesched.queue import Nominator, SchedulingQueue
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock


async def test_gated_pod_is_not_tried_until_its_gates_are_removed(queue: SchedulingQueue) -> None:
    gated = make_pod().name("p").scheduling_gate("example.com/wait").model()
    queue.add(gated)
    assert queue.pending_counts() == {"active": 0, "backoff": 0, "unschedulable": 0, "gated": 1}
    info = queue.get(gated.uid)
    assert info is not None
    assert info.gated
    assert info.gating_plugin == "SchedulingGates"
    still = make_pod().name("p").scheduling_gate("example.com/wait").label("a", "b").model()
    queue.update(gated, still)
    assert queue.pending_counts()["gated"] == 1
    queue.update(still, make_pod().name("p").model())
    assert queue.pending_counts() == {"active": 1, "backoff": 0, "unschedulable": 0, "gated": 0}
    popped = await queue.pop()
    assert popped is not None
    assert not popped.gated


async def test_cluster_events_do_not_release_gated_pods(
    queue: SchedulingQueue, clock: FakeClock
) -> None:
    queue.add(make_pod().scheduling_gate("g").model())
    clock.step(1000)
    queue.move_all_to_active_or_backoff(object())
    queue.flush_unschedulable_left_over()
    assert queue.pending_counts()["gated"] == 1


async def _place(queue: SchedulingQueue, where: str) -> Pod:
    pod = make_pod().name("p").model()
    if where == "gated":
        pod = make_pod().name("p").scheduling_gate("g").model()
    queue.add(pod)
    if where == "active":
        return pod
    if where == "gated":
        return pod
    qpi = await queue.pop()
    assert qpi is not None
    if where == "in-flight":
        return pod
    qpi.unschedulable_plugins = {"X"} if where == "unschedulable" else set()
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    return pod


@pytest.mark.parametrize("where", ["active", "backoff", "unschedulable", "gated", "in-flight"])
async def test_delete_removes_the_pod_everywhere(queue: SchedulingQueue, where: str) -> None:
    pod = await _place(queue, where)
    queue.nominator.add(pod, node_name="n1")
    queue.delete(pod)
    assert sum(queue.pending_counts().values()) == 0
    assert queue.nominated_pods_for_node("n1") == []
    if where == "in-flight":
        qpi = queue.get(pod.uid)
        assert qpi is not None
        assert not queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)
        assert queue.get(pod.uid) is None


def test_nominator_tracks_nominated_node_names() -> None:
    nominator = Nominator()
    pod = make_pod().name("p").model()
    pod.nominated_node_name = "n1"
    nominator.add(pod)
    assert nominator.pods_for_node("n1") == [pod]
    plain = make_pod().name("p").model()
    nominator.update(plain, plain)  # an in-memory nomination survives an update without one
    assert nominator.pods_for_node("n1") == [plain]
    moved = make_pod().name("p").model()
    moved.nominated_node_name = "n2"
    nominator.update(plain, moved)
    assert (nominator.pods_for_node("n1"), nominator.node_of(pod.uid)) == ([], "n2")
    bound = make_pod().name("p").node("n2").model()
    nominator.add(bound, node_name="n2")
    assert len(nominator) == 0


def test_nominator_dump_lists_each_nodes_nominated_pods() -> None:
    nominator = Nominator()
    for name, node in (("a", "n1"), ("b", "n1"), ("c", "n2")):
        nominator.add(make_pod().namespace("ns").name(name).model(), node_name=node)
    assert nominator.dump() == {"n1": ["ns/a", "ns/b"], "n2": ["ns/c"]}


def test_queue_nominates_pods_that_arrive_with_a_nominated_node(queue: SchedulingQueue) -> None:
    pod = make_pod().name("p").model()
    pod.nominated_node_name = "n1"
    queue.add(pod)
    assert queue.nominated_pods_for_node("n1") == [pod]
