"""PodTopologySpread's domain counts from the indexes kept across cycles equal the counts
of a walk of every node, cycle after cycle, while pods come and go and nodes are
relabelled, retainted and added (seeded random clusters; constraints honour or ignore the
pod's node affinity and the nodes' taints)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.model import Node, Pod
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.helper.spread import SpreadListers
from kubesched.plugins.pod_topology_spread.args import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    PodTopologySpreadArgs,
)
from kubesched.plugins.pod_topology_spread.constraints import pod_constraints
from kubesched.plugins.pod_topology_spread.filtering import filter_state
from kubesched.plugins.pod_topology_spread.indexed import indexed_filter_state
from kubesched.plugins.pod_topology_spread.scoring import score_state
from kubesched.testing import FakeHandle, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
RACK = "rack"
HOST = "kubernetes.io/hostname"
APPS = ("red", "blue")


POLICIES = ("Honor", "Ignore")
TAINTS = (
    {"key": "dedicated", "value": "db", "effect": "NoSchedule"},
    {"key": "dedicated", "value": "web", "effect": "NoExecute"},
    {"key": "soft", "effect": "PreferNoSchedule"},
)
TOLERATIONS = (
    {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"},
    {"key": "dedicated", "operator": "Exists"},
)


def _constraint(rng: random.Random, when: str) -> dict[str, Any]:
    return {
        "maxSkew": rng.randint(1, 3),
        "topologyKey": rng.choice((ZONE, RACK, HOST)),
        "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": {"app": rng.choice(APPS)}},
        "nodeAffinityPolicy": rng.choice(POLICIES),
        "nodeTaintsPolicy": rng.choice(POLICIES),
    }


def _pod(rng: random.Random, index: int) -> Pod:
    builder = make_pod().name(f"p{index}").uid(f"u{index}").namespace(rng.choice("ab"))
    builder.label("app", rng.choice(APPS))
    constraints = [_constraint(rng, when) for when in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)]
    pod = builder.obj()
    pod["spec"]["topologySpreadConstraints"] = constraints
    if rng.random() < 0.3:
        pod["spec"]["nodeSelector"] = {"disk": "ssd"}
    if rng.random() < 0.5:
        pod["spec"]["tolerations"] = [rng.choice(TOLERATIONS)]
    return Pod.from_json(pod)


def _node(rng: random.Random, name: str) -> Node:
    builder = make_node().name(name)
    if rng.random() < 0.9:
        builder.label(ZONE, rng.choice("xyz"))
    if rng.random() < 0.7:
        builder.label(RACK, rng.choice("12"))
    if rng.random() < 0.5:
        builder.label("disk", "ssd")
    node = builder.obj()
    roll = rng.random()
    if roll < 0.1:
        del node["metadata"]["labels"][HOST]
    elif roll < 0.25:  # another node's hostname: Score counts each node's own pods
        node["metadata"]["labels"][HOST] = "n0"
    if rng.random() < 0.4:
        node["spec"]["taints"] = [rng.choice(TAINTS)]
    return Node.from_json(node)


def _step(rng: random.Random, cache: SchedulerCache, nodes: list[str], placed: list[Pod]) -> None:
    roll = rng.random()
    if roll < 0.6 or not placed:
        placed.append(cache.assume_pod(_pod(rng, rng.randrange(10**6)), rng.choice(nodes)))
    elif roll < 0.85:
        cache.forget_pod(placed.pop(rng.randrange(len(placed))))
    elif roll < 0.95:
        cache.update_node(_node(rng, rng.choice(nodes)))
    else:
        nodes.append(f"n{len(nodes)}-{rng.randrange(10**6)}")
        cache.add_node(_node(rng, nodes[-1]))


@pytest.mark.parametrize("seed", range(10))
def test_indexed_counts_equal_a_walk_of_every_node(seed: int) -> None:
    rng = random.Random(seed)
    cache = SchedulerCache()
    nodes = [f"n{i}" for i in range(8)]
    for name in nodes:
        cache.add_node(_node(rng, name))
    snapshot = Snapshot()
    totals = PairTotals()
    placed: list[Pod] = []
    incoming = [_pod(rng, 10**7 + i) for i in range(3)]
    used = 0
    for _cycle in range(60):
        _step(rng, cache, nodes, placed)
        cache.update_snapshot(snapshot)
        indexed_nodes, walked = snapshot.node_infos, list(snapshot.node_infos)
        for pod in incoming:
            hard = pod_constraints(
                pod, DO_NOT_SCHEDULE, _ARGS, workloads=SpreadListers.of(FakeHandle())
            )
            indexed = indexed_filter_state(pod, hard, indexed_nodes, totals)
            assert indexed is not None
            used += 1
            expected = filter_state(pod, hard, walked, NodeCountCache())
            assert (indexed.counts, indexed.minimums) == (expected.counts, expected.minimums)
            soft = pod_constraints(
                pod, SCHEDULE_ANYWAY, _ARGS, workloads=SpreadListers.of(FakeHandle())
            )
            feasible = walked[: len(walked) // 2 + 1]
            for require_all_keys in (True, False):
                with_index = score_state(
                    pod,
                    soft,
                    feasible=feasible,
                    require_all_keys=require_all_keys,
                    all_nodes=indexed_nodes,
                    cache=NodeCountCache(),
                    totals=totals,
                )
                walk = score_state(
                    pod,
                    soft,
                    feasible=feasible,
                    require_all_keys=require_all_keys,
                    all_nodes=walked,
                    cache=NodeCountCache(),
                )
                assert with_index.counts == walk.counts
                assert with_index.ignored == walk.ignored
                counted = NodeCountCache()
                assert [with_index.score(n, counted) for n in feasible] == [
                    walk.score(n, counted) for n in feasible
                ]
    assert used


_ARGS = PodTopologySpreadArgs.from_v1({})
