"""InterPodAffinity's PreScore state, Score and NormalizeScore (preferred terms), as upstream.

PreScore sums weights per topology pair (label key, value of the existing pod's node):

* +weight for each existing pod matching a preferred affinity term of the incoming pod,
  -weight for each one matching a preferred anti-affinity term (only when the incoming pod
  has preferred terms; then every node's pods are looked at);
* +`hardPodAffinityWeight` for each required affinity term of an existing pod that selects
  the incoming pod (symmetry), +/-weight for its preferred affinity/anti-affinity terms
  that do (skipped with `ignorePreferredTermsOfExistingPods` when the incoming pod has no
  preferred terms: then PreScore skips).

Score: the sum of the pair totals of the node's labels. NormalizeScore: linear to 0..100
between the lowest and the highest score (truncated; all 0 when they are equal).
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass

from kubesched.framework import MAX_NODE_SCORE, NodeInfo
from kubesched.framework.nodeinfo import with_pods_with_affinity
from kubesched.model import Node, Pod
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import Contribution, PairTotals
from kubesched.plugins.inter_pod_affinity.counting import term_counter
from kubesched.plugins.inter_pod_affinity.indexed_score import (
    IndexedScore,
    existing_contribution,
    incoming_contribution,
)
from kubesched.plugins.inter_pod_affinity.terms import AffinityTerm, PodTerms, TermCache


@dataclass(frozen=True, slots=True)
class ScoreState:
    topology_score: dict[str, dict[str, int]]
    """Label key -> label value -> summed weight."""

    def score(self, node: Node) -> int:
        labels = node.labels
        total = 0
        for key, values in self.topology_score.items():
            value = labels.get(key)
            if value is not None:
                total += values.get(value, 0)
        return total

    def normalize(self, scores: MutableSequence[int]) -> None:
        if not self.topology_score or not scores:
            return
        low, high = min(scores), max(scores)
        spread = high - low
        for i, score in enumerate(scores):
            scores[i] = int(MAX_NODE_SCORE * ((score - low) / spread)) if spread > 0 else 0


class _Totals:
    """The pair totals being summed, and whether any term matched at all."""

    __slots__ = ("matched", "scores")

    def __init__(self) -> None:
        self.scores: dict[str, dict[str, int]] = {}
        self.matched = False

    def add_pairs(self, pairs: Contribution) -> None:
        """Add ((label key, value), weight) pairs (`indexed_score`'s contributions)."""
        for (key, value), weight in pairs:
            values = self.scores.setdefault(key, {})
            values[value] = values.get(value, 0) + weight
            self.matched = True


def score_state(
    pod: Pod,
    terms: PodTerms,
    all_nodes: Sequence[NodeInfo],
    *,
    hard_weight: int,
    namespaces: NamespaceLabels,
    term_cache: TermCache,
    counts: NodeCountCache,
    pair_totals: PairTotals | None = None,
) -> ScoreState | None:
    """The pair totals for `pod`; None when no term matched anything (Score skips). With
    the snapshot's node list and `pair_totals`, the sums come from indexes kept across
    cycles (see `indexed_score`), else from a walk of the nodes."""
    totals = _Totals()
    preferred = [(t, 1) for t in terms.preferred_affinity]
    preferred += [(t, -1) for t in terms.preferred_anti_affinity]
    indexed = IndexedScore(all_nodes, pair_totals) if pair_totals is not None else None
    if indexed is None or not indexed.existing_pods_terms(
        pod,
        totals,
        hard_weight=hard_weight,
        namespaces=namespaces,
        term_cache=term_cache,
        shared=not preferred,
    ):
        _existing_pods_terms(
            pod,
            all_nodes,
            totals,
            hard_weight=hard_weight,
            namespaces=namespaces,
            term_cache=term_cache,
        )
    if preferred and (
        indexed is None or not indexed.incoming_terms(preferred, namespaces, counts, totals)
    ):
        _incoming_terms(preferred, all_nodes, namespaces, counts, totals)
    return ScoreState(totals.scores) if totals.matched else None


def _existing_pods_terms(
    pod: Pod,
    all_nodes: Sequence[NodeInfo],
    totals: _Totals,
    *,
    hard_weight: int,
    namespaces: NamespaceLabels,
    term_cache: TermCache,
) -> None:
    """Weights of the terms of existing pods (with pod affinity) that select `pod`."""
    contribution = existing_contribution(pod, hard_weight, namespaces, term_cache)
    for node_info in with_pods_with_affinity(all_nodes):
        totals.add_pairs(contribution(node_info))


def _incoming_terms(
    preferred: list[tuple[AffinityTerm, int]],
    all_nodes: Sequence[NodeInfo],
    namespaces: NamespaceLabels,
    cache: NodeCountCache,
    totals: _Totals,
) -> None:
    """Weights of the incoming pod's preferred terms, per matching existing pod."""
    contributions = [
        incoming_contribution(term, sign, _counter(term, namespaces, cache))
        for term, sign in preferred
    ]
    for node_info in all_nodes:
        if node_info.pods:
            for contribution in contributions:
                totals.add_pairs(contribution(node_info))


def _counter(
    term: AffinityTerm, namespaces: NamespaceLabels, cache: NodeCountCache
) -> Callable[[NodeInfo], int]:
    """The count of the pods on a node that `term` matches (cached per node when it can)."""
    key_id, count = term_counter((term,), namespaces, cache)
    if key_id is None:
        return count

    def cached(node_info: NodeInfo) -> int:
        return cache.count(node_info, key_id, count)

    return cached
