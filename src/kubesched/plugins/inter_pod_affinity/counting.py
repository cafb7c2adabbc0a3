"""Counting the pods of a node that match all terms of a group (InterPodAffinity's
PreFilter and PreScore), remembered per node by `NodeCountCache`."""

from __future__ import annotations

from kubesched.framework import NodeInfo
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import CountFn, NodeCountCache
from kubesched.plugins.inter_pod_affinity.terms import AffinityTerm


def term_counter(
    group: tuple[AffinityTerm, ...], namespaces: NamespaceLabels, cache: NodeCountCache
) -> tuple[int | None, CountFn]:
    """(cache key id or None when the count must not be cached, count of a node's pods
    matching every term of `group`)."""
    labels_of = namespaces.of

    def count(node_info: NodeInfo) -> int:
        found = 0
        for pod in node_info.pods.values():
            if all(term.matches(pod, labels_of) for term in group):
                found += 1
        return found

    # With a namespace lister, namespace labels may change between cycles.
    volatile = any(term.labels_dependent for term in group)
    return (None if volatile else cache.key_id(("pod-affinity", group)), count)
