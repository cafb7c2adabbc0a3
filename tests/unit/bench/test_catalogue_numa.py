"""The NUMA case (NodeResourceTopologyMatch) and its check: nodes with two-zone
NodeResourceTopology objects as the exporter writes them, Guaranteed pods of which the wide
ones fit every node's total but only one zone of a wide node; the check refuses a pod on a
node where no single zone holds its whole request."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.bench import BenchSettings, ClientLimits, run_bench
from kubesched.bench.catalogue import SIZES, catalogue_workload
from kubesched.bench.catalogue_numa import NAME, PLUGIN_CONFIG, PLUGINS
from kubesched.bench.numa_setup import (
    available_zones,
    nrt_object,
    pod_request,
    problems_of,
    topology_crd,
)
from kubesched.model import Node, Pod

LIMITS = ClientLimits(scheduler_name="bench", qps=100, burst=100)


def bound(pod: dict[str, Any], node: str) -> dict[str, Any]:
    """`pod` with `spec.nodeName` set."""
    return {**pod, "spec": {**pod["spec"], "nodeName": node}}


@pytest.mark.parametrize("size", SIZES)
def test_every_pod_is_guaranteed_and_the_wide_ones_fit_only_the_wide_nodes(size: str) -> None:
    workload = catalogue_workload(NAME, size)
    assert workload.topologies is not None
    nodes = [workload.node(i) for i in range(workload.nodes)]
    objects = [workload.topologies(i) for i in range(workload.nodes)]
    assert [o["metadata"]["name"] for o in objects] == [n["metadata"]["name"] for n in nodes]
    pods = [body for _path, body in workload.measured.pods("bench")]
    wide_nodes = {
        o["metadata"]["name"]
        for o in objects
        if max(zone["cpu"] for zone in available_zones(o)) >= 12_000
    }
    wide_pods = [p for p in pods if pod_request(p)["cpu"] == 12_000]
    assert len(wide_nodes) == workload.nodes // 10 + (workload.nodes % 10 > 0)
    assert len(wide_pods) == workload.pods // 20
    for pod in pods:
        container = pod["spec"]["containers"][0]["resources"]
        assert container["requests"] == container["limits"]
        assert Pod.from_json(pod).requests.milli_cpu % 1000 == 0
    for node, obj in zip(nodes, objects, strict=True):
        name = node["metadata"]["name"]
        allocatable = Node.from_json(node).allocatable
        assert allocatable.milli_cpu == sum(z["cpu"] for z in available_zones(obj))
        assert allocatable.milli_cpu >= 12_000
        placed = problems_of([obj], [bound(wide_pods[0], name), bound(pods[1], name)])
        assert (placed == []) == (name in wide_nodes)


def test_the_objects_are_written_as_the_exporter_writes_them() -> None:
    workload = catalogue_workload(NAME, "5")
    assert workload.topologies is not None
    even, odd = workload.topologies(0), workload.topologies(1)
    assert even["attributes"] == [
        {"name": "topologyManagerPolicy", "value": "single-numa-node"},
        {"name": "topologyManagerScope", "value": "container"},
    ]
    assert odd["attributes"][1] == {"name": "topologyManagerScope", "value": "pod"}
    zone = odd["zones"][1]
    assert zone["name"] == "node-1"
    assert zone["type"] == "Node"
    assert zone["costs"] == [{"name": "node-0", "value": 20}, {"name": "node-1", "value": 10}]
    assert zone["resources"][0] == {
        "name": "cpu",
        "capacity": "8",
        "allocatable": "8",
        "available": "8",
    }
    crd = topology_crd()
    assert crd["spec"]["group"] == "topology.node.k8s.io"
    assert crd["spec"]["scope"] == "Cluster"
    assert "api-approved.kubernetes.io" in crd["metadata"]["annotations"]


def test_the_case_runs_the_nrt_profile_and_not_on_kube_scheduler() -> None:
    workload = catalogue_workload(NAME, "5")
    assert workload.plugins == PLUGINS
    assert workload.plugin_config == PLUGIN_CONFIG
    assert PLUGIN_CONFIG[0]["args"] == {"scoringStrategy": {"type": "LeastAllocated"}}
    assert not workload.ceiling
    settings = BenchSettings(workload=workload, limits=LIMITS)
    results, _machine = run_bench(
        settings, contenders=["kube-scheduler", "null-binder"], progress=print
    )
    assert "no NodeResourceTopologyMatch" in results[0].skipped
    assert results[1].skipped


def pod(name: str, *containers: dict[str, str], **spec: Any) -> dict[str, Any]:
    """A pod of containers requesting the given amounts (limits equal)."""
    body: dict[str, Any] = {
        "containers": [
            {"name": f"c{i}", "resources": {"requests": r, "limits": r}}
            for i, r in enumerate(containers)
        ],
        **spec,
    }
    return {"metadata": {"name": name, "namespace": "ns"}, "spec": body}


SPLIT = nrt_object("split", [{"cpu": "4", "memory": "8Gi", "example.com/nic": "1"}] * 2)


def test_a_pod_that_fits_the_node_but_no_zone_is_a_problem() -> None:
    pods = [bound(pod("two-by-three", {"cpu": "3"}, {"cpu": "3"}), "split")]
    assert problems_of([SPLIT], pods) == [
        "pod ns/two-by-three is on node split, where no single NUMA zone holds it"
    ]
    fits = [bound(pod("four", {"cpu": "2"}, {"cpu": "2", "example.com/nic": "1"}), "split")]
    assert problems_of([SPLIT], fits) == []


def test_init_containers_and_overhead_count_and_unknown_devices_do_not_fit() -> None:
    init = pod(
        "init",
        {"cpu": "1"},
        initContainers=[{"name": "i", "resources": {"requests": {"cpu": "5"}}}],
    )
    overhead = pod("overhead", {"memory": "8Gi"}, overhead={"memory": "1Mi"})
    device = pod("gpu", {"cpu": "1", "example.com/gpu": "1"})
    assert pod_request(init) == {"cpu": 5000}
    pods = [bound(p, "split") for p in (init, overhead, device)]
    assert len(problems_of([SPLIT], pods)) == 3


def test_unbound_pods_are_skipped_and_a_node_without_an_object_is_a_problem() -> None:
    big = pod("big", {"cpu": "64"})
    assert problems_of([SPLIT], [big]) == []
    assert problems_of([SPLIT], [bound(pod("p", {"cpu": "1"}), "other")]) == [
        "pod ns/p is on node other, which has no NodeResourceTopology"
    ]
