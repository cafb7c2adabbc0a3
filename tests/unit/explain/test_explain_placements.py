"""`kubesched explain` of a gang under `TopologyAwareWorkloadScheduling`: every placement the
generator made (one per rack), each member's fate there, the scores of the feasible ones,
the scheduler's choice, and the texts when nothing fits; every trial undone."""

from __future__ import annotations

import json

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.explain.group_render import group_dict, group_lines
from kubesched.explain.group_report import GroupReport
from kubesched.explain.placement_render import placement_summary
from kubesched.explain.placement_report import PlacementsReport
from kubesched.explain.placements import explain_placements
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod

RACK = "topology.kubernetes.io/rack"
PLUGINS: list[str | tuple[str, int]] = [
    "GangScheduling",
    "TopologyPlacementGenerator",
    ("PodGroupPodsCount", 1),
]


def _group(min_count: int, key: str = RACK) -> SchedulingPodGroup:
    spec: dict[str, object] = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    body = {"metadata": {"namespace": "ns", "name": "pg"}, "spec": spec}
    return SchedulingPodGroup.of(ApiObject.from_json(body))


def _member(i: int, *, node: str = "", priority: int = 0) -> Pod:
    pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg").req(cpu="1")
    pod = pod.scheduler("test-scheduler").priority(priority)
    return (pod.node(node) if node else pod).model()


def _explain(
    nodes: dict[str, tuple[str, str]],
    group: SchedulingPodGroup,
    members: list[Pod],
    *,
    topology_aware: bool = True,
) -> tuple[PlacementsReport | None, SchedulerCache]:
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    fw = build_test_framework(handle=handle, enabled={"multiPoint": PLUGINS})
    fw.topology_aware = topology_aware
    cache, snapshot = SchedulerCache(), Snapshot()
    for name, (cpu, rack) in nodes.items():
        node = make_node().name(name).capacity(cpu=cpu, pods="10").label(RACK, rack).model()
        cache.add_node(node)
        handle.add_node(node)
    for pod in members:
        handle.listers.pods.on_add(pod)
        if pod.node_name:
            cache.add_pod(pod)
    cache.update_snapshot(snapshot)
    found = explain_placements(
        fw, cache=cache, snapshot=snapshot, group=group, pods=members, explained=members[0]
    )
    return found, cache


def test_every_rack_is_a_placement_and_the_one_that_fits_is_chosen() -> None:
    nodes = {"a1": ("2", "a"), "b1": ("2", "b"), "b2": ("2", "b"), "c1": ("1", "c")}
    found, cache = _explain(nodes, _group(4), [_member(i) for i in range(4)])
    assert found is not None
    assert cache.assumed_count() == 0  # every trial undone
    assert found.generator == "TopologyPlacementGenerator"
    assert found.members == ("w0", "w1", "w2", "w3")
    by_domain = {p.domain: p for p in found.placements}
    assert sorted(by_domain) == ["a", "b", "c"]
    assert by_domain["b"].feasible
    assert sorted(m.node for m in by_domain["b"].members) == ["b1", "b1", "b2", "b2"]
    rack_a = by_domain["a"]
    assert not rack_a.feasible
    assert rack_a.status == "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining"
    placed = [m for m in rack_a.members if m.node]
    refused = [m for m in rack_a.members if not m.node]
    assert [m.node for m in placed] == ["a1", "a1"]
    assert refused
    assert refused[0].plugins == ("NodeResourcesFit",)
    assert "Insufficient cpu" in refused[0].message
    assert found.chosen == "b"
    assert "b is the only placement where the group fits" in found.outcome
    assert found.pod == "w0"
    assert found.pod_node in {"b1", "b2"}
    assert (
        placement_summary(found)
        == f"kubesched would place the group in b (w0 on {found.pod_node} in its trial)"
    )


def test_feasible_racks_are_scored_and_the_best_total_wins() -> None:
    nodes = {"a1": ("2", "a"), "b1": ("4", "b")}
    found, _ = _explain(nodes, _group(2), [_member(i) for i in range(4)])
    assert found is not None
    scored = {p.domain: (p.total, dict(p.scores)) for p in found.placements}
    assert scored == {"a": (50, {"PodGroupPodsCount": 50}), "b": (100, {"PodGroupPodsCount": 100})}
    assert found.chosen == "b"
    assert found.outcome == "the scheduler would choose b (total score 100)"


