"""Victims under CompositePodGroups (kube-scheduler v1.37.2, `CompositePodGroup` gate), table
by table from upstream's own tests in pkg/scheduler/framework/preemption:
`TestNewDomainForWorkloadPreemption` (the CPG cases: which pods make one victim),
`TestGetHighestAllAncestor`, `TestGetPodPriority` (a victim's priority is the root's) and
`TestMoreImportantVictim` (composites before PodGroups before pods). "gate off" is the
GenericWorkload gate alone: `group_lookup` without the composites' tree."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.framework import NodeInfo
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod, PodDisruptionBudget
from kubesched.plugins.default_preemption import victims
from kubesched.plugins.default_preemption.groups import Groups, highest_all
from kubesched.plugins.default_preemption.pdb import violation_counts
from kubesched.plugins.helper.hierarchy import Hierarchy
from kubesched.testing import make_node, make_pod

A, S = "all", "single"
Specs = dict[str, tuple[str, str]]
"""name -> (disruption mode, parent composite ("" for none))."""


def _obj(name: str, mode: str, parent: str, priority: int, **spec: Any) -> ApiObject:
    spec["disruptionMode"] = {mode: {}}
    spec["priority"] = priority
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return ApiObject.from_json({"metadata": {"namespace": "ns", "name": name}, "spec": spec})


def _lookup(
    pgs: Specs, cpgs: Specs, *, gate: bool, priorities: dict[str, int] | None = None
) -> Groups:
    prio = priorities or {}
    listers = ClusterListers([SCHEDULING_PODGROUPS, SCHEDULING_COMPOSITEPODGROUPS])
    for name, (mode, parent) in pgs.items():
        listers.add(SCHEDULING_PODGROUPS, _obj(name, mode, parent, prio.get(name, 10)))
    for name, (mode, parent) in cpgs.items():
        listers.add(SCHEDULING_COMPOSITEPODGROUPS, _obj(name, mode, parent, prio.get(name, 10)))
    store = listers.store(SCHEDULING_PODGROUPS)
    tree = Hierarchy(store, listers.store(SCHEDULING_COMPOSITEPODGROUPS)) if gate else None
    return victims.group_lookup(store, tree)


def _pod(name: str, node: str, group: str = "", priority: int = 10) -> Pod:
    pod = make_pod().name(name).namespace("ns").uid(name).node(node).priority(priority)
    pod = pod.label("app", "job")
    return (pod.pod_group(group) if group else pod).model()


def _nodes(groups: list[str]) -> list[NodeInfo]:
    """Upstream's layout: p1_<pg> on node1, p2_<pg> on node2 for every PodGroup."""
    infos = []
    for i in (1, 2):
        info = NodeInfo(node=make_node().name(f"node{i}").capacity(cpu="8").model())
        for group in groups:
            info.add_pod(_pod(f"p{i}_{group}", f"node{i}", group))
        infos.append(info)
    return infos


def _units(found: list[victims.Victim]) -> set[frozenset[str]]:
    return {frozenset(pod.name for pod in victim.pods) for victim in found}


def _all(*names: str) -> set[frozenset[str]]:
    return {frozenset(f"p{i}_{name}" for name in names for i in (1, 2))}


def _each(*names: str) -> set[frozenset[str]]:
    return {frozenset([f"p{i}_{name}"]) for name in names for i in (1, 2)}


_NESTED = {"cpg1": (A, ""), "cpg2": (A, "cpg1"), "cpg3": (A, "cpg1")}
_MIXED = {"cpg1": (S, ""), "cpg2": (A, "cpg1"), "cpg3": (S, "cpg1")}
_UNDER_2_3 = {"pg1": (A, "cpg2"), "pg2": (A, "cpg2"), "pg3": (A, "cpg3"), "pg4": (A, "cpg3")}
_MIXED_PGS = {"pg1": (A, "cpg2"), "pg2": (A, "cpg2"), "pg3": (S, "cpg3"), "pg4": (S, "cpg3")}

