"""What NodeResourceTopologyMatch tells `kubesched explain` (`explain_pod`): per node, the
NUMA zones, the policy and scope, and the zone(s) that would host the pod or why none can;
the verdicts agree with the plugin's own Filter."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.framework import CycleState
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.plugins.node_resource_topology import (
    NODE_RESOURCE_TOPOLOGIES,
    NodeResourceTopologyMatch,
)
from kubesched.plugins.node_resource_topology.explain import NodeNUMA, numa_lines
from kubesched.testing import FakeHandle, make_node
from tests.unit.plugins.node_resource_topology.nrt import node_for, nrt, pod, zone_named

GPU = "example.com/gpu"
POD_SCOPE = {"topologyManagerPolicy": "single-numa-node", "topologyManagerScope": "pod"}
CONTAINER_SCOPE = {"topologyManagerPolicy": "single-numa-node"}

NRTS = [
    nrt(
        "roomy",
        [
            zone_named(0, {"cpu": "2", "memory": "8Gi", GPU: "1"}),
            zone_named(1, {"cpu": "6", "memory": "8Gi", GPU: "1"}),
        ],
        attributes=POD_SCOPE,
    ),
    nrt(
        "split",
        [
            zone_named(0, {"cpu": "3", "memory": "8Gi", GPU: "1"}),
            zone_named(1, {"cpu": "3", "memory": "8Gi", GPU: "1"}),
        ],
        attributes=POD_SCOPE,
    ),
    nrt(
        "containers",
        [
            zone_named(0, {"cpu": "3", "memory": "8Gi"}),
            zone_named(1, {"cpu": "3", "memory": "8Gi"}),
        ],
        attributes=CONTAINER_SCOPE,
    ),
    nrt(
        "lenient",
        [
            zone_named(0, {"cpu": "2", "memory": "4Gi"}),
            zone_named(1, {"cpu": "4", "memory": "4Gi"}),
        ],
        attributes={"topologyManagerPolicy": "restricted"},
    ),
]


def _plugin(objects: Sequence[Mapping[str, Any]]) -> NodeResourceTopologyMatch:
    nodes = [node_for(obj).node for obj in objects]
    nodes.append(make_node().name("plain").capacity(cpu="8", memory="16Gi").model())
    handle = FakeHandle(listers=ClusterListers([NODE_RESOURCE_TOPOLOGIES]), nodes=nodes)
    for obj in objects:
        handle.listers.add(NODE_RESOURCE_TOPOLOGIES, ApiObject.from_json(obj))
    return NodeResourceTopologyMatch(args={}, handle=handle)


def _explain(plugin: NodeResourceTopologyMatch, p: Pod) -> tuple[list[str], dict[str, Any]]:
    found = plugin.explain_pod(p, ())
    assert found is not None
    return found


def _rows(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["node"]: row for row in data["nodes"]}


def test_pod_scope_names_the_zone_or_what_each_zone_lacks() -> None:
    plugin = _plugin(NRTS[:2])
    lines, data = _explain(plugin, pod({"cpu": "4", "memory": "4Gi", GPU: "1"}))
    rows = _rows(json.loads(json.dumps(data)))
    assert data["qosClass"] == "Guaranteed"
    assert data["request"] == {"cpu": "4", "memory": "4Gi", GPU: "1"}
    assert rows["roomy"]["hosts"] == ["node-1"]
    assert rows["roomy"]["verdict"] == "fits: node-1"
    assert rows["roomy"]["zones"][0] == {
        "name": "node-0",
        "available": {"cpu": "2", "memory": "8Gi", GPU: "1"},
    }
    assert rows["split"]["hosts"] == []
    assert rows["split"]["verdict"] == (
        "cannot align pod: node-0 lacks cpu (3 < 4); node-1 lacks cpu (3 < 4)"
    )
    assert rows["plain"] == {
        "node": "plain",
        "verdict": "without a NodeResourceTopology object, pass unchecked",
        "topology": None,
    }
    assert lines[0] == (
        "NUMA zones (NodeResourceTopologyMatch): a Guaranteed pod requesting cpu 4, "
        f"memory 4Gi, {GPU} 1"
    )
    assert "  node roomy: policy single-numa-node, scope pod" in lines
    assert f"    zone node-1: cpu 6, memory 8Gi, {GPU} 1" in lines
    assert lines[-1] == "  1 node(s), without a NodeResourceTopology object, pass unchecked: plain"


def test_the_verdicts_agree_with_the_filter() -> None:
    plugin = _plugin(NRTS)
    for requests in ({"cpu": "4", "memory": "4Gi"}, {"cpu": "2", "memory": "1Gi", GPU: "1"}):
        p = pod(requests)
        _, data = _explain(plugin, p)
        for name, row in _rows(data).items():
            if row.get("policy") != "single-numa-node":
                continue
            status = plugin.filter(CycleState(), p, node_for(_object(name)))
            assert (status is None) == bool(row["hosts"]), (name, requests, row)


def test_container_scope_places_each_container_in_turn() -> None:
    plugin = _plugin([NRTS[2]])
    fits = pod({"cpu": "2", "memory": "1Gi"}, {"cpu": "3", "memory": "1Gi"})
    _, data = _explain(plugin, fits)
    assert _rows(data)["containers"]["hosts"] == ["c0 on node-0", "c1 on node-1"]
    two = {"cpu": "2", "memory": "1Gi"}
    refused = pod(two, two, two)
    _, data = _explain(plugin, refused)
    row = _rows(data)["containers"]
    assert row["hosts"] == ["c0 on node-0", "c1 on node-1"]
    assert row["verdict"] == (
        "cannot align container c2: node-0 lacks cpu (1 < 2); node-1 lacks cpu (1 < 2)"
    )


def test_other_policies_pass_unchecked_and_say_which_zone_could_hold_it() -> None:
    _, data = _explain(_plugin([NRTS[3]]), pod({"cpu": "3", "memory": "1Gi"}))
    row = _rows(data)["lenient"]
    assert row["policy"] == "restricted"
    assert row["verdict"] == (
        "passes Filter unchecked (policy restricted); one zone alone could hold it: c0 on node-1"
    )


def test_best_effort_pods_without_devices_are_not_checked() -> None:
    _, data = _explain(_plugin(NRTS[:1]), pod({}, requests_only=True))
    assert _rows(data)["roomy"]["verdict"] == (
        "not checked: a BestEffort pod that requests no device"
    )


def test_a_resource_the_node_does_not_report_is_named() -> None:
    _, data = _explain(
        _plugin(NRTS[:1]), pod({"cpu": "1", "memory": "1Gi", "example.com/fpga": "1"})
    )
    assert _rows(data)["roomy"]["verdict"] == (
        "cannot align pod: example.com/fpga (the node reports none)"
    )


def _object(name: str) -> dict[str, Any]:
    return next(obj for obj in NRTS if obj["metadata"]["name"] == name)


def test_nodes_without_topology_data_share_one_line() -> None:
    verdict = "without a NodeResourceTopology object, pass unchecked"
    rows = [NodeNUMA(f"n{i}", verdict=verdict) for i in range(12)]
    requests = pod({"cpu": "1", "memory": "1Gi"}).container_resources
    assert requests is not None
    lines = numa_lines(requests, rows, plugin="P")
    names = ", ".join(f"n{i}" for i in range(10))
    assert lines[1:] == [f"  12 node(s), {verdict}: {names} and 2 more"]
