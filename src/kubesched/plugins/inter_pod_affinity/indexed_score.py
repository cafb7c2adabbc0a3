"""InterPodAffinity's PreScore sums from indexes kept across cycles
(`plugins.helper.pair_totals`): the same sums as `scoring`'s walks of the nodes, costing
only the nodes that changed since the previous cycle.

* existing pods' terms that select the incoming pod: keyed by the incoming pod's
  namespace, the labels of that namespace and the pod's labels (all a term's match reads);
* the incoming pod's preferred terms (their `namespaceSelector` turned into namespace
  names, `terms.with_selected_namespaces`): keyed by the term and its sign, as the
  per-node counts of matching pods (`term_counter`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from kubesched.framework import NodeInfo
from kubesched.framework.nodeinfo import with_pods_with_affinity
from kubesched.model import Pod
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import Contribution, PairTotals
from kubesched.plugins.inter_pod_affinity.counting import term_counter
from kubesched.plugins.inter_pod_affinity.terms import AffinityTerm, TermCache


class Sums(Protocol):
    """What `scoring._Totals` holds: key -> value -> summed weight, and whether any term
    matched."""

    scores: dict[str, dict[str, int]]
    matched: bool


class IndexedScore:
    """The PreScore sums of one cycle, read from `totals`."""

    def __init__(self, nodes: Sequence[NodeInfo], totals: PairTotals) -> None:
        self.nodes = nodes
        self.totals = totals

    def existing_pods_terms(
        self,
        pod: Pod,
        into: Sums,
        *,
        hard_weight: int,
        namespaces: NamespaceLabels,
        term_cache: TermCache,
        shared: bool,
    ) -> bool:
        """Add the weights of existing pods' terms selecting `pod` to `into` (an empty
        one; with `shared`, `into` may alias the index: it is never changed after);
        False when the index cannot be used."""
        namespace_labels = frozenset(namespaces.of(pod.namespace).items())
        labels = frozenset(pod.labels.items())
        key = ("existing-score", hard_weight, pod.namespace, namespace_labels, labels)
        fn = existing_contribution(pod, hard_weight, namespaces, term_cache)
        index = self.totals.index(self.nodes, key, fn, with_pods_with_affinity)
        if index is None:
            return False
        into.scores = index.nested if shared else {k: dict(v) for k, v in index.nested.items()}
        into.matched = into.matched or bool(index.uses)
        return True

    def incoming_terms(
        self,
        preferred: list[tuple[AffinityTerm, int]],
        namespaces: NamespaceLabels,
        counts: NodeCountCache,
        into: Sums,
    ) -> bool:
        """Add the weights of the incoming pod's preferred terms to `into` (its own copy);
        False (nothing added) when a term cannot be indexed."""
        indexes = []
        for term, sign in preferred:
            key_id, count = term_counter((term,), namespaces, counts)
            if key_id is None:
                return False
            fn = incoming_contribution(term, sign, count)
            index = self.totals.index(self.nodes, ("preferred", term, sign), fn, _with_pods)
            if index is None:
                return False
            indexes.append(index)
        for index in indexes:
            for key, values in index.nested.items():
                target = into.scores.setdefault(key, {})
                for value, weight in values.items():
                    target[value] = target.get(value, 0) + weight
            into.matched = into.matched or bool(index.uses)
        return True


def _with_pods(nodes: Sequence[NodeInfo]) -> list[NodeInfo]:
    return [node_info for node_info in nodes if node_info.pods]


def existing_contribution(
    pod: Pod,
    hard_weight: int,
    namespaces: NamespaceLabels,
    term_cache: TermCache,
) -> Callable[[NodeInfo], Contribution]:
    """What a node adds to the pair totals for `pod` through its existing pods' terms that
    select it (+weight for preferred affinity, -weight for preferred anti-affinity,
    +`hard_weight` for required affinity): the one sum of the walk and the index. It reads
    the namespace labels of `pod` alone (the index's key holds them)."""
    labels_of = namespaces.of

    def contribution(node_info: NodeInfo) -> Contribution:
        labels = node_info.node.labels
        found = []
        for existing in node_info.pods_with_affinity:
            theirs = term_cache.of(existing)
            weighted = [(t, t.weight) for t in theirs.preferred_affinity]
            weighted += [(t, -t.weight) for t in theirs.preferred_anti_affinity]
            if hard_weight > 0:
                weighted += [(t, hard_weight) for t in theirs.required_affinity]
            for term, weight in weighted:
                value = labels.get(term.topology_key)
                if value is not None and term.matches(pod, labels_of):
                    found.append(((term.topology_key, value), weight))
        return tuple(found)

    return contribution


def incoming_contribution(
    term: AffinityTerm, sign: int, count: Callable[[NodeInfo], int]
) -> Callable[[NodeInfo], Contribution]:
    """What a node adds to the pair totals through the incoming pod's preferred `term`
    (`sign` +1 affinity, -1 anti-affinity): its weight per matching pod on the node."""

    def contribution(node_info: NodeInfo) -> Contribution:
        value = node_info.node.labels.get(term.topology_key)
        if value is None or not node_info.pods:
            return ()
        found = count(node_info)
        return (((term.topology_key, value), sign * term.weight * found),) if found else ()

    return contribution
