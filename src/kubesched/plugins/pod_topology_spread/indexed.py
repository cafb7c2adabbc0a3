"""PodTopologySpread's domain counts from indexes kept across cycles
(`plugins.helper.pair_totals`): the same counts as the walks of every node in `filtering`
and `scoring`, costing only the nodes that changed since the previous cycle.

One index per constraint, keyed by everything a node's contribution reads: the
constraint's selector and topology key, the pod's namespace, the topology keys a node must
all have, the pod's required node affinity when the constraint honours it, and the pod's
tolerations when it honours taints (they are read against the node's taints). Score's
counts for a hostname constraint are each node's own matching pods by node name, keyed by
the selector and the pod's namespace. A list that is not the snapshot's (what-if runs) is
not indexed: the walk is used.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from kubesched.framework import NodeInfo
from kubesched.model import Pod
from kubesched.model.nodeselector import RequiredAffinity
from kubesched.plugins.helper.pair_totals import Contribution, ContributionFn, PairTotals
from kubesched.plugins.pod_topology_spread.args import HOSTNAME_KEY
from kubesched.plugins.pod_topology_spread.constraints import Constraint
from kubesched.plugins.pod_topology_spread.filtering import (
    FilterState,
    NodePolicies,
    has_all_keys,
    minimum,
    pod_counter,
)


def _all(nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
    return nodes


def _with_pods(nodes: Sequence[NodeInfo]) -> list[NodeInfo]:
    return [node_info for node_info in nodes if node_info.pods]


def _key(kind: str, pod: Pod, constraint: Constraint, required: tuple[str, ...]) -> Hashable:
    affinity = RequiredAffinity.of(pod) if constraint.honor_node_affinity else None
    tolerations = pod.tolerations if constraint.honor_taints else None
    selector, topology_key = constraint.selector, constraint.topology_key
    return (kind, selector, topology_key, pod.namespace, required, affinity, tolerations)


def _contribution(
    pod: Pod,
    constraint: Constraint,
    required: Sequence[Constraint],
    *,
    missing: str | None,
) -> ContributionFn:
    """A node's (topology pair, matching pods), also for 0 pods (the domain exists). With
    `missing` None, a node without the key contributes nothing, else to that value."""
    count = pod_counter(constraint.selector, pod.namespace)
    policies = NodePolicies(pod)
    key = constraint.topology_key

    def contribution(node_info: NodeInfo) -> Contribution:
        node = node_info.node
        labels = node.labels
        if required and not has_all_keys(labels, required):
            return ()
        value = labels.get(key, missing)
        if value is None or not policies.included(constraint, node):
            return ()
        return (((key, value), count(node_info) if node_info.pods else 0),)

    return contribution


def indexed_filter_state(
    pod: Pod, constraints: tuple[Constraint, ...], nodes: Sequence[NodeInfo], totals: PairTotals
) -> FilterState | None:
    """`filtering.filter_state` from the indexes; None when one cannot be used."""
    keys = tuple(c.topology_key for c in constraints)
    counts: list[dict[str, int]] = []
    for constraint in constraints:
        fn = _contribution(pod, constraint, constraints, missing=None)
        index = totals.index(nodes, _key("filter", pod, constraint, keys), fn, _all)
        if index is None:
            return None
        counts.append({pair[1]: found for pair, found in index.totals.items()})
    return FilterState(
        constraints=constraints,
        counts=counts,
        minimums=[minimum(counts[i], c.min_domains) for i, c in enumerate(constraints)],
        self_matches=tuple(int(c.selector.matches_pod(pod)) for c in constraints),
        namespace=pod.namespace,
        policies=NodePolicies(pod),
    )


def indexed_count_domains(
    pod: Pod,
    constraints: tuple[Constraint, ...],
    indexed: Sequence[tuple[int, Constraint]],
    counts: list[dict[str, int]],
    all_nodes: Sequence[NodeInfo],
    *,
    require_all_keys: bool,
    totals: PairTotals,
) -> bool:
    """`scoring._count_domains` from the indexes: add each domain's matching pods to
    `counts` (only the domains already there); False, nothing added, when one cannot be
    used."""
    required = constraints if require_all_keys else ()
    keys = tuple(c.topology_key for c in required)
    found = []
    for _, constraint in indexed:
        fn = _contribution(pod, constraint, required, missing="")
        index = totals.index(all_nodes, _key("score", pod, constraint, keys), fn, _all)
        if index is None:
            return False
        found.append(index)
    for (i, _constraint), index in zip(indexed, found, strict=True):
        domain = counts[i]
        for pair, pods in index.totals.items():
            if pair[1] in domain:
                domain[pair[1]] += pods
    return True


def indexed_host_counts(
    pod: Pod, constraint: Constraint, all_nodes: Sequence[NodeInfo], totals: PairTotals
) -> dict[str, int] | None:
    """Score's counts for a hostname constraint from an index: node name -> the node's own
    pods the constraint matches (upstream counts them per node, no inclusion policy; a node
    missing has none); None when the index cannot be used."""
    count = pod_counter(constraint.selector, pod.namespace)

    def contribution(node_info: NodeInfo) -> Contribution:
        found = count(node_info) if node_info.pods else 0
        return (((HOSTNAME_KEY, node_info.node.name), found),) if found else ()

    key = ("score-host", constraint.selector, pod.namespace)
    index = totals.index(all_nodes, key, contribution, _with_pods)
    return None if index is None else dict(index.nested.get(HOSTNAME_KEY, {}))