# (upstream case name, PodGroups, CompositePodGroups, want with the gate on, want off)
DOMAIN_CASES = [
    (
        "root CompositePodGroup with DisruptionModeAll groups descendant pods",
        {"pg1": (A, "cpg1"), "pg2": (A, "cpg1")},
        {"cpg1": (A, "")},
        _all("pg1", "pg2"),
        _all("pg1") | _all("pg2"),
    ),
    (
        "root CompositePodGroup with DisruptionModeSingle respects PodGroup DisruptionModes",
        {"pg1": (S, "cpg1"), "pg2": (A, "cpg1")},
        {"cpg1": (S, "")},
        _each("pg1") | _all("pg2"),
        _each("pg1") | _all("pg2"),
    ),
    (
        "root DisruptionModeAll groups all descendants under nested CompositePodGroups",
        _UNDER_2_3,
        _NESTED,
        _all("pg1", "pg2", "pg3", "pg4"),
        _all("pg1") | _all("pg2") | _all("pg3") | _all("pg4"),
    ),
    (
        "root DisruptionModeSingle groups only under a nested DisruptionModeAll composite",
        _MIXED_PGS,
        _MIXED,
        _all("pg1", "pg2") | _each("pg3", "pg4"),
        _all("pg1") | _all("pg2") | _each("pg3", "pg4"),
    ),
    (
        "root DisruptionModeAll groups descendants even with DisruptionModeSingle",
        {"pg1": (S, "cpg1"), "pg2": (A, "cpg1")},
        {"cpg1": (A, "")},
        _all("pg1", "pg2"),
        _each("pg1") | _all("pg2"),
    ),
    (
        "gang CompositePodGroup with DisruptionModeSingle does not group",
        {"pg1": (S, "cpg1"), "pg2": (S, "cpg1")},
        {"cpg1": (S, "")},
        _each("pg1", "pg2"),
        _each("pg1", "pg2"),
    ),
    (
        "missing parent CompositePodGroup falls back to available ancestor disruption mode",
        {
            "pg1": (A, "cpg-mid1"),
            "pg2": (A, "cpg-mid1"),
            "pg3": (A, "cpg-mid2"),
            "pg4": (A, "cpg-mid2"),
        },
        {"cpg-root": (A, ""), "cpg-mid2": (A, "cpg-root")},
        _all("pg1") | _all("pg2") | _all("pg3", "pg4"),
        _all("pg1") | _all("pg2") | _all("pg3") | _all("pg4"),
    ),
]


@pytest.mark.parametrize(("name", "pgs", "cpgs", "on", "off"), DOMAIN_CASES, ids=lambda x: x)
def test_which_pods_make_one_victim(
    name: str, pgs: Specs, cpgs: Specs, on: set[frozenset[str]], off: set[frozenset[str]]
) -> None:
    """upstream TestNewDomainForWorkloadPreemption, "CPG enabled:" / "CPG disabled:"."""
    nodes = _nodes(sorted(pgs))
    for gate, want in ((True, on), (False, off)):
        found = victims.collect(nodes, _lookup(pgs, cpgs, gate=gate), now=0.0)
        assert _units(found) == want, (name, gate)
        assert all(v.priority == 10 for v in found)


def test_a_composite_victim_has_the_composite_type_and_all_its_pods_across_nodes() -> None:
    pgs = {"pg1": (A, "cpg1"), "pg2": (S, "cpg1")}
    group_of = _lookup(pgs, {"cpg1": (A, "")}, gate=True)
    nodes = _nodes(["pg1", "pg2"])
    (unit,) = victims.collect(nodes[:1], group_of, now=0.0, everywhere=nodes)
    assert unit.kind == victims.COMPOSITE
    assert unit.is_group
    assert {pod.name for pod in unit.pods} == {"p1_pg1", "p2_pg1", "p1_pg2", "p2_pg2"}


def test_pdb_violations_of_a_composite_victim_count_every_pod_under_it() -> None:
    """upstream FilterVictimsWithPDBViolation: a victim is atomic, its pods share the
    budgets; the composite's four pods are one victim with three violations (one
    disruption allowed), where without the gate each PodGroup is a victim of its own."""
    pgs = {"pg1": (A, "cpg1"), "pg2": (A, "cpg1")}
    budget = PodDisruptionBudget(
        namespace="ns", name="pdb", selector={"matchLabels": {"app": "job"}}, disruptions_allowed=1
    )
    for gate, want in ((True, [3]), (False, [1, 2])):
        found = victims.collect(
            _nodes(["pg1", "pg2"]), _lookup(pgs, {"cpg1": (A, "")}, gate=gate), now=0.0
        )
        assert violation_counts([v.pods for v in found], [budget]) == want


