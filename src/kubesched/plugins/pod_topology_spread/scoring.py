"""PodTopologySpread's PreScore state, Score and NormalizeScore (the `ScheduleAnyway`
constraints), as upstream:

* PreScore: feasible nodes missing a topology key are ignored (score 0) when the pod has
  its own constraints or the defaults are a configured list (with the system defaults a
  node without a zone still gets hostname spreading). Each constraint's domains are those
  of the feasible nodes; their matching pods are counted over all nodes that pass the node
  inclusion policies. Hostname domains are counted per node in Score instead.
* Score: sum over the constraints whose key the node has of
  `count * log(domains + 2) + (maxSkew - 1)`, rounded half away from zero.
* NormalizeScore: `100 * (max + min - score) / max` (fewer matching pods, higher score);
  100 for every node when all raw scores are 0; ignored nodes get 0.
"""

from __future__ import annotations

import math
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass

from kubesched.framework import MAX_NODE_SCORE, NodeInfo
from kubesched.model import Pod
from kubesched.plugins.helper.node_counts import CountFn, NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.pod_topology_spread.args import HOSTNAME_KEY
from kubesched.plugins.pod_topology_spread.constraints import Constraint
from kubesched.plugins.pod_topology_spread.filtering import NodePolicies, has_all_keys, pod_counter
from kubesched.plugins.pod_topology_spread.indexed import (
    indexed_count_domains,
    indexed_host_counts,
)

_Part = tuple[str, dict[str, int] | None, bool, float, int, int, CountFn]
"""One constraint in Score: (topology key, its counts (None: count the node's pods), whether
they are by node name (a hostname key) rather than by domain, weight, maxSkew - 1, count
key id, counter)."""


@dataclass(frozen=True, slots=True)
class ScoreState:
    """Upstream `preScoreState`, plus the feasible node names (NormalizeScore's order)."""

    constraints: tuple[Constraint, ...]
    ignored: frozenset[str]
    counts: tuple[dict[str, int], ...]
    """Per constraint: topology value -> matching pods (empty for hostname constraints)."""
    weights: tuple[float, ...]
    node_names: tuple[str, ...]
    parts: tuple[_Part, ...]
    """What Score reads per constraint, gathered once in PreScore."""

    def score(self, node_info: NodeInfo, cache: NodeCountCache) -> int:
        node = node_info.node
        if node.name in self.ignored:
            return 0
        labels = node.labels
        total = 0.0
        for key, counts, by_name, weight, extra, key_id, counter in self.parts:
            value = labels.get(key)
            if value is None:
                continue
            if counts is None:
                count = cache.count(node_info, key_id, counter)
            else:
                count = counts.get(node.name if by_name else value, 0)
            total += count * weight + extra
        return _round_half_away(total)

    def normalize(self, scores: MutableSequence[int]) -> None:
        ignored = self.ignored
        kept = [s for s, name in zip(scores, self.node_names, strict=True) if name not in ignored]
        low, high = (min(kept), max(kept)) if kept else (0, 0)
        for i, name in enumerate(self.node_names):
            if name in ignored:
                scores[i] = 0
            elif high == 0:
                scores[i] = MAX_NODE_SCORE
            else:
                scores[i] = MAX_NODE_SCORE * (high + low - scores[i]) // high


def _round_half_away(value: float) -> int:
    """Go's math.Round for a non-negative value."""
    whole = math.floor(value)
    return whole + 1 if value - whole >= 0.5 else whole


def score_state(
    pod: Pod,
    constraints: tuple[Constraint, ...],
    *,
    feasible: Sequence[NodeInfo],
    all_nodes: Sequence[NodeInfo],
    require_all_keys: bool,
    cache: NodeCountCache,
    totals: PairTotals | None = None,
) -> ScoreState:
    ignored: set[str] = set()
    kept = feasible
    if require_all_keys:
        kept = [n for n in feasible if has_all_keys(n.node.labels, constraints)]
        if len(kept) < len(feasible):
            ignored = {n.node.name for n in feasible} - {n.node.name for n in kept}
    counts: list[dict[str, int]] = [
        {}
        if c.topology_key == HOSTNAME_KEY
        else dict.fromkeys([n.node.labels.get(c.topology_key, "") for n in kept], 0)
        for c in constraints
    ]
    scored = len(feasible) - len(ignored)
    weights = tuple(
        math.log((scored if c.topology_key == HOSTNAME_KEY else len(counts[i])) + 2)
        for i, c in enumerate(constraints)
    )
    key_ids = tuple(cache.key_id((c.selector, pod.namespace)) for c in constraints)
    counters = tuple(pod_counter(c.selector, pod.namespace) for c in constraints)
    indexed = [(i, c) for i, c in enumerate(constraints) if c.topology_key != HOSTNAME_KEY]
    if totals is None or not indexed_count_domains(
        pod,
        constraints,
        indexed,
        counts,
        all_nodes,
        require_all_keys=require_all_keys,
        totals=totals,
    ):
        _count_domains(
            constraints,
            counts,
            all_nodes,
            policies=NodePolicies(pod),
            require_all_keys=require_all_keys,
            cache=cache,
            key_ids=key_ids,
            counters=counters,
        )
    parts = tuple(
        (
            c.topology_key,
            _host_counts(pod, c, all_nodes, totals)
            if c.topology_key == HOSTNAME_KEY
            else counts[i],
            c.topology_key == HOSTNAME_KEY,
            weights[i],
            c.max_skew - 1,
            key_ids[i],
            counters[i],
        )
        for i, c in enumerate(constraints)
    )
    return ScoreState(
        constraints=constraints,
        ignored=frozenset(ignored),
        counts=tuple(counts),
        weights=weights,
        node_names=tuple(n.node.name for n in feasible),
        parts=parts,
    )


def _host_counts(
    pod: Pod, constraint: Constraint, all_nodes: Sequence[NodeInfo], totals: PairTotals | None
) -> dict[str, int] | None:
    """Node name -> matching pods for a hostname constraint, from an index; None (Score
    counts each node's pods) without one."""
    return None if totals is None else indexed_host_counts(pod, constraint, all_nodes, totals)


def _count_domains(
    constraints: tuple[Constraint, ...],
    counts: list[dict[str, int]],
    all_nodes: Sequence[NodeInfo],
    *,
    policies: NodePolicies,
    require_all_keys: bool,
    cache: NodeCountCache,
    key_ids: tuple[int, ...],
    counters: tuple[CountFn, ...],
) -> None:
    """Add each node's matching pods to its (feasible) domains, for all nodes."""
    indexed = [(i, c) for i, c in enumerate(constraints) if c.topology_key != HOSTNAME_KEY]
    if not indexed:
        return
    for node_info in all_nodes:
        node = node_info.node
        labels = node.labels
        if require_all_keys and not has_all_keys(labels, constraints):
            continue
        for i, constraint in indexed:
            domain = counts[i]
            value = labels.get(constraint.topology_key, "")
            if value not in domain or not policies.included(constraint, node):
                continue
            domain[value] += cache.count(node_info, key_ids[i], counters[i])
