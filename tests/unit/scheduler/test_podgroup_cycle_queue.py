"""The pod-group cycle with a real queue: the group is popped once with every member, and
its members come back together, into the group's backoff (not the unschedulable pool),
whether the cycle rejected the group or failed on an error."""

from __future__ import annotations

from typing import Any

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Status
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.scheduler.podgroup_cycle import PodGroupCycles
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod
from tests.unit.queue.queue_fakes import FakeClock, priority_sort


def _member(i: int, priority: int = 0) -> Pod:
    pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg").req(cpu="1")
    return pod.priority(priority).model()


async def _cycle(members: list[Pod]) -> tuple[SchedulingQueue, list[str], FakeClock]:
    """One cycle of a gang of minCount 3 on a node of 2 cpu; the queue, the members that
    came back from it."""
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    group = {
        "metadata": {"namespace": "ns", "name": "pg", "uid": "pg-uid", "generation": 1},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 3}}},
    }
    handle.listers.add(SCHEDULING_PODGROUPS, ApiObject.from_json(group))
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    cache = SchedulerCache()
    cache.add_node(make_node().name("n0").capacity(cpu="2", pods="10").model())
    clock = FakeClock()
    queue = SchedulingQueue(less=priority_sort, clock=clock)
    tried: list[str] = []

    def handle_failure(_fw: object, qpi: QueuedPodInfo, status: Status, *_: Any, **__: Any) -> None:
        tried.append(qpi.pod.name)
        assert queue.pending_counts()["backoff"] == 0, "the group is still in flight"
        if status.is_rejected():
            queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)
        else:
            queue.requeue_after_error(qpi, pod_scheduling_cycle=1)

    cycles = PodGroupCycles(
        cache=cache,
        snapshot=Snapshot(),
        queue=queue,
        assume_and_reserve=lambda *a, **kw: None,
        handle_failure=handle_failure,
    )
    for pod in members:
        handle.listers.pods.on_add(pod)
        queue.add(pod)
    first = await queue.pop()
    assert first is not None
    assert cycles.schedule(fw, first, cycle=1) == []
    return queue, tried, clock


async def test_a_rejected_gang_comes_back_as_one_into_its_backoff() -> None:
    queue, popped, clock = await _cycle([_member(i) for i in range(3)])
    assert sorted(popped) == ["w0", "w1", "w2"]
    assert queue.pending_counts() == {"active": 0, "backoff": 3, "unschedulable": 0, "gated": 0}
    waiting = queue.pending_pods()["backoff"]
    assert {qpi.backoff_expiration for qpi in waiting} == {clock.now + 1}


async def test_a_gang_refused_on_an_error_comes_back_as_one() -> None:
    # Members of another priority than their PodGroup's: an error for the whole group.
    queue, _, clock = await _cycle([_member(i, priority=5) for i in range(3)])
    waiting = queue.pending_pods()["backoff"]
    assert len(waiting) == 3
    assert {qpi.backoff_expiration for qpi in waiting} == {clock.now + 1}
