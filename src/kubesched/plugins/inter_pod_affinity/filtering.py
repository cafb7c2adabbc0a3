"""InterPodAffinity's PreFilter state and Filter check (required terms), as upstream.

PreFilter counts, per topology pair (label key, value):

* existing: pods on nodes whose required anti-affinity terms select the incoming pod (only
  nodes holding pods with required anti-affinity are visited);
* affinity: existing pods matching ALL of the incoming pod's required affinity terms;
* anti-affinity: existing pods matching each required anti-affinity term.

Filter, per node, in O(terms):

1. every affinity term's key must be on the node and its pair have a matching pod; or, if no
   pod anywhere matches (the first pod of a group), the pod must match its own terms:
   else `node(s) didn't match pod affinity rules` (UnschedulableAndUnresolvable);
2. no anti-affinity term's pair may hold a matching pod: `node(s) didn't match pod
   anti-affinity rules`;
3. no pair of the node may be forbidden by an existing pod's anti-affinity: `node(s) didn't
   satisfy existing pods anti-affinity rules` (both Unschedulable).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from kubesched.framework import Code, NodeInfo, Status
from kubesched.framework.nodeinfo import with_pods_with_required_anti_affinity
from kubesched.model import Node, Pod
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.inter_pod_affinity.counting import term_counter
from kubesched.plugins.inter_pod_affinity.indexed_filter import (
    indexed_existing_anti_affinity,
    indexed_pair_counts,
)
from kubesched.plugins.inter_pod_affinity.terms import (
    AffinityTerm,
    PodTerms,
    TermCache,
    matches_all,
)

ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
_REJECT_AFFINITY: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY)
_REJECT_ANTI: Final = Status(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY)
_REJECT_EXISTING: Final = Status(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY)

Pair = tuple[str, str]


def _add(counts: dict[Pair, int], node: Node, key: str, delta: int) -> None:
    value = node.labels.get(key)
    if value is not None:
        pair = (key, value)
        total = counts.get(pair, 0) + delta
        if total:
            counts[pair] = total
        else:
            counts.pop(pair, None)


@dataclass(slots=True)
class FilterState:
    """Upstream `preFilterState`."""

    pod: Pod
    affinity_terms: tuple[AffinityTerm, ...]
    anti_affinity_terms: tuple[AffinityTerm, ...]
    affinity_counts: dict[Pair, int]
    anti_affinity_counts: dict[Pair, int]
    existing_counts: dict[Pair, int]
    self_match: bool
    """The pod matches all its own required affinity terms."""
    namespaces: NamespaceLabels
    existing_keys: tuple[str, ...]
    """The label keys of `existing_counts` (a key whose pairs all left may stay: harmless)."""

    def clone(self) -> FilterState:
        return FilterState(
            self.pod,
            self.affinity_terms,
            self.anti_affinity_terms,
            dict(self.affinity_counts),
            dict(self.anti_affinity_counts),
            dict(self.existing_counts),
            self.self_match,
            self.namespaces,
            self.existing_keys,
        )

    def update_with_pod(self, changed: Pod, terms: PodTerms, node: Node, delta: int) -> None:
        """Count `changed` (delta 1) on `node` or stop counting it (-1): what-if runs such
        as preemption (upstream AddPod/RemovePod)."""
        labels_of = self.namespaces.of
        for term in terms.required_anti_affinity:
            if term.matches(self.pod, labels_of):
                _add(self.existing_counts, node, term.topology_key, delta)
                if term.topology_key not in self.existing_keys:
                    self.existing_keys += (term.topology_key,)
        if matches_all(self.affinity_terms, changed, labels_of):
            for term in self.affinity_terms:
                _add(self.affinity_counts, node, term.topology_key, delta)
        for term in self.anti_affinity_terms:
            if term.matches(changed, labels_of):
                _add(self.anti_affinity_counts, node, term.topology_key, delta)

    def reach(self, changed: Pod, terms: PodTerms) -> frozenset[str] | None:
        """The label keys through which `update_with_pod(changed, ...)` on a node X can
        change `check` on a node N: only if N has X's value for one of them (each count it
        changes is keyed by X's value). None when it could change `check` anywhere: the pod
        would be the first to match all affinity terms (`check` reads whether any does)."""
        labels_of = self.namespaces.of
        keys = {
            t.topology_key for t in terms.required_anti_affinity if t.matches(self.pod, labels_of)
        }
        if matches_all(self.affinity_terms, changed, labels_of):
            if not self.affinity_counts:
                return None
            keys.update(term.topology_key for term in self.affinity_terms)
        keys.update(
            t.topology_key for t in self.anti_affinity_terms if t.matches(changed, labels_of)
        )
        return frozenset(keys)

    def check(self, node: Node) -> Status | None:
        labels = node.labels
        if self.affinity_terms and not self._affinity_satisfied(labels):
            return _REJECT_AFFINITY
        if self.anti_affinity_counts and self._anti_affinity_violated(labels):
            return _REJECT_ANTI
        for key in self.existing_keys:
            value = labels.get(key)
            if value is not None and self.existing_counts.get((key, value), 0) > 0:
                return _REJECT_EXISTING
        return None

    def _affinity_satisfied(self, labels: dict[str, str]) -> bool:
        pods_exist = True
        for term in self.affinity_terms:
            value = labels.get(term.topology_key)
            if value is None:
                return False  # all topology keys are needed, also for the first pod
            if self.affinity_counts.get((term.topology_key, value), 0) <= 0:
                pods_exist = False
        # No matching pod anywhere: the pod may start the group if it matches its terms.
        return pods_exist or (not self.affinity_counts and self.self_match)

    def _anti_affinity_violated(self, labels: dict[str, str]) -> bool:
        counts = self.anti_affinity_counts
        for term in self.anti_affinity_terms:
            value = labels.get(term.topology_key)
            if value is not None and counts.get((term.topology_key, value), 0) > 0:
                return True
        return False


def filter_state(
    pod: Pod,
    terms: PodTerms,
    nodes: Sequence[NodeInfo],
    *,
    namespaces: NamespaceLabels,
    term_cache: TermCache,
    counts: NodeCountCache,
    totals: PairTotals,
) -> FilterState | None:
    """The counts for `pod` over `nodes` (all nodes); None when there is nothing to check.
    With the snapshot's node list, the counts come from indexes kept across cycles
    (`totals`), else from a walk of the nodes; both give the same counts."""
    existing, existing_keys = _existing_anti_affinity(pod, nodes, namespaces, term_cache, totals)
    affinity, anti = terms.required_affinity, terms.required_anti_affinity
    if not existing and not affinity and not anti:
        return None

    def count(group: tuple[AffinityTerm, ...], *, all_terms: bool) -> dict[Pair, int]:
        found = indexed_pair_counts(group, nodes, namespaces, counts, totals, all_terms=all_terms)
        if found is None:
            found = _count_pairs(group, nodes, namespaces, counts, all_terms=all_terms)
        return found

    return FilterState(
        pod=pod,
        affinity_terms=affinity,
        anti_affinity_terms=anti,
        affinity_counts=count(affinity, all_terms=True),
        anti_affinity_counts=count(anti, all_terms=False),
        existing_counts=existing,
        self_match=matches_all(affinity, pod, namespaces.of),
        namespaces=namespaces,
        existing_keys=existing_keys,
    )


def _existing_anti_affinity(
    pod: Pod,
    nodes: Sequence[NodeInfo],
    namespaces: NamespaceLabels,
    term_cache: TermCache,
    totals: PairTotals,
) -> tuple[dict[Pair, int], tuple[str, ...]]:
    """The pairs forbidden to `pod` by existing pods' anti-affinity, and their label keys."""
    indexed = indexed_existing_anti_affinity(pod, nodes, namespaces, term_cache, totals)
    if indexed is not None:
        return indexed
    counts: dict[Pair, int] = {}
    labels_of = namespaces.of
    # Most nodes hold no such pod: the snapshot knows the few that do (no scan).
    for node_info in with_pods_with_required_anti_affinity(nodes):
        node = node_info.node
        for existing in node_info.pods_with_required_anti_affinity:
            for term in term_cache.of(existing).required_anti_affinity:
                if term.matches(pod, labels_of):
                    _add(counts, node, term.topology_key, 1)
    return counts, tuple({key for key, _ in counts})


def _count_pairs(
    terms: tuple[AffinityTerm, ...],
    nodes: Sequence[NodeInfo],
    namespaces: NamespaceLabels,
    cache: NodeCountCache,
    *,
    all_terms: bool,
) -> dict[Pair, int]:
    """Matching pods per pair: of pods matching all `terms` (affinity), or each term."""
    if not terms:
        return {}
    groups = [terms] if all_terms else [(term,) for term in terms]
    counters = [(group, *term_counter(group, namespaces, cache)) for group in groups]
    counts: dict[Pair, int] = {}
    for node_info in nodes:
        if not node_info.pods:
            continue
        node = node_info.node
        for group, key_id, count in counters:
            found = count(node_info) if key_id is None else cache.count(node_info, key_id, count)
            if found:
                for term in group:
                    _add(counts, node, term.topology_key, found)
    return counts
