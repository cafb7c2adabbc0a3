"""TopologyPlacementGenerator, the facts of upstream's topology_placement_test.go
(TestGeneratePlacements, the PodGroup cases): one placement per value of the topology key
among the parent placement's nodes, the parent unchanged without a constraint, only the
domain of already scheduled members, and errors when those disagree or cannot be placed."""

from __future__ import annotations

import pytest

from kubesched.framework import NodeInfo
from kubesched.framework.placement_points import Placement, PodGroupInfo, ScheduledMember
from kubesched.model import ApiObject, SchedulingPodGroup
from kubesched.plugins.topology_aware import TopologyPlacementGenerator
from kubesched.plugins.topology_aware.plugin import ScheduledDomainError
from kubesched.testing import FakeHandle, make_node, make_pod


def _group(key: str = "") -> SchedulingPodGroup:
    spec: dict[str, object] = {"schedulingPolicy": {"gang": {"minCount": 1}}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    body = {"metadata": {"namespace": "ns", "name": "pg"}, "spec": spec}
    return SchedulingPodGroup.of(ApiObject.from_json(body))


def _node(name: str, **labels: str) -> NodeInfo:
    node = make_node().name(name)
    for key, value in labels.items():
        node = node.label(key, value)
    return NodeInfo(node.model())


def _generate(
    key: str,
    placement: list[NodeInfo],
    *,
    other: tuple[NodeInfo, ...] = (),
    scheduled_on: tuple[str, ...] = (),
) -> list[Placement]:
    handle = FakeHandle(nodes=[*placement, *other])
    members = tuple(
        ScheduledMember(make_pod().name(f"m{i}").namespace("ns").model(), node)
        for i, node in enumerate(scheduled_on)
    )
    plugin = TopologyPlacementGenerator(args={}, handle=handle)
    info = PodGroupInfo(_group(key), members)
    result = plugin.generate_placements(info, Placement("p", placement))
    assert isinstance(result, list)
    return result


def _names(placements: list[Placement]) -> dict[str, list[str]]:
    return {p.name: [info.name for info in p.nodes] for p in placements}


SIX = [
    _node("node0", topology2="d1"),
    _node("node1", topology2="d4"),
    _node("node2", topology1="d1"),
    _node("node3", topology1="d2"),
    _node("node4", topology1="d1"),
    _node("node5", topology1="d3"),
]


def test_without_a_constraint_the_parent_placement_is_returned() -> None:
    nodes = [_node("node1"), _node("node2", foo="bar")]
    assert _names(_generate("", nodes, other=(_node("node3"),))) == {"p": ["node1", "node2"]}


def test_one_placement_per_topology_domain() -> None:
    placements = _generate("topology1", SIX)
    assert _names(placements) == {"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]}


def test_no_node_with_the_key_gives_no_placement() -> None:
    assert _generate("topology3", SIX) == []


def test_scheduled_members_keep_the_group_in_their_domain() -> None:
    other = (_node("node2", topology="d1"), _node("node3", topology="d1"))
    nodes = [_node("node0", topology="d2"), _node("node1", topology="d1")]
    placements = _generate("topology", nodes, other=other, scheduled_on=("node2", "node3"))
    assert _names(placements) == {"d1": ["node1"]}


def test_scheduled_domain_outside_the_parent_gives_no_placement() -> None:
    other = (_node("node2", topology="d1"), _node("node3", topology="d1"))
    nodes = [_node("node0", topology="d2")]
    assert _generate("topology", nodes, other=other, scheduled_on=("node2", "node3")) == []


@pytest.mark.parametrize(
    ("other", "scheduled_on", "error"),
    [
        (
            (_node("node2", topology="d0"), _node("node3", topology="d1")),
            ("node2", "node3"),
            "more than 1 domain found for pod group: d0, d1",
        ),
        (
            (_node("node2", topology="d1"), _node("node3", topology="d1")),
            ("node2", "node4"),
            'getting node for pod ns/m1: nodeinfo not found for node name "node4"',
        ),
        ((_node("node2", foo="bar"),), ("node2",), "no topology domain found for pod ns/m0"),
    ],
    ids=["conflicting domains", "node outside the snapshot", "node without the label"],
)
def test_scheduled_members_that_name_no_single_domain_are_an_error(
    other: tuple[NodeInfo, ...], scheduled_on: tuple[str, ...], error: str
) -> None:
    nodes = [_node("node0", topology="d2"), _node("node1", topology="d1")]
    with pytest.raises(ScheduledDomainError) as raised:
        _generate("topology", nodes, other=other, scheduled_on=scheduled_on)
    assert str(raised.value) == f"cannot determine domain for already scheduled pods: {error}"
