"""PodTopologySpread's PreFilter state and Filter check (the `DoNotSchedule` constraints).

PreFilter counts, per constraint, the matching pods of every topology domain over the nodes
that carry all the constraints' topology keys and pass the node inclusion policies (the
pod's node affinity/nodeSelector when `nodeAffinityPolicy: Honor`, its tolerations of
NoSchedule/NoExecute taints when `nodeTaintsPolicy: Honor`). Counted pods are in the
incoming pod's namespace, not terminating, and matched by the selector (an empty selector
counts none, as upstream). Every such domain counts, even with 0 pods.

Filter, per constraint, in O(1): the node must have the topology key (else
`... (missing required label)`, UnschedulableAndUnresolvable), and

    pods in the node's domain + (1 if the pod matches its own selector) - global minimum
    <= maxSkew

where the global minimum is the smallest domain count, or 0 while there are fewer domains
than `minDomains`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from kubesched.framework import Code, NodeInfo, Status
from kubesched.model import Node, Pod
from kubesched.model.node import DO_NOT_SCHEDULE_EFFECTS
from kubesched.model.nodeselector import RequiredAffinity
from kubesched.plugins.helper.node_counts import CountFn, NodeCountCache
from kubesched.plugins.helper.tolerations import first_untolerated
from kubesched.plugins.pod_topology_spread.constraints import Constraint, PodSelector

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
_REJECT_SKEW: Final = Status(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
_REJECT_LABEL: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
_NO_DOMAINS = 2**31 - 1  # upstream's minimum when no domain exists (math.MaxInt32)
_TAINT_EFFECTS = DO_NOT_SCHEDULE_EFFECTS


def pod_counter(selector: PodSelector, namespace: str) -> CountFn:
    """Counts a node's pods in `namespace`, not terminating, matched by `selector`."""
    if selector.empty:
        return lambda _node_info: 0
    matches = selector.matches_pod

    def count(node_info: NodeInfo) -> int:
        found = 0
        for pod in node_info.pods.values():
            if pod.namespace == namespace and not pod.deleting and matches(pod):
                found += 1
        return found

    return count


class NodePolicies:
    """Per node: does it pass the pod's node affinity / tolerate its taints (each computed
    at most once per node, and only if a constraint honours it)."""

    __slots__ = ("_pod", "_required")

    def __init__(self, pod: Pod) -> None:
        self._pod = pod
        self._required = RequiredAffinity.of(pod)

    def included(self, constraint: Constraint, node: Node) -> bool:
        if constraint.honor_node_affinity and not self._required.matches(node):
            return False
        return not (
            constraint.honor_taints
            and node.taints
            and first_untolerated(node.taints, self._pod.tolerations, _TAINT_EFFECTS)
        )


def has_all_keys(labels: dict[str, str], constraints: Sequence[Constraint]) -> bool:
    return all(constraint.topology_key in labels for constraint in constraints)


@dataclass(slots=True)
class FilterState:
    """Upstream `preFilterState`: the domain counts and global minimum per constraint."""

    constraints: tuple[Constraint, ...]
    counts: list[dict[str, int]]
    """Per constraint: topology value -> matching pods."""
    minimums: list[int]
    self_matches: tuple[int, ...]
    """Per constraint: 1 if the incoming pod matches the constraint's selector."""
    namespace: str
    policies: NodePolicies
    limits: tuple[tuple[str, dict[str, int], int], ...] = field(init=False, repr=False)
    """What Filter reads per constraint: (topology key, counts, the most pods a domain may
    hold: maxSkew - self match + global minimum)."""

    def __post_init__(self) -> None:
        self._refresh()

    def _refresh(self) -> None:
        self.limits = tuple(
            (c.topology_key, self.counts[i], c.max_skew - self.self_matches[i] + self.minimums[i])
            for i, c in enumerate(self.constraints)
        )

    def clone(self) -> FilterState:
        return FilterState(
            self.constraints,
            [dict(c) for c in self.counts],
            list(self.minimums),
            self.self_matches,
            self.namespace,
            self.policies,
        )

    def update_with_pod(self, changed: Pod, node: Node, delta: int) -> None:
        """Count `changed` (delta 1) or stop counting it (-1) on `node` (what-if runs,
        e.g. preemption; upstream AddPod/RemovePod)."""
        if changed.namespace != self.namespace or not has_all_keys(node.labels, self.constraints):
            return
        for i, constraint in enumerate(self.constraints):
            if not constraint.selector.matches_pod(changed):
                continue
            if not self.policies.included(constraint, node):
                continue
            value = node.labels[constraint.topology_key]
            self.counts[i][value] = self.counts[i].get(value, 0) + delta
            self.minimums[i] = minimum(self.counts[i], constraint.min_domains)
        self._refresh()

    def check(self, node: Node) -> Status | None:
        """Upstream's skew check `count + self match - minimum > maxSkew`, as `count >
        limit`."""
        labels = node.labels
        for key, counts, limit in self.limits:
            value = labels.get(key)
            if value is None:
                return _REJECT_LABEL
            if counts.get(value, 0) > limit:
                return _REJECT_SKEW
        return None


def minimum(counts: dict[str, int], min_domains: int) -> int:
    """The global minimum of a constraint's domain counts (upstream `minMatchNum`)."""
    if len(counts) < min_domains:
        return 0  # too few eligible domains: the global minimum is taken as 0
    return min(counts.values()) if counts else _NO_DOMAINS


def filter_state(
    pod: Pod,
    constraints: tuple[Constraint, ...],
    nodes: Sequence[NodeInfo],
    cache: NodeCountCache,
) -> FilterState:
    """Count the matching pods of each constraint's domains over `nodes` (all nodes)."""
    counts: list[dict[str, int]] = [{} for _ in constraints]
    key_ids = [cache.key_id((c.selector, pod.namespace)) for c in constraints]
    counters = [pod_counter(c.selector, pod.namespace) for c in constraints]
    policies = NodePolicies(pod)
    indexed = list(enumerate(constraints))
    for node_info in nodes:
        node = node_info.node
        labels = node.labels
        if not has_all_keys(labels, constraints):
            continue
        for i, constraint in indexed:
            if not policies.included(constraint, node):
                continue
            domain = counts[i]
            value = labels[constraint.topology_key]
            found = cache.count(node_info, key_ids[i], counters[i])
            domain[value] = domain.get(value, 0) + found
    return FilterState(
        constraints=constraints,
        counts=counts,
        minimums=[minimum(counts[i], c.min_domains) for i, c in indexed],
        self_matches=tuple(int(c.selector.matches_pod(pod)) for c in constraints),
        namespace=pod.namespace,
        policies=policies,
    )
