"""The pod-group cycle of a CompositePodGroup tree with a real queue (`CompositePodGroup`
gate): the tree is popped once with the members of all its PodGroups (upstream's
`workloadForest` root unit), placed all or nothing, and its members come back together;
every member says why with upstream's texts (`submitPodGroupAlgorithmResult`) and each
PodGroup gets its `PodGroupInitiallyScheduled` condition."""

from __future__ import annotations

from typing import Any

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Status
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.plugins.helper.hierarchy import composite_hierarchy
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.scheduler.podgroup_cycle import PodGroupCycles
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod
from tests.unit.queue.queue_fakes import FakeClock, priority_sort

GROUP_SAYS = (
    "pod group is unschedulable, 0/1 placements are available, first placement status: "
    "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
)
NO_VICTIMS = "pod group preemption: No preemption victims found for incoming preemptor"


def _obj(name: str, spec: dict[str, Any], created: str) -> ApiObject:
    meta = {"namespace": "ns", "name": name, "uid": f"u-{name}", "creationTimestamp": created}
    return ApiObject.from_json({"metadata": meta, "spec": spec})


def _member(group: str, i: int, priority: int = 0) -> Pod:
    pod = make_pod().name(f"{group}-{i}").namespace("ns").uid(f"{group}-{i}").pod_group(group)
    return pod.req(cpu="1").priority(priority).model()


Preempted = list[tuple[str, list[str]]]


async def _cycle(
    cpu: str, *, victim: Pod | None = None, priority: int = 0, preempted: Preempted | None = None
) -> tuple[SchedulingQueue, dict[str, str], list[str], FakeHandle]:
    """One cycle of composite `job` (minGroupCount 2) of pg-a and pg-b (minCount 2, two 1-cpu
    members each) on one node of `cpu`; the queue, each failed member's message, the members
    committed."""
    handle = FakeHandle(
        listers=ClusterListers([SCHEDULING_PODGROUPS, SCHEDULING_COMPOSITEPODGROUPS])
    )
    job = {"schedulingPolicy": {"gang": {"minGroupCount": 2}}, "priority": priority}
    handle.listers.add(SCHEDULING_COMPOSITEPODGROUPS, _obj("job", job, "2026-01-01T00:00:00Z"))
    for i, name in enumerate(("pg-a", "pg-b")):
        spec = {"parentCompositePodGroupName": "job", "schedulingPolicy": {"gang": {"minCount": 2}}}
        handle.listers.add(SCHEDULING_PODGROUPS, _obj(name, spec, f"2026-01-01T00:00:0{i}Z"))
    plugins = ["GangScheduling", "TopologyPlacementGenerator"]
    fw = build_test_framework(handle=handle, enabled={"multiPoint": plugins})
    record: Preempted = preempted if preempted is not None else []
    cache = SchedulerCache()
    cache.add_node(make_node().name("n0").capacity(cpu=cpu, pods="10").model())
    if victim is not None:
        cache.add_pod(victim)
        handle.listers.pods.on_add(victim)
    queue = SchedulingQueue(less=priority_sort, clock=FakeClock())
    said: dict[str, str] = {}
    committed: list[str] = []

    def handle_failure(_fw: object, qpi: QueuedPodInfo, status: Status, *_: Any, **__: Any) -> None:
        said[qpi.pod.name] = status.message
        queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=1)

    def assume_and_reserve(_fw: object, _state: object, qpi: QueuedPodInfo, **_: Any) -> None:
        committed.append(qpi.pod.name)

    cycles = PodGroupCycles(
        cache=cache,
        snapshot=Snapshot(),
        queue=queue,
        assume_and_reserve=assume_and_reserve,
        handle_failure=handle_failure,
        tree=composite_hierarchy(handle),
        preempt_group=lambda **kw: record.append(
            (kw["group"].name, sorted(p.name for p in kw["victims"]))
        ),
    )
    for pod in [_member(g, i, priority) for g in ("pg-b", "pg-a") for i in range(2)]:
        handle.listers.pods.on_add(pod)
        queue.add(pod)
    first = await queue.pop()
    assert first is not None
    cycles.schedule(fw, first, cycle=1)
    return queue, said, committed, handle


def _condition(handle: FakeHandle, group: str) -> tuple[str, str, str]:
    patches = [p for key, p in handle.status_patches if key == f"ns/{group}"]
    (condition,) = patches[-1]["conditions"]
    return condition["status"], condition["reason"], condition["message"]


async def test_a_tree_that_fits_is_committed_whole() -> None:
    queue, said, committed, handle = await _cycle("4")
    assert said == {}
    assert sorted(committed) == ["pg-a-0", "pg-a-1", "pg-b-0", "pg-b-1"]
    assert _condition(handle, "pg-a") == ("True", "Scheduled", "")
    assert queue.pending_counts()["active"] == 0


async def test_a_tree_that_cannot_fit_commits_nothing_and_comes_back_as_one() -> None:
    queue, said, committed, handle = await _cycle("3")
    assert committed == []
    # pg-a (created first) fitted on its own, so it takes the root's status (the same
    # object upstream, so the preemption outcome is appended to it once as the root's and
    # once as pg-a's); its members, completed before preemption, report a copy of it. pg-b
    # failed itself: its member placed on trial repeats pg-b's rejection after its own
    # prefix, the other says where it fit nowhere.
    assert said["pg-a-0"] == said["pg-a-1"] == GROUP_SAYS
    assert said["pg-b-0"] == f"pod group is unschedulable, {GROUP_SAYS}, {NO_VICTIMS}"
    assert said["pg-b-1"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    twice = f"{GROUP_SAYS}, {NO_VICTIMS}, {NO_VICTIMS}"
    assert _condition(handle, "pg-a") == ("False", "Unschedulable", twice)
    assert _condition(handle, "pg-b") == ("False", "Unschedulable", f"{GROUP_SAYS}, {NO_VICTIMS}")
    assert queue.pending_counts()["backoff"] == 4


async def test_the_tree_preempts_lower_priority_pods_as_one() -> None:
    """upstream's PodGroupPostFilter for the root: the whole tree placed again with every
    victim of lower priority than the root's set aside."""
    victim = make_pod().name("low").namespace("ns").uid("low").req(cpu="2").node("n0").model()
    preempted: Preempted = []
    _, said, committed, handle = await _cycle("4", victim=victim, priority=10, preempted=preempted)
    assert committed == []
    assert preempted == [("job", ["low"])]
    found = "pod group preemption: found a placement for podgroup, preempting 1 victims"
    assert _condition(handle, "pg-b")[2].endswith(found)
    assert set(said) == {"pg-a-0", "pg-a-1", "pg-b-0", "pg-b-1"}