# (upstream TestGetHighestAllAncestor case, PodGroup of the pod, PodGroups, composites, want)
ANCESTOR_CASES = [
    ("pod without group", "", {}, {}, None),
    ("pod group missing from the lister", "pg1", {}, {}, None),
    ("pod group disruption mode single", "pg1", {"pg1": (S, "")}, {}, None),
    ("pod group disruption mode All", "pg1", {"pg1": (A, "")}, {}, "pg1"),
    (
        "parent CPG disruption mode All, child PG disruption mode single",
        "pg1",
        {"pg1": (S, "cpg1")},
        {"cpg1": (A, "")},
        "cpg1",
    ),
    (
        "grandparent CPG All, parent CPG single, child PG single",
        "pg1",
        {"pg1": (S, "cpg1")},
        {"cpg1": (S, "cpg2"), "cpg2": (A, "")},
        "cpg2",
    ),
    (
        "highest All parent wins (both have disruption mode All)",
        "pg1",
        {"pg1": (S, "cpg1")},
        {"cpg1": (A, "cpg2"), "cpg2": (A, "")},
        "cpg2",
    ),
    (
        "parent CPG missing from cache lister, child PG All returned",
        "pg1",
        {"pg1": (A, "cpg1")},
        {},
        "pg1",
    ),
]


@pytest.mark.parametrize(("name", "group", "pgs", "cpgs", "want"), ANCESTOR_CASES, ids=lambda x: x)
def test_highest_all_ancestor(
    name: str, group: str, pgs: Specs, cpgs: Specs, want: str | None
) -> None:
    """upstream TestGetHighestAllAncestor."""
    chain = _lookup(pgs, cpgs, gate=True).chain(_pod("p", "node1", group))
    top = highest_all(chain)
    assert (top.key[2] if top is not None else None) == want, name


# (upstream TestGetPodPriority case, PodGroup, PodGroups, composites, priorities, gate, want)
PRIORITY_CASES = [
    ("pod without PodGroup returns pod priority", "", {}, {}, {}, True, 7),
    (
        "pod with PodGroup returns PodGroup priority",
        "pg1",
        {"pg1": (S, "")},
        {},
        {"pg1": 50},
        True,
        50,
    ),
    ("PodGroup not found in lister falls back to pod priority", "missing-pg", {}, {}, {}, True, 7),
    (
        "parent CPG, returns CPG priority",
        "pg1",
        {"pg1": (S, "cpg1")},
        {"cpg1": (S, "")},
        {"cpg1": 150},
        True,
        150,
    ),
    (
        "grandparent CPG, returns grandparent CPG priority",
        "pg1",
        {"pg1": (S, "cpg1")},
        {"cpg1": (S, "cpg2"), "cpg2": (S, "")},
        {"cpg2": 250},
        True,
        250,
    ),
    (
        "parent CPG, but no composite lister: PodGroup priority",
        "pg1",
        {"pg1": (S, "cpg1")},
        {"cpg1": (S, "")},
        {"pg1": 50, "cpg1": 150},
        False,
        50,
    ),
    (
        "parent CPG not found: PodGroup priority",
        "pg1",
        {"pg1": (S, "cpg1")},
        {},
        {"pg1": 50},
        True,
        50,
    ),
    (
        "grandparent CPG not found: parent CPG priority",
        "pg1",
        {"pg1": (S, "cpg1")},
        {"cpg1": (S, "missing-cpg2")},
        {"pg1": 50, "cpg1": 150},
        True,
        150,
    ),
]


PriorityCase = tuple[str, str, Specs, Specs, dict[str, int], bool, int]


@pytest.mark.parametrize("case", PRIORITY_CASES, ids=lambda case: case[0])
def test_pod_priority_is_the_roots(case: PriorityCase) -> None:
    """upstream TestGetPodPriority; a victim (whole or one pod) carries the same priority."""
    name, group, pgs, cpgs, prio, gate, want = case
    group_of = _lookup(pgs, cpgs, gate=gate, priorities=prio)
    pod = _pod("p", "node1", group, priority=7)
    assert victims.pod_priority(pod, group_of) == want, name
    info = NodeInfo(node=make_node().name("node1").capacity(cpu="8").model())
    info.add_pod(pod)
    assert [v.priority for v in victims.collect([info], group_of, now=0.0)] == [want]


