"""What NodeResourceTopologyMatch reads of an NRT object (zones, the topology manager's
policy, scope and maxNUMANodes), its args and their errors, the discard-reserved mode, the
events it registers, and the QoS class it restricts exclusive resources to."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, Code, CycleState, EventResource, Status
from kubesched.model import Pod
from kubesched.model.pod_containers import compute_qos_class
from kubesched.plugins.helper.args import ArgsError
from kubesched.plugins.node_resource_topology.args import NodeResourceTopologyMatchArgs
from kubesched.plugins.node_resource_topology.topology import (
    ParsedTopologies,
    TopologyManager,
    numa_nodes,
    topology_manager,
)
from kubesched.testing import make_pod
from tests.unit.plugins.node_resource_topology.nrt import node_for, nrt, plugin_over, pod, zone


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, TopologyManager("none", "container", 8)),
        (
            {"topologyPolicies": ["SingleNUMANodePodLevel"]},
            TopologyManager("single-numa-node", "pod", 8),
        ),
        (
            {"topologyPolicies": ["RestrictedContainerLevel", "x"]},
            TopologyManager("restricted", "container", 8),
        ),
        ({"topologyPolicies": ["BestEffortPodLevel"]}, TopologyManager("best-effort", "pod", 8)),
        ({"topologyPolicies": ["Restricted"]}, TopologyManager("none", "container", 8)),
        (
            {
                "topologyPolicies": ["SingleNUMANodePodLevel"],
                "attributes": [
                    {"name": "topologyManagerPolicy", "value": "restricted"},
                    {"name": "topologyManagerScope", "value": "bogus"},
                    {"name": "topologyManagerMaxNUMANodes", "value": "4"},
                ],
            },
            TopologyManager("restricted", "pod", 4),
        ),
        (
            {"attributes": [{"name": "topologyManagerMaxNUMANodes", "value": "1"}]},
            TopologyManager(),
        ),
        (
            {"attributes": [{"name": "topologyManagerMaxNUMANodes", "value": "5000"}]},
            TopologyManager(max_numa_nodes=1024),
        ),
    ],
)
def test_topology_manager(body: dict[str, Any], expected: TopologyManager) -> None:
    assert topology_manager(body) == expected


def test_numa_zones_only() -> None:
    body = {
        "zones": [
            {"name": "socket-0", "type": "Socket"},
            zone(1, {0: 20, 1: 10, 7: 5}, cpu="4", memory="1Gi"),
            {"name": "node-x", "type": "Node"},
            {"name": "node-64", "type": "Node"},
        ]
    }

    (only,) = numa_nodes(body)

    assert (only.numa_id, only.resources, only.costs) == (
        1,
        {"cpu": 4000, "memory": 1024**3 * 1000},
        {0: 20, 1: 10, 7: 5},
    )


def test_args_defaults_and_round_trip() -> None:
    args = NodeResourceTopologyMatchArgs.from_v1({})

    assert (args.scoring_strategy, args.resources) == (
        "LeastAllocated",
        (("cpu", 1), ("memory", 1)),
    )
    assert args.to_v1() == {
        "scoringStrategy": {
            "type": "LeastAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        }
    }
    again = {"scoringStrategy": {"type": "LeastNUMANodes"}, "discardReservedNodes": True}
    assert NodeResourceTopologyMatchArgs.from_v1(again).to_v1()["discardReservedNodes"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"scoringStrategy": {"type": "Bogus"}},
            (
                'NodeResourceTopologyMatchArgs.scoringStrategy.type: Invalid value: "Bogus": '
                "invalid ScoringStrategyType"
            ),
        ),
        (
            {"scoringStrategy": {}},
            (
                'NodeResourceTopologyMatchArgs.scoringStrategy.type: Invalid value: "": '
                "invalid ScoringStrategyType"
            ),
        ),
        (
            {"cache": {"resyncMethod": "Sometimes"}},
            (
                'NodeResourceTopologyMatchArgs.cache.resyncMethod: Unsupported value: "Sometimes": '
                'supported values: "Autodetect", "All", "OnlyExclusiveResources"'
            ),
        ),
        ({"discardReservedNodes": "yes"}, "discardReservedNodes: expected true or false"),
        ({"scoringStrategyy": {}}, "scoringStrategyy"),
    ],
)
def test_args_errors_are_one_line(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ArgsError) as caught:
        NodeResourceTopologyMatchArgs.from_v1(args)

    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_discard_reserved_nodes_leaves_a_node_out_until_bound() -> None:
    obj = nrt("n1", [zone(0, cpu="4", memory="4Gi")], policy="SingleNUMANodePodLevel")
    plugin = plugin_over([obj], {"discardReservedNodes": True})
    node, first = node_for(obj), pod({"cpu": "1", "memory": "1Gi"})
    state = CycleState()

    assert plugin.filter(state, first, node) is None
    plugin.reserve(state, first, "n1")
    assert plugin.filter(state, first, node) == Status(
        Code.UNSCHEDULABLE, "invalid node topology data"
    )
    assert plugin.score(state, first, node) == 0
    plugin.post_bind(state, first, "n1")
    assert plugin.filter(state, first, node) is None
    plugin.reserve(state, first, "n1")
    plugin.unreserve(state, first, "n1")
    assert plugin.filter(state, first, node) is None


def test_without_discard_reserved_nodes_a_reserve_changes_nothing() -> None:
    obj = nrt("n1", [zone(0, cpu="4", memory="4Gi")], policy="SingleNUMANodePodLevel")
    plugin = plugin_over([obj])
    node, first = node_for(obj), pod({"cpu": "1", "memory": "1Gi"})

    plugin.reserve(CycleState(), first, "n1")

    assert plugin.filter(CycleState(), first, node) is None


def test_events_to_register() -> None:
    events = [e.event for e in plugin_over([]).events_to_register()]

    assert [(str(e.resource), e.action) for e in events] == [
        (EventResource.POD.value, ActionType.DELETE),
        (EventResource.NODE.value, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
        (
            "noderesourcetopologies.v1alpha2.topology.node.k8s.io",
            ActionType.ADD | ActionType.UPDATE,
        ),
    ]


_CPU_MEMORY = {"cpu": "1", "memory": "1Gi"}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"containers": [{}]}, "BestEffort"),
        (
            {"containers": [{"resources": {"requests": _CPU_MEMORY, "limits": _CPU_MEMORY}}]},
            "Guaranteed",
        ),
        ({"containers": [{"resources": {"limits": _CPU_MEMORY}}]}, "Burstable"),
        (
            {
                "containers": [
                    {
                        "resources": {
                            "requests": {"cpu": "1"},
                            "limits": {"cpu": "1", "memory": "1Gi"},
                        }
                    }
                ]
            },
            "Burstable",
        ),
        (
            {"containers": [{"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}]},
            "Burstable",
        ),
        (
            {
                "containers": [{"resources": {"requests": _CPU_MEMORY, "limits": _CPU_MEMORY}}],
                "initContainers": [{"resources": {"requests": {"cpu": "1"}}}],
            },
            "Burstable",
        ),
        ({"containers": [{"resources": {"requests": {"vendor/nic": "1"}}}]}, "BestEffort"),
        (
            {"resources": {"limits": {"cpu": "2", "memory": "2Gi"}}, "containers": [{}]},
            "Burstable",
        ),
        ({"resources": {"requests": {"cpu": "2"}}, "containers": [{}]}, "Burstable"),
    ],
)
def test_qos_class(spec: dict[str, Any], expected: str) -> None:
    """Kubernetes' ComputePodQOS on the spec as stored (the API server defaults requests
    to limits first; `status.qosClass`, when set, is taken as it is)."""
    assert compute_qos_class(spec) == expected


def test_parsed_topologies_are_kept_per_body_and_handed_out_as_copies() -> None:
    parsed = ParsedTopologies()
    body = nrt("n1", [zone(0, cpu="4", memory="4Gi")], policy="SingleNUMANodePodLevel")

    manager, zones = parsed.get("n1", body)
    zones[0].resources["cpu"] = 0
    again, fresh = parsed.get("n1", body)
    updated = {**body, "topologyPolicies": ["BestEffortPodLevel"]}

    assert again == manager == TopologyManager("single-numa-node", "pod", 8)
    assert fresh[0].resources["cpu"] == 4000
    assert parsed.get("n1", updated)[0] == TopologyManager("best-effort", "pod", 8)


def test_alike_pending_pods_share_their_container_resources() -> None:
    def pending(name: str, cpu: str) -> Pod:
        raw = make_pod().name(name).req(cpu=cpu, memory="1Gi").obj()
        raw["status"] = {"qosClass": "Burstable"}
        return Pod.from_json(raw)

    first, second, other = pending("a", "1"), pending("b", "1"), pending("c", "2")

    assert first.container_resources is second.container_resources
    assert other.container_resources is not None
    assert other.container_resources.containers[0].requests == {
        "cpu": 2000,
        "memory": 1024**3 * 1000,
    }
    assert pending("d", "1").on_node("n1").container_resources is first.container_resources
    raw = make_pod().name("bound").node("n1").obj()
    assert Pod.from_json(raw).container_resources is None
