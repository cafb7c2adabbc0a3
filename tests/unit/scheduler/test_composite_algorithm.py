"""A CompositePodGroup tree placed in one cycle (`CompositePodGroup` gate) over a real
Framework and cache, as upstream's `podGroupSchedulingRecursiveAlgorithm`,
`compositePodGroupSchedulingPlacementAlgorithm` / `...DefaultAlgorithm` and
`completeCompositePodGroupAlgorithmResultMap` do it: a composite whose groups fit, one
whose second group cannot (all or nothing), a basic composite, a composite topology
constraint, and every trial undone."""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject
from kubesched.plugins.helper.hierarchy import Hierarchy, composite_key, pod_group_key
from kubesched.queue import QueuedPodInfo
from kubesched.scheduler.composite_algorithm import Results, TreeRun, schedule_tree
from kubesched.scheduler.composite_tree import build_tree
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod

RACK = "topology.kubernetes.io/rack"
PLUGINS: list[str | tuple[str, int]] = [
    "GangScheduling",
    "TopologyPlacementGenerator",
    ("PodGroupPodsCount", 1),
]


def _obj(name: str, spec: Mapping[str, object], created: str) -> ApiObject:
    meta = {"namespace": "ns", "name": name, "uid": f"uid-{name}", "creationTimestamp": created}
    return ApiObject.from_json({"metadata": meta, "spec": spec})


class _Tree:
    """Nodes `name -> (cpu, rack)`, a composite `job` and its PodGroups."""

    def __init__(self, nodes: dict[str, tuple[str, str]]) -> None:
        specs = [SCHEDULING_PODGROUPS, SCHEDULING_COMPOSITEPODGROUPS]
        self.handle = FakeHandle(listers=ClusterListers(specs))
        self.fw = build_test_framework(handle=self.handle, enabled={"multiPoint": PLUGINS})
        self.cache, self.snapshot = SchedulerCache(), Snapshot()
        for name, (cpu, rack) in nodes.items():
            node = make_node().name(name).capacity(cpu=cpu, pods="10").label(RACK, rack)
            self.cache.add_node(node.model())
            self.handle.add_node(node.model())
        self.cache.update_snapshot(self.snapshot)
        self.queued: dict[tuple[str, str], list[QueuedPodInfo]] = {}

    def composite(self, min_group_count: int | None, key: str = "") -> None:
        policy = {"gang": {"minGroupCount": min_group_count}} if min_group_count else {"basic": {}}
        spec: dict[str, object] = {"schedulingPolicy": policy}
        if key:
            spec["schedulingConstraints"] = {"topology": [{"key": key}]}
        obj = _obj("job", spec, "2026-01-01T00:00:00Z")
        self.handle.listers.store(SCHEDULING_COMPOSITEPODGROUPS).on_add(obj)

    def group(self, name: str, min_count: int, members: int, created: str) -> None:
        spec = {
            "parentCompositePodGroupName": "job",
            "schedulingPolicy": {"gang": {"minCount": min_count}},
        }
        self.handle.listers.store(SCHEDULING_PODGROUPS).on_add(_obj(name, spec, created))
        pods = [
            make_pod().name(f"{name}-{i}").namespace("ns").uid(f"{name}-{i}").pod_group(name)
            for i in range(members)
        ]
        self.queued[("ns", name)] = [
            QueuedPodInfo(pod=p.req(cpu="1").model(), timestamp=float(i))
            for i, p in enumerate(pods)
        ]

    def place(self) -> Results:
        tree = Hierarchy(
            self.handle.lister(SCHEDULING_PODGROUPS),
            self.handle.lister(SCHEDULING_COMPOSITEPODGROUPS),
        )
        root = build_tree(tree, composite_key("ns", "job"), self.queued, lambda _g: ())
        assert root is not None
        return schedule_tree(TreeRun(self.fw, self.cache, self.snapshot), root)


def _message(results: Results, name: str) -> str:
    key = composite_key("ns", name) if name == "job" else pod_group_key("ns", name)
    return results[key].status.message


def _hosts(results: Results, name: str) -> list[str]:
    return [m.host for m in results[pod_group_key("ns", name)].members]


def test_a_composite_whose_groups_fit_is_placed_whole() -> None:
    tree = _Tree({"n1": ("2", "a"), "n2": ("2", "a")})
    tree.composite(2)
    tree.group("pg-a", 2, 2, "2026-01-01T00:00:01Z")
    tree.group("pg-b", 2, 2, "2026-01-01T00:00:02Z")
    results = tree.place()
    assert all(r.status.is_success() for r in results.values())
    assert sorted(_hosts(results, "pg-a") + _hosts(results, "pg-b")) == ["n1", "n1", "n2", "n2"]
    assert tree.cache.assumed_count() == 0  # every trial undone: the cycle commits


def test_a_composite_that_cannot_fit_fails_whole() -> None:
    """pg-a (created first) fits, pg-b cannot: minGroupCount 2 is out of reach, and pg-a,
    which succeeded on its own, takes the root's status."""
    tree = _Tree({"n1": ("3", "a")})
    tree.composite(2)
    tree.group("pg-b", 2, 2, "2026-01-01T00:00:02Z")
    tree.group("pg-a", 2, 2, "2026-01-01T00:00:01Z")
    results = tree.place()
    root = (
        "pod group is unschedulable, 0/1 placements are available, first placement status: "
        "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
    )
    assert _message(results, "job") == root
    assert _message(results, "pg-a") == root
    assert results[pod_group_key("ns", "pg-b")].status.code is Code.UNSCHEDULABLE
    assert _message(results, "pg-b") == (
        "pod group is unschedulable, 0/1 placements are available, first placement status: "
        "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
    )
    assert _hosts(results, "pg-b") == ["n1", ""]  # tried after pg-a's two were held
    assert tree.cache.assumed_count() == 0


def test_a_basic_composite_keeps_the_groups_that_fit() -> None:
    tree = _Tree({"n1": ("3", "a")})
    tree.composite(None)
    tree.group("pg-a", 2, 2, "2026-01-01T00:00:01Z")
    tree.group("pg-b", 2, 2, "2026-01-01T00:00:02Z")
    results = tree.place()
    assert results[composite_key("ns", "job")].status.is_success()
    assert results[pod_group_key("ns", "pg-a")].status.is_success()
    assert not results[pod_group_key("ns", "pg-b")].status.is_success()


def test_a_composite_topology_constraint_keeps_every_group_in_one_rack() -> None:
    """Rack a holds pg-a alone, rack b holds both groups: the composite goes to b."""
    tree = _Tree({"a1": ("3", "a"), "b1": ("2", "b"), "b2": ("2", "b")})
    tree.composite(2, key=RACK)
    tree.group("pg-a", 2, 2, "2026-01-01T00:00:01Z")
    tree.group("pg-b", 2, 2, "2026-01-01T00:00:02Z")
    results = tree.place()
    assert results[composite_key("ns", "job")].status.is_success()
    hosts = _hosts(results, "pg-a") + _hosts(results, "pg-b")
    assert sorted(hosts) == ["b1", "b1", "b2", "b2"]
