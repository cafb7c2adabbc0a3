"""InterPodAffinity's PreFilter counts from indexes kept across cycles
(`plugins.helper.pair_totals`): the same counts as `filtering`'s walks of the nodes,
costing only the nodes that changed since the previous cycle. Each function returns None
when its index cannot be used (not the snapshot's node list, or a term whose
`namespaceSelector` was not turned into namespace names, see
`terms.with_selected_namespaces`): the caller walks the nodes then.

* existing pods' required anti-affinity against the pod: keyed by the pod's namespace, the
  labels of that namespace and the pod's labels (all an existing pod's term reads);
* the pod's own required terms: keyed by the term group, as per-node counts of matching
  pods (`term_counter`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kubesched.framework import NodeInfo
from kubesched.framework.nodeinfo import with_pods_with_required_anti_affinity
from kubesched.model import Pod
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import Contribution, PairTotals
from kubesched.plugins.inter_pod_affinity.counting import term_counter
from kubesched.plugins.inter_pod_affinity.terms import AffinityTerm, TermCache

Pair = tuple[str, str]


def indexed_existing_anti_affinity(
    pod: Pod,
    nodes: Sequence[NodeInfo],
    namespaces: NamespaceLabels,
    term_cache: TermCache,
    totals: PairTotals,
) -> tuple[dict[Pair, int], tuple[str, ...]] | None:
    """Pairs forbidden to `pod` by existing pods' required anti-affinity (a copy), and
    their label keys."""
    namespace_labels = frozenset(namespaces.of(pod.namespace).items())
    key = ("existing-anti-affinity", pod.namespace, namespace_labels, frozenset(pod.labels.items()))
    contribution = _existing_contribution(pod, namespaces, term_cache)
    index = totals.index(nodes, key, contribution, with_pods_with_required_anti_affinity)
    return None if index is None else (dict(index.totals), tuple(index.nested))


def _existing_contribution(
    pod: Pod, namespaces: NamespaceLabels, term_cache: TermCache
) -> Callable[[NodeInfo], Contribution]:
    """A node's pairs forbidden to `pod` by its pods' required anti-affinity."""
    labels_of = namespaces.of

    def contribution(node_info: NodeInfo) -> Contribution:
        found = []
        labels = node_info.node.labels
        for existing in node_info.pods_with_required_anti_affinity:
            for term in term_cache.of(existing).required_anti_affinity:
                value = labels.get(term.topology_key)
                if value is not None and term.matches(pod, labels_of):
                    found.append(((term.topology_key, value), 1))
        return tuple(found)

    return contribution


def indexed_pair_counts(
    terms: tuple[AffinityTerm, ...],
    nodes: Sequence[NodeInfo],
    namespaces: NamespaceLabels,
    counts: NodeCountCache,
    totals: PairTotals,
    *,
    all_terms: bool,
) -> dict[Pair, int] | None:
    """Matching pods per pair (a new dict): of pods matching all `terms`, or each term."""
    if not terms:
        return {}
    if any(term.labels_dependent for term in terms):
        return None
    groups = [terms] if all_terms else [(term,) for term in terms]
    merged: dict[Pair, int] = {}
    for group in groups:
        fn = _group_contribution(group, namespaces, counts)
        index = totals.index(nodes, ("pod-affinity-pairs", group), fn, _with_pods)
        if index is None:
            return None
        if not merged:
            merged = dict(index.totals)
            continue
        for pair, found in index.totals.items():
            merged[pair] = merged.get(pair, 0) + found
    return merged


def _group_contribution(
    group: tuple[AffinityTerm, ...], namespaces: NamespaceLabels, counts: NodeCountCache
) -> Callable[[NodeInfo], Contribution]:
    count = term_counter(group, namespaces, counts)[1]

    def contribution(node_info: NodeInfo) -> Contribution:
        found = count(node_info) if node_info.pods else 0
        if not found:
            return ()
        labels = node_info.node.labels
        return tuple(
            ((term.topology_key, labels[term.topology_key]), found)
            for term in group
            if term.topology_key in labels
        )

    return contribution


def _with_pods(nodes: Sequence[NodeInfo]) -> list[NodeInfo]:
    return [node_info for node_info in nodes if node_info.pods]
