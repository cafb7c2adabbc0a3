"""The pod-group algorithm over a real Framework and cache: every member placed as a trial
on one snapshot, PlacementFeasible stopping the cycle, every trial undone afterwards; the
PodGroupInitiallyScheduled condition; taking a group's members out of the queue."""

from __future__ import annotations

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import SUCCESS, Code, Status
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.scheduler.podgroup_algorithm import schedule_group
from kubesched.scheduler.podgroup_status import updated_conditions
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod


def _group(min_count: int, **status: object) -> SchedulingPodGroup:
    body = {
        "metadata": {"namespace": "ns", "name": "pg", "generation": 2},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
        "status": status,
    }
    return SchedulingPodGroup.of(ApiObject.from_json(body))


def _member(i: int) -> Pod:
    pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg").req(cpu="1")
    return pod.model()


def _run(nodes: int, members: int, min_count: int) -> tuple[SchedulerCache, list[str], Status]:
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    cache, snapshot = SchedulerCache(), Snapshot()
    for i in range(nodes):
        cache.add_node(make_node().name(f"n{i}").capacity(cpu="2", pods="10").model())
    pods = [_member(i) for i in range(members)]
    for pod in pods:
        handle.listers.pods.on_add(pod)
    cache.update_snapshot(snapshot)
    queued = [QueuedPodInfo(pod=pod, timestamp=float(i)) for i, pod in enumerate(pods)]
    result = schedule_group(
        fw, cache=cache, snapshot=snapshot, group=_group(min_count), queued=queued, scheduled=0
    )
    return cache, [m.status.message for m in result.members], result.status


def test_a_gang_that_does_not_fit_stops_once_min_count_is_out_of_reach() -> None:
    cache, messages, status = _run(nodes=2, members=6, min_count=6)
    assert status.code is Code.UNSCHEDULABLE
    assert status.message == "minCount (6) cannot be satisfied: 4 scheduled, 1 remaining"
    assert len(messages) == 5  # the sixth member is never tried
    assert messages[-1].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert cache.assumed_count() == 0  # every trial undone


def test_a_gang_that_fits_succeeds_and_leaves_the_cache_as_it_was() -> None:
    cache, messages, status = _run(nodes=2, members=4, min_count=4)
    assert status.is_success()
    assert messages == [""] * 4
    assert cache.assumed_count() == 0  # the caller commits the placements


def test_too_few_members_are_refused_before_any_is_tried() -> None:
    _, messages, status = _run(nodes=2, members=2, min_count=3)
    assert messages == []
    assert status.message == (
        "pod group is unschedulable, minCount (3) cannot be satisfied: 0 scheduled, 2 remaining"
    )


def test_the_condition_is_set_and_never_goes_back_from_true() -> None:
    rejected = Status(Code.UNSCHEDULABLE, "minCount (8) cannot be satisfied")
    conditions = updated_conditions(_group(8), rejected, now="2026-01-01T00:00:00Z")
    assert conditions == [
        {
            "type": "PodGroupInitiallyScheduled",
            "status": "False",
            "observedGeneration": 2,
            "lastTransitionTime": "2026-01-01T00:00:00Z",
            "reason": "Unschedulable",
            "message": "minCount (8) cannot be satisfied",
        }
    ]
    assert updated_conditions(_group(8, conditions=conditions), rejected) is None  # no change
    scheduled = updated_conditions(_group(8, conditions=conditions), SUCCESS)
    assert scheduled is not None
    assert (scheduled[0]["status"], scheduled[0]["reason"]) == ("True", "Scheduled")
    assert updated_conditions(_group(8, conditions=scheduled), rejected) is None


def test_take_members_takes_a_groups_waiting_pods_into_flight() -> None:
    queue = SchedulingQueue(less=lambda a, b: a.timestamp < b.timestamp)
    for i in range(3):
        queue.add(_member(i))
    queue.add(make_pod().name("other").uid("other").model())
    taken = queue.take_members(lambda pod: pod.pod_group_name == "pg")
    assert sorted(qpi.pod.name for qpi in taken) == ["w0", "w1", "w2"]
    assert queue.pending_counts()["active"] == 1
    assert {pod.name for pod in queue.in_flight_pods()} == {"w0", "w1", "w2"}