def test_a_tie_is_reported_as_one() -> None:
    found, _ = _explain({"a1": ("2", "a"), "b1": ("2", "b")}, _group(2), [_member(0), _member(1)])
    assert found is not None
    assert found.chosen == ""
    assert found.best == ("a", "b")
    assert "tie between a, b at total score 100" in found.outcome
    assert (
        placement_summary(found)
        == "tie between placements a, b: kubesched picks one of them at random"
    )


def test_a_gang_that_fits_no_rack_gets_the_schedulers_text() -> None:
    found, _ = _explain({"a1": ("1", "a"), "b1": ("1", "b")}, _group(2), [_member(0), _member(1)])
    assert found is not None
    assert not found.feasible
    assert found.outcome == (
        "FailedScheduling: pod group is unschedulable, 0/2 placements are available, first "
        "placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
    )
    assert placement_summary(found) == found.outcome


def test_too_few_members_read_as_the_group_error_of_the_first_placement() -> None:
    found, _ = _explain({"a1": ("3", "a")}, _group(4), [_member(i) for i in range(3)])
    assert found is not None
    assert found.placements[0].status == (
        "pod group is unschedulable, minCount (4) cannot be satisfied: 0 scheduled, 3 remaining"
    )
    assert found.placements[0].members[0].tried is False
    assert found.outcome == (
        "FailedScheduling: pod group is unschedulable, 0/1 placements are available, first "
        "placement status: pod group is unschedulable"
    )


def test_a_key_no_node_carries_makes_no_placement() -> None:
    group = _group(1, key="example.com/none")
    found, _ = _explain({"a1": ("1", "a")}, group, [_member(0)])
    assert found is not None
    assert found.placements == ()
    assert found.outcome == "FailedScheduling: no feasible placements found"


def test_members_already_bound_keep_the_cycle_in_their_rack() -> None:
    nodes = {"a1": ("3", "a"), "b1": ("8", "b")}
    members = [_member(0), _member(1), _member(9, node="a1")]
    found, _ = _explain(nodes, _group(3), members)
    assert found is not None
    assert found.scheduled == (("w9", "a1"),)
    assert [p.domain for p in found.placements] == ["a"]
    assert found.chosen == "a"


def test_extra_members_that_fit_nowhere_in_a_scheduled_groups_rack_refuse_the_group() -> None:
    """As the scheduler's leftover cycle (upstream `runRootSchedulingAlgorithm`): the rack
    of the bound members is a feasible placement (minCount is met), no pending member fits
    in it, so the group is refused after the choice, without a `0/N placements` text."""
    nodes = {"a1": ("2", "a"), "b1": ("8", "b")}
    members = [_member(2), _member(0, node="a1"), _member(1, node="a1")]
    found, _ = _explain(nodes, _group(2), members)
    assert found is not None
    assert [p.domain for p in found.placements] == ["a"]
    assert found.placements[0].feasible
    assert found.outcome == "FailedScheduling: pod group is unschedulable"
    assert found.chosen == ""


def test_members_are_tried_in_the_schedulers_order() -> None:
    members = [_member(0), _member(1, priority=10), _member(2)]
    found, _ = _explain({"a1": ("3", "a")}, _group(3), members)
    assert found is not None
    assert found.members == ("w1", "w0", "w2")  # higher priority first, then by name


def test_without_the_gate_there_is_no_placement_section() -> None:
    found, _ = _explain({"a1": ("1", "a")}, _group(1), [_member(0)], topology_aware=False)
    assert found is None


def test_the_section_is_printed_and_serialized() -> None:
    nodes = {"a1": ("2", "a"), "b1": ("2", "b"), "b2": ("2", "b")}
    found, _ = _explain(nodes, _group(4), [_member(i) for i in range(4)])
    report = GroupReport("scheduling.k8s.io/v1beta1", "ns", "pg", "minCount", placements=found)
    text = "\n".join(group_lines(report))
    assert "placements by TopologyPlacementGenerator: topology key " + RACK in text
    assert "2 considered, 1 feasible" in text
    assert "b (nodes b1, b2): feasible, chosen" in text
    assert "a (nodes a1): infeasible: minCount (4) cannot be satisfied: 2 scheduled" in text
    assert "does not fit: 0/1 nodes are available: 1 Insufficient cpu. [NodeResourcesFit]" in text
    data = json.loads(json.dumps(group_dict(report)))["placements"]
    assert data["chosen"] == "b"
    assert data["topologyKey"] == RACK
    rack_a = next(p for p in data["placements"] if p["domain"] == "a")
    assert rack_a["feasible"] is False
    assert any(
        m["fits"] is False and m["plugins"] == ["NodeResourcesFit"] for m in rack_a["members"]
    )
