"""The placement algorithm (`TopologyAwareWorkloadScheduling`) over a real Framework and
cache: a gang that fits one rack only, one zone only, nowhere; scoring between feasible
racks; no node carrying the key; every trial undone."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code
from kubesched.framework.listers import ClusterListers
from kubesched.framework.placement_points import PodGroupInfo
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.queue import QueuedPodInfo
from kubesched.scheduler.placement_metrics import PlacementMetrics
from kubesched.scheduler.podgroup_algorithm import GroupResult, placement_infos
from kubesched.scheduler.podgroup_placement import (
    PlacementCycle,
    schedule_group_in_placements,
    scheduled_members,
)
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod

RACK = "topology.kubernetes.io/rack"
ZONE = "topology.kubernetes.io/zone"
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


def _member(i: int) -> Pod:
    pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg").req(cpu="1")
    return pod.model()


class _Cluster:
    """A cache of nodes `name -> (cpu, labels)` and a framework with the placement plugins."""

    def __init__(self, nodes: dict[str, tuple[str, dict[str, str]]]) -> None:
        self.handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
        self.fw = build_test_framework(handle=self.handle, enabled={"multiPoint": PLUGINS})
        self.cache, self.snapshot = SchedulerCache(), Snapshot()
        for name, (cpu, labels) in nodes.items():
            node = make_node().name(name).capacity(cpu=cpu, pods="10")
            for key, value in labels.items():
                node = node.label(key, value)
            self.cache.add_node(node.model())
            self.handle.add_node(node.model())
        self.cache.update_snapshot(self.snapshot)

    def place(
        self, group: SchedulingPodGroup, members: int, metrics: PlacementMetrics | None = None
    ) -> GroupResult:
        pods = [_member(i) for i in range(members)]
        for pod in pods:
            self.handle.listers.pods.on_add(pod)
        queued = [QueuedPodInfo(pod=pod, timestamp=float(i)) for i, pod in enumerate(pods)]
        info = PodGroupInfo(group, scheduled_members(self.fw, self.cache, group))
        run = PlacementCycle(self.cache, self.snapshot, metrics=metrics)
        return schedule_group_in_placements(self.fw, run, info, queued)


def _hosts(result: GroupResult) -> list[str]:
    return [member.host for member in result.members]


def test_a_gang_that_fits_one_rack_only_is_placed_there() -> None:
    cluster = _Cluster(
        {
            "a1": ("2", {RACK: "a"}),
            "b1": ("2", {RACK: "b"}),
            "b2": ("2", {RACK: "b"}),
            "c1": ("1", {RACK: "c"}),
        }
    )
    result = cluster.place(_group(4), 4)
    assert result.status.is_success()
    assert sorted(_hosts(result)) == ["b1", "b1", "b2", "b2"]
    assert cluster.cache.assumed_count() == 0  # every trial undone: the caller commits


def test_a_gang_that_fits_one_zone_only_is_placed_there() -> None:
    nodes = {
        f"{zone}{i}": ("1", {ZONE: zone, RACK: f"{zone}{i}"}) for zone in "xy" for i in range(3)
    }
    nodes["y2"] = ("0", {ZONE: "y", RACK: "y2"})
    result = _Cluster(nodes).place(_group(3, key=ZONE), 3)
    assert result.status.is_success()
    assert sorted(_hosts(result)) == ["x0", "x1", "x2"]


def test_the_placement_holding_more_members_wins() -> None:
    cluster = _Cluster({"a1": ("2", {RACK: "a"}), "b1": ("4", {RACK: "b"})})
    result = cluster.place(_group(2), 4)  # rack a holds 2 (minCount), rack b all 4
    assert result.status.is_success()
    assert _hosts(result) == ["b1"] * 4


def test_members_already_bound_keep_the_rest_in_their_rack() -> None:
    cluster = _Cluster({"a1": ("3", {RACK: "a"}), "b1": ("8", {RACK: "b"})})
    bound = make_pod().name("w9").namespace("ns").uid("w9").pod_group("pg").req(cpu="1")
    cluster.handle.listers.pods.on_add(bound.node("a1").model())
    cluster.cache.add_pod(bound.node("a1").model())
    cluster.cache.update_snapshot(cluster.snapshot)
    result = cluster.place(_group(3), 2)
    assert result.status.is_success()
    assert _hosts(result) == ["a1", "a1"]


def test_a_gang_that_fits_nowhere_reports_the_first_placement() -> None:
    cluster = _Cluster({"a1": ("3", {RACK: "a"}), "b1": ("3", {RACK: "b"})})
    result = cluster.place(_group(4), 4)
    assert result.status.code is Code.UNSCHEDULABLE
    assert result.status.message == (
        "pod group is unschedulable, 0/2 placements are available, first placement status: "
        "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"
    )
    assert _hosts(result) == ["a1", "a1", "a1", ""]  # rack a's results
    assert result.members[-1].status.message.startswith(
        "0/1 nodes are available: 1 Insufficient cpu."  # counted within the placement
    )
    assert cluster.cache.assumed_count() == 0


def test_too_few_members_read_as_the_group_error_of_the_first_placement() -> None:
    cluster = _Cluster({"a1": ("3", {RACK: "a"})})
    result = cluster.place(_group(4), 3)
    assert result.status.message == (
        "pod group is unschedulable, 0/1 placements are available, first placement status: "
        "pod group is unschedulable"
    )


def test_no_node_with_the_topology_key_leaves_no_placement() -> None:
    result = _Cluster({"a1": ("8", {})}).place(_group(2, key="example.com/block"), 2)
    assert result.status.code is Code.UNSCHEDULABLE
    assert result.status.message == "no feasible placements found"
    assert result.members == []


def test_without_a_constraint_all_nodes_are_one_placement() -> None:
    cluster = _Cluster({"a1": ("2", {RACK: "a"}), "n1": ("2", {})})
    result = cluster.place(_group(4, key=""), 4)
    assert result.status.is_success()
    assert sorted(_hosts(result)) == ["a1", "a1", "n1", "n1"]
    failed = _Cluster({"a1": ("1", {})}).place(_group(2, key=""), 2)
    assert failed.status.message.startswith(
        "pod group is unschedulable, 0/1 placements are available, first placement status: "
    )


def test_the_points_are_timed_and_the_placements_counted() -> None:
    cluster = _Cluster(
        {"a1": ("2", {RACK: "a"}), "b1": ("4", {RACK: "b"}), "c1": ("1", {RACK: "c"})}
    )
    observed: list[tuple[str, str]] = []
    cluster.fw.observe = lambda point, status, seconds: observed.append((point, status))
    registry = CollectorRegistry()
    assert cluster.place(_group(2), 4, PlacementMetrics(registry)).status.is_success()
    placement_points = [seen for seen in observed if seen[0].startswith("Placement")]
    assert placement_points == [("PlacementGenerate", "Success"), ("PlacementScore", "Success")]
    profile = {"profile": cluster.fw.profile_name}
    sample = registry.get_sample_value
    assert sample("scheduler_generated_placements_total", profile) == 3
    assert sample("scheduler_placement_evaluations_total", {"result": "feasible", **profile}) == 2
    assert sample("scheduler_placement_evaluations_total", {"result": "infeasible", **profile}) == 1


def test_no_placement_names_no_rejecting_plugin_so_the_members_back_off() -> None:
    result = _Cluster({"a1": ("8", {})}).place(_group(2, key="example.com/block"), 2)
    assert result.status.message == "no feasible placements found"
    assert result.status.plugin == ""


def test_scheduled_members_are_the_bound_and_the_assumed_with_their_nodes() -> None:
    cluster = _Cluster({"a1": ("4", {RACK: "a"}), "b1": ("4", {RACK: "b"})})
    pods = {name: make_pod().name(name).namespace("ns").uid(name) for name in ("x", "y", "z")}
    cluster.handle.listers.pods.on_add(pods["x"].pod_group("pg").node("a1").model())
    assumed = pods["y"].pod_group("pg").model()
    cluster.handle.listers.pods.on_add(assumed)
    cluster.cache.assume_pod(assumed, "b1")
    cluster.handle.listers.pods.on_add(pods["z"].pod_group("other").node("a1").model())
    members = scheduled_members(cluster.fw, cluster.cache, _group(2))
    assert sorted((m.pod.name, m.node_name) for m in members) == [("x", "a1"), ("y", "b1")]


def test_a_placements_nodes_are_found_by_position_in_node_order_after_an_assume() -> None:
    cluster = _Cluster({f"n{i}": ("2", {RACK: f"r{i % 3}"}) for i in range(9)})
    names = frozenset({"n7", "n1", "n4", "gone"})

    def scanned() -> list[str]:
        return [info.name for info in cluster.snapshot.node_infos if info.name in names]

    assert [info.name for info in placement_infos(cluster.snapshot, names)] == scanned()
    cluster.cache.assume_pod(_member(0), "n4")
    cluster.cache.update_snapshot(cluster.snapshot)
    found = placement_infos(cluster.snapshot, names)
    assert [info.name for info in found] == scanned()
    assert found[1] is cluster.snapshot.get("n4")
    assert found[1].requested.milli_cpu == 1000
