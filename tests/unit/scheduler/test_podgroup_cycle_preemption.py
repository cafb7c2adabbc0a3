"""The pod-group cycle with DefaultPreemption: a gang that fits only without lower-priority
pods asks for their eviction, every member goes back to the queue nominated to its node with
upstream's texts, and the PodGroup's condition says so; nothing is bound in this cycle."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Status
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.queue import Nominator, QueuedPodInfo, SchedulingQueue
from kubesched.runtime import Framework
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.podgroup_cycle import PodGroupCycles
from kubesched.scheduler.workload_metrics import WorkloadMetrics
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod

HIGH = 100


def _member(i: int) -> Pod:
    pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg").req(cpu="1")
    return pod.priority(HIGH).model()


def _low(name: str, node: str) -> Pod:
    pod = make_pod().name(name).namespace("ns").uid(name).node(node).req(cpu="1")
    return pod.model()


def _add_group(handle: FakeHandle, *, min_count: int, priority: int) -> None:
    """The PodGroup ns/pg (uid pg-uid) in the handle's lister."""
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if priority:
        spec["priority"] = priority
    group = {
        "metadata": {"namespace": "ns", "name": "pg", "uid": "pg-uid", "generation": 1},
        "spec": spec,
    }
    handle.listers.add(SCHEDULING_PODGROUPS, ApiObject.from_json(group))


class Recorder:
    def __init__(self) -> None:
        self.failures: dict[str, tuple[Status, str | None]] = {}
        self.evictions: list[dict[str, Any]] = []

    def handle_failure(
        self, fw: object, qpi: QueuedPodInfo, status: Status, *_: Any, **kw: Any
    ) -> None:
        del fw
        self.failures[qpi.pod.name] = (status, kw.get("nominate", ""))

    def preempt_group(self, **kw: Any) -> None:
        self.evictions.append(kw)


@dataclass
class Scene:
    handle: FakeHandle
    fw: Framework
    cache: SchedulerCache
    recorder: Recorder
    cycles: PodGroupCycles
    queue: SchedulingQueue

    def schedule_w0(self) -> list[Any]:
        first = self.queue.take_members(lambda pod: pod.name == "w0")[0]
        return self.cycles.schedule(self.fw, first, cycle=1)


def _gang_needing_room(metrics: WorkloadMetrics | None = None) -> Scene:
    """A gang of 2 (priority HIGH) for a node of 2 cpu taken by two low-priority pods."""
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    _add_group(handle, min_count=2, priority=HIGH)
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    cache = SchedulerCache()
    cache.add_node(make_node().name("n0").capacity(cpu="2", pods="10").model())
    for pod in (_low("a", "n0"), _low("b", "n0")):
        cache.add_pod(pod)
        handle.listers.pods.on_add(pod)
    queue = SchedulingQueue(less=lambda a, b: a.timestamp < b.timestamp)
    for pod in (_member(0), _member(1)):
        handle.listers.pods.on_add(pod)
        queue.add(pod)
    recorder = Recorder()
    cycles = PodGroupCycles(
        cache=cache,
        snapshot=Snapshot(),
        queue=queue,
        assume_and_reserve=lambda *a, **kw: None,
        handle_failure=recorder.handle_failure,
        preempt_group=recorder.preempt_group,
        metrics=metrics,
    )
    return Scene(handle, fw, cache, recorder, cycles, queue)


def test_a_gang_that_needs_room_evicts_and_waits_nominated() -> None:
    scene = _gang_needing_room()
    handle, cache, recorder = scene.handle, scene.cache, scene.recorder
    assert scene.schedule_w0() == []
    (eviction,) = recorder.evictions
    assert sorted(pod.name for pod in eviction["victims"]) == ["a", "b"]
    assert eviction["group"].uid == "pg-uid"
    w0, nominated0 = recorder.failures["w0"]
    w1, nominated1 = recorder.failures["w1"]
    assert (nominated0, nominated1) == ("n0", "n0")
    assert w0.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert w1.message == "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining"
    (patch,) = handle.status_patches  # the PodGroup's condition
    condition = patch[1]["conditions"][0]
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    assert condition["message"] == (
        "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, "
        "pod group preemption: found a placement for podgroup, preempting 2 victims"
    )
    assert cache.pod_count() == 2  # the victims are still counted until they are gone
    assert cache.assumed_count() == 0