def test_a_composite_victim_is_ranked_at_its_roots_priority_and_type() -> None:
    """upstream MoreImportantVictim: priority first, then CPG > PG > pod, then size, then
    start. The composite (root priority 100, PodGroups at 10) outranks a PodGroup at 50."""
    pgs = {"pg1": (A, "cpg1"), "pg2": (S, "cpg1"), "solo": (A, "")}
    prio = {"pg1": 10, "pg2": 10, "cpg1": 100, "solo": 50}
    group_of = _lookup(pgs, {"cpg1": (A, "")}, gate=True, priorities=prio)
    ordered = victims.most_important_first(
        victims.collect(_nodes(["pg1", "pg2", "solo"]), group_of, now=0.0)
    )
    assert [(v.kind, v.priority, len(v.pods)) for v in ordered] == [
        (victims.COMPOSITE, 100, 4),
        (victims.PODGROUP, 50, 2),
    ]
    off = _lookup(pgs, {"cpg1": (A, "")}, gate=False, priorities=prio)
    ordered = victims.most_important_first(
        victims.collect(_nodes(["pg1", "pg2", "solo"]), off, now=0.0)
    )
    assert [(v.kind, v.priority, len(v.pods)) for v in ordered] == [
        (victims.PODGROUP, 50, 2),
        (victims.PODGROUP, 10, 2),
        (victims.PODGROUP, 10, 1),
        (victims.PODGROUP, 10, 1),
    ]


def _v(kind: str, priority: int = 10, size: int = 1, start: float = 0.0) -> victims.Victim:
    pods = tuple(_pod(f"p{i}", "n") for i in range(size))
    return victims.Victim(pods, priority, kind, start)


# upstream TestMoreImportantVictim, the CompositePodGroup cases: (name, vi1, vi2, want)
ORDER_CASES = [
    ("CPG vs Pod, same priority (CPG wins)", _v(victims.COMPOSITE), _v(victims.POD), True),
    ("Pod vs CPG, same priority (CPG wins)", _v(victims.POD), _v(victims.COMPOSITE), False),
    ("CPG vs PG, same priority (CPG wins)", _v(victims.COMPOSITE), _v(victims.PODGROUP), True),
    ("PG vs CPG, same priority (CPG wins)", _v(victims.PODGROUP), _v(victims.COMPOSITE), False),
    ("CPG vs PG, PG higher priority", _v(victims.COMPOSITE), _v(victims.PODGROUP, 20), False),
    ("PG vs CPG, PG higher priority", _v(victims.PODGROUP, 20), _v(victims.COMPOSITE), True),
    (
        "CPG smaller size (rank wins over size)",
        _v(victims.COMPOSITE),
        _v(victims.PODGROUP, size=2),
        True,
    ),
    (
        "CPG newer start (rank wins over start)",
        _v(victims.COMPOSITE, start=1000),
        _v(victims.PODGROUP, start=500),
        True,
    ),
    ("both CPGs, vi1 larger", _v(victims.COMPOSITE, size=2), _v(victims.COMPOSITE), True),
    ("both CPGs, vi2 larger", _v(victims.COMPOSITE), _v(victims.COMPOSITE, size=2), False),
    (
        "both CPGs, vi1 older",
        _v(victims.COMPOSITE, start=500),
        _v(victims.COMPOSITE, start=1000),
        True,
    ),
    (
        "both CPGs, vi2 older",
        _v(victims.COMPOSITE, start=1000),
        _v(victims.COMPOSITE, start=500),
        False,
    ),
]


@pytest.mark.parametrize(("name", "vi1", "vi2", "want"), ORDER_CASES, ids=lambda x: x)
def test_more_important_victim(
    name: str, vi1: victims.Victim, vi2: victims.Victim, want: bool
) -> None:
    """upstream TestMoreImportantVictim: `most_important_first` puts vi1 first exactly when
    MoreImportantVictim(vi1, vi2)."""
    assert (victims.most_important_first([vi2, vi1])[0] is vi1) == want, name
