"""A topology-constrained group's members beyond `minCount` after the group was scheduled
(kube-scheduler v1.37.2, `TopologyAwareWorkloadScheduling`): the cycle for the members left
over. Upstream's rules, from `pkg/scheduler/schedule_one_podgroup.go`:

* `TopologyPlacement.GeneratePlacements` offers only the domain of the members already
  scheduled; GangScheduling's `PlacementFeasible` is satisfied by them
  (`scheduled >= minCount`), so `podGroupSchedulingDefaultAlgorithm` returns Success for that
  placement even when no member fits, and the placement counts as feasible;
* `runRootSchedulingAlgorithm` then turns a success that placed no member into
  `pod group is unschedulable` (no `0/N placements` text), each member keeping its own
  `0/N nodes are available` reason;
* PodGroupPostFilter adds `pod group preemption: ...`, and `updatePodGroupCondition` does
  not write the resulting False over a `PodGroupInitiallyScheduled` that the PodGroup it
  holds already shows True.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code, Status
from kubesched.framework.listers import ClusterListers
from kubesched.framework.placement_points import PodGroupInfo
from kubesched.model import ApiObject, SchedulingPodGroup
from kubesched.queue import QueuedPodInfo
from kubesched.scheduler.placement_metrics import PlacementMetrics
from kubesched.scheduler.podgroup_algorithm import GroupResult
from kubesched.scheduler.podgroup_placement import (
    PlacementCycle,
    schedule_group_in_placements,
    scheduled_members,
)
from kubesched.scheduler.podgroup_status import (
    as_post_filter_status,
    condition_for,
    updated_conditions,
    with_post_filter,
)
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod

RACK = "topology.kubernetes.io/rack"
PLUGINS: list[str | tuple[str, int]] = [
    "GangScheduling",
    "TopologyPlacementGenerator",
    ("PodGroupPodsCount", 1),
]
NO_VICTIMS = "No preemption victims found for incoming preemptor"


def _group(conditions: list[dict[str, str]] | None = None) -> SchedulingPodGroup:
    spec = {
        "schedulingPolicy": {"gang": {"minCount": 2}},
        "schedulingConstraints": {"topology": [{"key": RACK}]},
    }
    body = {"metadata": {"namespace": "ns", "name": "pg"}, "spec": spec}
    if conditions is not None:
        body["status"] = {"conditions": conditions}
    return SchedulingPodGroup.of(ApiObject.from_json(body))


def _leftover_cycle(rack_a_cpu: str, metrics: PlacementMetrics | None = None) -> GroupResult:
    """Two members bound on a1 (rack a, `rack_a_cpu` cpus); rack b has room for anything;
    the cycle for one more member of 1 cpu."""
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    fw = build_test_framework(handle=handle, enabled={"multiPoint": PLUGINS})
    cache, snapshot = SchedulerCache(), Snapshot()
    for name, cpu, rack in (("a1", rack_a_cpu, "a"), ("b1", "8", "b")):
        node = make_node().name(name).capacity(cpu=cpu, pods="10").label(RACK, rack).model()
        cache.add_node(node)
        handle.add_node(node)
    for i in range(2):
        bound = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg")
        pod = bound.req(cpu="1").node("a1").model()
        handle.listers.pods.on_add(pod)
        cache.add_pod(pod)
    extra = make_pod().name("w2").namespace("ns").uid("w2").pod_group("pg").req(cpu="1").model()
    handle.listers.pods.on_add(extra)
    cache.update_snapshot(snapshot)
    group = _group()
    info = PodGroupInfo(group, scheduled_members(fw, cache, group))
    run = PlacementCycle(cache, snapshot, metrics=metrics)
    return schedule_group_in_placements(fw, run, info, [QueuedPodInfo(pod=extra, timestamp=0.0)])


def test_an_extra_member_that_does_not_fit_makes_the_group_unschedulable_without_placements() -> (
    None
):
    registry = CollectorRegistry()
    result = _leftover_cycle("2", PlacementMetrics(registry))
    assert result.status.code is Code.UNSCHEDULABLE
    assert result.status.message == "pod group is unschedulable"  # not `0/1 placements ...`
    [member] = result.members
    assert member.host == ""
    assert member.status.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    evaluations = {
        sample.labels["result"]: sample.value
        for family in registry.collect()
        for sample in family.samples
        if sample.name == "scheduler_placement_evaluations_total"
    }
    assert evaluations == {"feasible": 1.0}  # the placement's trial succeeded


def test_an_extra_member_that_fits_goes_to_the_groups_rack_only() -> None:
    result = _leftover_cycle("3")
    assert result.status.is_success()
    assert [member.host for member in result.members] == ["a1"]


def test_the_leftover_condition_is_false_with_the_preemption_reason_unless_true_already() -> None:
    rejected = Status(Code.UNSCHEDULABLE, "pod group is unschedulable")
    post_filter = as_post_filter_status(Status(Code.UNSCHEDULABLE, NO_VICTIMS))
    status = with_post_filter(rejected, post_filter)
    message = f"pod group is unschedulable, pod group preemption: {NO_VICTIMS}"
    assert condition_for(status) == ("False", "Unschedulable", message)
    written = updated_conditions(_group(), status, now="2026-01-01T00:00:00Z")
    assert written is not None
    assert written[0]["message"] == message
    scheduled = {
        "type": "PodGroupInitiallyScheduled",
        "status": "True",
        "reason": "Scheduled",
        "message": "",
    }
    assert updated_conditions(_group([scheduled]), status) is None
