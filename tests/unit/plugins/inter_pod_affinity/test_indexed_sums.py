"""InterPodAffinity's sums from the indexes kept across cycles equal the sums of a walk of
every node, cycle after cycle, while pods come and go, nodes are relabelled, added and
deleted and namespaces relabelled (seeded random clusters). The indexed side reads the
incoming pod's terms with their `namespaceSelector` turned into namespace names (as the
plugin does); the walk matches the selectors against namespace labels pod by pod."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework.listers import IndexedStore
from kubesched.model import ApiObject, Node, Pod, namespace_object
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.inter_pod_affinity.filtering import filter_state
from kubesched.plugins.inter_pod_affinity.scoring import score_state
from kubesched.plugins.inter_pod_affinity.terms import (
    PodTerms,
    TermCache,
    pod_terms,
    with_selected_namespaces,
)
from kubesched.testing import make_node, make_pod

ZONE = "zone"
HOST = "kubernetes.io/hostname"
APPS = ("red", "blue", "green")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


NAMESPACES = ("ns-a", "ns-b", "ns-c")
SCOPES: tuple[dict[str, Any], ...] = (
    {"matchLabels": {"team": "x"}},
    {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["y"]}]},
    {},
)


def _term(rng: random.Random) -> dict[str, Any]:
    term: dict[str, Any] = {
        "labelSelector": {"matchLabels": {"app": rng.choice(APPS)}},
        "topologyKey": rng.choice((ZONE, HOST)),
        "namespaces": ["ns-a", "ns-b"] if rng.random() < 0.5 else [],
    }
    if rng.random() < 0.4:
        term["namespaceSelector"] = rng.choice(SCOPES)
    return term


def _relabel_namespace(rng: random.Random, store: IndexedStore[ApiObject]) -> None:
    name = rng.choice(NAMESPACES)
    labels = {"team": rng.choice("xyz")} if rng.random() < 0.8 else {}
    old = store.get(name)
    assert old is not None
    store.on_update(old, namespace_object(name, labels))


def _affinity(rng: random.Random) -> dict[str, Any]:
    affinity: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        spec: dict[str, Any] = {}
        if rng.random() < 0.4:
            spec[REQUIRED] = [_term(rng) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.4:
            spec[PREFERRED] = [{"weight": rng.randint(1, 50), "podAffinityTerm": _term(rng)}]
        if spec:
            affinity[kind] = spec
    return affinity


def _pod(rng: random.Random, index: int) -> Pod:
    builder = make_pod().name(f"p{index}").namespace(rng.choice(NAMESPACES))
    builder.label("app", rng.choice(APPS)).uid(f"uid-{index}")
    affinity = _affinity(rng)
    if affinity:
        builder.affinity(affinity)
    return builder.model()


def _node(rng: random.Random, index: int) -> Node:
    return make_node().name(f"n{index}").label(ZONE, rng.choice("abc")).model()


def _step(
    rng: random.Random, cache: SchedulerCache, nodes: dict[str, Node], placed: list[Pod]
) -> None:
    roll = rng.random()
    if roll < 0.55 or not placed:
        pod = _pod(rng, rng.randrange(10**6))
        placed.append(cache.assume_pod(pod, rng.choice(sorted(nodes))))
    elif roll < 0.8:
        victim = placed.pop(rng.randrange(len(placed)))
        cache.forget_pod(victim)
    elif roll < 0.9:
        name = rng.choice(sorted(nodes))
        relabelled = make_node().name(name).label(ZONE, rng.choice("abcd")).model()
        cache.update_node(relabelled)
        nodes[name] = relabelled
    else:
        node = _node(rng, len(nodes) + rng.randrange(10**6))
        cache.add_node(node)
        nodes[node.name] = node


Kept = tuple[PairTotals, NodeCountCache]
"""The indexes kept across cycles (None: walk every node with fresh counts)."""


def _filter_sums(
    pod: Pod, terms: PodTerms, nodes: Any, namespaces: NamespaceLabels, kept: Kept | None
) -> Any:
    totals, counts = kept or (None, NodeCountCache())
    computed = filter_state(
        pod,
        terms,
        nodes,
        namespaces=namespaces,
        term_cache=TermCache(),
        counts=counts,
        totals=totals or PairTotals(),
    )
    if computed is None:
        return None
    return computed.affinity_counts, computed.anti_affinity_counts, computed.existing_counts


def _score_sums(
    pod: Pod, terms: PodTerms, nodes: Any, namespaces: NamespaceLabels, kept: Kept | None
) -> Any:
    totals, counts = kept or (None, NodeCountCache())
    computed = score_state(
        pod,
        terms,
        nodes,
        hard_weight=1,
        namespaces=namespaces,
        term_cache=TermCache(),
        counts=counts,
        pair_totals=totals,
    )
    return None if computed is None else computed.topology_score


@pytest.mark.parametrize("seed", range(6))
def test_indexed_sums_equal_a_walk_of_every_node(seed: int) -> None:
    rng = random.Random(seed)
    cache = SchedulerCache()
    nodes = {node.name: node for node in (_node(rng, i) for i in range(8))}
    for node in nodes.values():
        cache.add_node(node)
    snapshot = Snapshot()
    store = IndexedStore[ApiObject]()
    for name in NAMESPACES:
        store.on_add(namespace_object(name, {"team": rng.choice("xy")}))
    kept = (PairTotals(), NodeCountCache())
    placed: list[Pod] = []
    incoming = [_pod(rng, 10**7 + i) for i in range(4)]
    for _cycle in range(60):
        _step(rng, cache, nodes, placed)
        if rng.random() < 0.2:
            _relabel_namespace(rng, store)
        cache.update_snapshot(snapshot)
        indexed_nodes = snapshot.node_infos
        walked_nodes = list(indexed_nodes)
        kept[1].prune(indexed_nodes)
        for pod in incoming:
            plain = pod_terms(pod)
            selected = with_selected_namespaces(plain, store.list)
            for sums in (_filter_sums, _score_sums):
                fast = sums(pod, selected, indexed_nodes, NamespaceLabels(store), kept)
                walked = sums(pod, plain, walked_nodes, NamespaceLabels(store), None)
                assert fast == walked
