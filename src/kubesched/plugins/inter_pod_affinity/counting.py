"""Counting the pods of a node that match all terms of a group (InterPodAffinity's
PreFilter and PreScore), remembered per node by `NodeCountCache`."""

from __future__ import annotations

from kubesched.framework import NodeInfo
from kubesched.model import Pod
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import CountFn, NodeCountCache
from kubesched.plugins.inter_pod_affinity.terms import AffinityTerm


def term_counter(
    group: tuple[AffinityTerm, ...], namespaces: NamespaceLabels, cache: NodeCountCache
) -> tuple[int | None, CountFn]:
    """(cache key id or None when the count must not be cached, count of a node's pods
    matching every term of `group`)."""
    labels_of = namespaces.of

    def matches(pod: Pod) -> bool:
        return all(term.matches(pod, labels_of) for term in group)

    # With a namespace lister, namespace labels may change between cycles.
    if any(term.labels_dependent for term in group):

        def walk(node_info: NodeInfo) -> int:
            return sum(1 for pod in node_info.pods.values() if matches(pod))

        return None, walk
    key_id = cache.key_id(("pod-affinity", group))

    def count(node_info: NodeInfo) -> int:
        return cache.count_pods(node_info, key_id, matches)

    return key_id, count