def test_members_of_another_priority_than_their_group_are_an_error() -> None:
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    _add_group(handle, min_count=1, priority=0)
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    queue = SchedulingQueue(less=lambda a, b: a.timestamp < b.timestamp)
    pod = _member(0)  # priority 100
    handle.listers.pods.on_add(pod)
    queue.add(pod)
    recorder = Recorder()
    cycles = PodGroupCycles(
        cache=SchedulerCache(),
        snapshot=Snapshot(),
        queue=queue,
        assume_and_reserve=lambda *a, **kw: None,
        handle_failure=recorder.handle_failure,
    )
    first = queue.take_members(lambda p: p.name == "w0")[0]
    assert cycles.schedule(fw, first, cycle=1) == []
    status, _ = recorder.failures["w0"]
    assert status.is_error()
    assert status.message == (
        "all pods in a single pod group should have the same priority as the pod group's "
        "priority, got 100 and 0"
    )


class NominatorHandle(FakeHandle):
    """Reads nominations from the queue's nominator, as the application's Handle does."""

    nominator: Nominator | None = None

    def has_nominated_pods(self) -> bool:
        return self.nominator is not None and len(self.nominator) > 0

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        return self.nominator.pods_for_node(node_name) if self.nominator is not None else []

    def nominated_node_names(self) -> Sequence[str]:
        return self.nominator.node_names() if self.nominator is not None else []


def test_members_nominated_by_a_preemption_fit_where_they_are_nominated() -> None:
    # After a preemption both members are nominated to n0; on trial each placed member's
    # nomination is dropped (as upstream's assume) and the trial's end restores it.
    handle = NominatorHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    _add_group(handle, min_count=2, priority=HIGH)
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    cache = SchedulerCache()
    cache.add_node(make_node().name("n0").capacity(cpu="2", pods="10").model())
    queue = SchedulingQueue(less=lambda a, b: a.timestamp < b.timestamp)
    handle.nominator = queue.nominator
    for pod in (_member(0), _member(1)):
        handle.listers.pods.on_add(pod)
        queue.add(pod)
        queue.nominator.add(pod, node_name="n0")
    placed: list[str] = []

    def assume_and_reserve(fw: object, state: object, qpi: QueuedPodInfo, **kw: Any) -> None:
        del fw, state
        placed.append(f"{qpi.pod.name}@{kw['host']}")

    recorder = Recorder()
    cycles = PodGroupCycles(
        cache=cache,
        snapshot=Snapshot(),
        queue=queue,
        assume_and_reserve=assume_and_reserve,
        handle_failure=recorder.handle_failure,
    )
    first = queue.take_members(lambda p: p.name == "w0")[0]
    cycles.schedule(fw, first, cycle=1)
    assert recorder.failures == {}
    assert placed == ["w0@n0", "w1@n0"]
    assert queue.nominator.node_of("w0") == "n0"  # the trial's drops are undone


def test_the_pod_group_cycle_reports_upstreams_workload_metrics() -> None:
    metrics = SchedulerMetrics(generic_workload=True)
    scene = _gang_needing_room(metrics.workload)
    scene.schedule_w0()
    fw, recorder = scene.fw, scene.recorder

    def value(name: str, **labels: str) -> float | None:
        return metrics.registry.get_sample_value(name, labels)

    profile = fw.profile_name
    attempts = "scheduler_podgroup_schedule_attempts_total"
    assert value(attempts, result="waiting_on_preemption", profile=profile) == 1
    assert value(attempts, result="unschedulable", profile=profile) is None
    duration = "scheduler_podgroup_scheduling_attempt_duration_seconds_count"
    assert value(duration, result="waiting_on_preemption", profile=profile) == 1
    assert value("scheduler_podgroup_scheduling_algorithm_duration_seconds_count") == 1
    assert value("scheduler_workload_preemption_attempts_total", result="Success") == 1
    evaluated = "scheduler_preemption_evaluation_duration_seconds_count"
    assert value(evaluated, preemptor="podgroup", result="Success") == 1
    (eviction,) = recorder.evictions
    assert eviction["group_disruptions"] == 0  # the victims are single pods
    assert eviction["pdb_violations"] == 0
