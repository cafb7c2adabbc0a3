"""Pod-group preemption meeting CompositePodGroups as victims (kube-scheduler v1.37.2's
`newDomainForWorkloadPreemption` with the CompositePodGroup lister): `evaluate_group` reads
the composites when the handle serves them (the gate on), so the members of a composite are
victims at the root's priority and a `disruptionMode.all` composite is evicted whole; with
the gate off, each PodGroup is ranked and evicted on its own, as before."""

from __future__ import annotations

from typing import Any

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.plugins.default_preemption.victims import group_lookup
from kubesched.queue import Nominator, QueuedPodInfo
from kubesched.scheduler.podgroup_preemption import NO_VICTIMS, GroupPreemption, evaluate_group
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod


def _obj(name: str, priority: int, **spec: Any) -> ApiObject:
    meta = {"namespace": "ns", "name": name, "uid": name, "generation": 1}
    return ApiObject.from_json({"metadata": meta, "spec": {"priority": priority, **spec}})


def _pod(name: str, group: str, node: str = "") -> Pod:
    pod = make_pod().name(name).namespace("ns").uid(name).pod_group(group).req(cpu="1")
    pod = pod.priority(1).start_time("2026-01-01T00:00:00Z")
    return (pod.node(node) if node else pod).model()


def _evaluate(*, gate: bool, root: int, mode: str = "all", member: int = 500) -> GroupPreemption:
    """A gang `pg` (priority 100, two 1-cpu members) on two full 2-cpu nodes, whose pods
    belong to PodGroups `a` and `b` (priority `member`) of the composite `job`."""
    specs = [SCHEDULING_PODGROUPS, *([SCHEDULING_COMPOSITEPODGROUPS] if gate else [])]
    handle = FakeHandle(listers=ClusterListers(specs))
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    gang = _obj("pg", 100, schedulingPolicy={"gang": {"minCount": 2}})
    handle.listers.add(SCHEDULING_PODGROUPS, gang)
    for name in ("a", "b"):
        handle.listers.add(
            SCHEDULING_PODGROUPS, _obj(name, member, parentCompositePodGroupName="job")
        )
    if gate:
        handle.listers.add(
            SCHEDULING_COMPOSITEPODGROUPS, _obj("job", root, disruptionMode={mode: {}})
        )
    cache, snapshot = SchedulerCache(), Snapshot()
    for i in range(2):
        cache.add_node(make_node().name(f"n{i}").capacity(cpu="2", pods="10").model())
    for name, group, node in (
        ("v0", "a", "n0"),
        ("v1", "b", "n0"),
        ("v2", "a", "n1"),
        ("v3", "b", "n1"),
    ):
        pod = _pod(name, group, node)
        cache.add_pod(pod)
        handle.listers.pods.on_add(pod)
    members = [_pod(f"w{i}", "pg") for i in range(2)]
    for pod in members:
        handle.listers.pods.on_add(pod)
    cache.update_snapshot(snapshot)
    return evaluate_group(
        fw,
        cache=cache,
        snapshot=snapshot,
        group=SchedulingPodGroup.of(gang),
        queued=[QueuedPodInfo(pod=pod, timestamp=float(i)) for i, pod in enumerate(members)],
        scheduled=0,
        group_of=group_lookup(handle.lister(SCHEDULING_PODGROUPS)),
        pdbs=(),
        nominator=Nominator(),
        now=1e10,
    )


def test_a_disruption_mode_all_composite_below_the_gang_is_evicted_whole() -> None:
    outcome = _evaluate(gate=True, root=10)
    assert outcome.status.code is Code.SUCCESS
    assert sorted(pod.name for pod in outcome.victims) == ["v0", "v1", "v2", "v3"]
    assert outcome.group_disruptions == 1


def test_per_pod_composite_members_go_one_by_one_at_the_roots_priority() -> None:
    outcome = _evaluate(gate=True, root=10, mode="single")
    assert outcome.status.code is Code.SUCCESS
    assert len(outcome.victims) == 2
    assert outcome.group_disruptions == 2  # each a pod of a PodGroup


def test_gate_off_the_podgroups_own_priority_counts() -> None:
    outcome = _evaluate(gate=False, root=10)
    assert outcome.status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert outcome.status.message == NO_VICTIMS


def test_a_root_above_the_gang_protects_its_members() -> None:
    assert _evaluate(gate=True, root=1000, member=5).status.message == NO_VICTIMS
    assert _evaluate(gate=False, root=1000, member=5).status.code is Code.SUCCESS
