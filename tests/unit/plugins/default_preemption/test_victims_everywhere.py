"""`victims.Everywhere`: the index a preemption evaluation makes once of the snapshot's
nodes gives every candidate node the victims the plain walk over all pods gives, pod for
pod and in the same order (PodGroups and composites with `disruptionMode: all` or
`single`, members on several nodes, pods of no group), and the nodes by name."""

from __future__ import annotations

import random

import pytest

from kubesched.framework import NodeInfo
from kubesched.plugins.default_preemption import victims
from kubesched.testing import make_node
from tests.unit.plugins.default_preemption.test_victims_composite import (
    DOMAIN_CASES,
    Specs,
    _lookup,
    _nodes,
    _pod,
)

A, S = "all", "single"


def _shape(found: list[victims.Victim]) -> list[tuple[str, int, tuple[str, ...]]]:
    return [(v.kind, v.priority, tuple(pod.name for pod in v.pods)) for v in found]


def _same_on_every_node(nodes: list[NodeInfo], group_of: victims.GroupOf) -> None:
    indexed = victims.Everywhere(nodes)
    for node in nodes:
        plain = victims.collect([node], group_of, now=0.0, everywhere=nodes)
        fast = victims.collect([node], group_of, now=0.0, everywhere=indexed)
        assert _shape(fast) == _shape(plain), node.name


@pytest.mark.parametrize(
    ("name", "pgs", "cpgs"), [case[:3] for case in DOMAIN_CASES], ids=lambda x: x
)
def test_the_index_finds_what_the_walk_finds(name: str, pgs: Specs, cpgs: Specs) -> None:
    del name
    nodes = _nodes(sorted(pgs))
    for gate in (True, False):
        _same_on_every_node(nodes, _lookup(pgs, cpgs, gate=gate))


@pytest.mark.parametrize("seed", range(8))
def test_members_scattered_over_nodes_come_in_node_order(seed: int) -> None:
    rng = random.Random(seed)
    pgs: Specs = {
        "pg1": (A, "cpg1"),
        "pg2": (A, "cpg1"),
        "pg3": (S, "cpg1"),
        "pg4": (A, ""),
        "pg5": (S, ""),
    }
    cpgs: Specs = {"cpg1": (A, "")}
    nodes = []
    for n in range(5):
        info = NodeInfo(node=make_node().name(f"node{n}").capacity(cpu="64").model())
        for i in range(rng.randint(0, 6)):
            group = rng.choice([*pgs, ""])
            info.add_pod(_pod(f"p{n}-{i}-{group or 'none'}", f"node{n}", group))
        nodes.append(info)
    for gate in (True, False):
        _same_on_every_node(nodes, _lookup(pgs, cpgs, gate=gate))


def test_nodes_by_name_and_as_a_sequence() -> None:
    nodes = _nodes(["pg1"])
    indexed = victims.Everywhere(nodes)
    assert len(indexed) == 2
    assert list(indexed) == nodes
    assert indexed[1] is nodes[1]
    assert indexed.by_name["node1"] is nodes[0]
    assert [pod.name for _, pod in indexed.members("ns", "pg1")] == ["p1_pg1", "p2_pg1"]
    assert indexed.members("ns", "missing") == []
