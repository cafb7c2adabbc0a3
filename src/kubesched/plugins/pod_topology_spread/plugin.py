"""PodTopologySpread (PreFilter, Filter, PreScore, Score): spread pods evenly over topology
domains (zones, hosts, ...) by their `topologySpreadConstraints`, as kube-scheduler does.

* `whenUnsatisfiable: DoNotSchedule` constraints filter: a node is rejected if placing the
  pod there would make its domain exceed the global minimum by more than `maxSkew`
  (`node(s) didn't match pod topology spread constraints`), or if it lacks the topology key
  (`... (missing required label)`). See `filtering`.
* `ScheduleAnyway` constraints score: fewer matching pods in a node's domains, higher score.
  See `scoring`.
* Pods without constraints get the default constraints (`PodTopologySpreadArgs`:
  `defaultingType: System|List`, `defaultConstraints`), spreading the pod among the pods
  of the Services and controllers that select it (`helper.spread.default_selector`; the
  plugin declares their resources, `DEFAULT_SPREADING`, and reads their listers).

PreFilter and PreScore do the counting (per-node counts are reused across cycles while a
node is unchanged, see `plugins.helper.node_counts`); Filter and Score are O(constraints) per node.

Queueing hints, as upstream, on the pod's DoNotSchedule constraints (its own, else the
defaults, as PreFilter gets them): an assigned pod of its namespace added or deleted that one
selects, or relabelled so that one selects it or no longer does; the pod's own such label
change, or a new toleration with a `nodeTaintsPolicy: Honor` constraint; a node added or
deleted that has every topology key, or updated to gain or lose one, or, having them all, to
change a key's value or its taints.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, MutableSequence, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    DEFAULT_SPREADING,
    ActionType,
    AddedIndex,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    QueueingHint,
    StateKey,
    Status,
)
from kubesched.model import Node, Pod
from kubesched.plugins.helper.added_pod_keys import added_pod_keys, selector_keys
from kubesched.plugins.helper.event_objects import event_objects
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.helper.selectors import LabelSelector, SelectorError
from kubesched.plugins.helper.spread import SpreadListers
from kubesched.plugins.pod_topology_spread.args import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    PodTopologySpreadArgs,
)
from kubesched.plugins.pod_topology_spread.constraints import Constraint, pod_constraints
from kubesched.plugins.pod_topology_spread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    FilterState,
    filter_state,
)
from kubesched.plugins.pod_topology_spread.indexed import indexed_filter_state
from kubesched.plugins.pod_topology_spread.scoring import ScoreState, score_state

NAME = names.POD_TOPOLOGY_SPREAD
_SKIP: Final = Status(Code.SKIP)
_PRE_FILTER_KEY: StateKey[FilterState] = StateKey("PreFilter" + NAME)
_PRE_SCORE_KEY: StateKey[ScoreState] = StateKey("PreScore" + NAME)
_QUEUE: Final = QueueingHint.QUEUE
_SKIP_HINT: Final = QueueingHint.QUEUE_SKIP

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PodTopologySpread",
]


class PodTopologySpread:
    name = NAME
    resources = DEFAULT_SPREADING
    """The Services and controllers default constraints spread by (no queue events: upstream
    registers none)."""

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self._args = PodTopologySpreadArgs.from_v1(args)
        self._handle = handle
        self._workloads = SpreadListers.of(handle)
        self._counts = NodeCountCache()
        self._totals = PairTotals()

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            constraints = self._hard_constraints(pod)
        except SelectorError as exc:
            return Status(
                Code.ERROR,
                "get constraints from pod: obtaining pod's hard topology spread"
                f" constraints: {exc}",
            )
        if not constraints:
            return _SKIP
        self._counts.prune(nodes)
        computed = indexed_filter_state(pod, constraints, nodes, self._totals)
        if computed is None:
            computed = filter_state(pod, constraints, nodes, self._counts)
        state.write(_PRE_FILTER_KEY, computed)
        return None

    def filter(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        return state.read(_PRE_FILTER_KEY).check(node_info.node)

    def add_pod(
        self, state: CycleState, _pod: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        """PreFilterExtensions: `pod_to_add` joined `node_info` in a what-if evaluation."""
        state.read(_PRE_FILTER_KEY).update_with_pod(pod_to_add, node_info.node, 1)
        return None

    def remove_pod(
        self, state: CycleState, _pod: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        """PreFilterExtensions: `pod_to_remove` left `node_info` in a what-if evaluation."""
        state.read(_PRE_FILTER_KEY).update_with_pod(pod_to_remove, node_info.node, -1)
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self._handle.list_node_infos()
        if not all_nodes:
            return _SKIP
        try:
            constraints = pod_constraints(
                pod, SCHEDULE_ANYWAY, self._args, workloads=self._workloads
            )
        except SelectorError as exc:
            return Status(
                Code.ERROR,
                "calculating preScoreState: obtaining pod's soft topology spread"
                f" constraints: {exc}",
            )
        if not constraints:
            return _SKIP
        self._counts.prune(all_nodes)
        require_all_keys = bool(pod.topology_spread_constraints) or not self._args.system_defaulted
        computed = score_state(
            pod,
            constraints,
            feasible=nodes,
            all_nodes=all_nodes,
            require_all_keys=require_all_keys,
            cache=self._counts,
            totals=self._totals,
        )
        state.write(_PRE_SCORE_KEY, computed)
        return None

    def score(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        return state.read(_PRE_SCORE_KEY).score(node_info, self._counts)

    def normalize_score(
        self, state: CycleState, _pod: Pod, scores: MutableSequence[int]
    ) -> Status | None:
        computed = state.get(_PRE_SCORE_KEY)
        if computed is not None:
            computed.normalize(scores)
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return (
            # Assigned pods added, relabelled or deleted change the counts.
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.ASSIGNED_POD,
                    ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
                ),
                self.is_schedulable_after_assigned_pod_change,
                AddedIndex(self._spread_keys, added_pod_keys),
            ),
            # The pod's own labels (it counts itself), or a new toleration with
            # `nodeTaintsPolicy: Honor`.
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.TARGET_POD,
                    ActionType.UPDATE_POD_TOLERATION | ActionType.UPDATE_POD_LABEL,
                ),
                self.is_schedulable_after_target_pod_change,
            ),
            # Nodes added, deleted or updated may change the domains.
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD
                    | ActionType.DELETE
                    | ActionType.UPDATE_NODE_LABEL
                    | ActionType.UPDATE_NODE_TAINT,
                ),
                self.is_schedulable_after_node_change,
            ),
        )

    def _hard_constraints(self, pod: Pod) -> tuple[Constraint, ...]:
        """The DoNotSchedule constraints, PreFilter's and the hints' (upstream
        `getConstraints`); raises SelectorError."""
        return pod_constraints(pod, DO_NOT_SCHEDULE, self._args, workloads=self._workloads)

    def is_schedulable_after_assigned_pod_change(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """Upstream `isSchedulableAfterAssignedPodChange`: only bound or nominated pods of
        the pod's namespace count."""
        original, modified = event_objects(Pod, old, new)
        if (modified is not None and not _involved(modified, pod)) or (
            original is not None and not _involved(original, pod)
        ):
            return _SKIP_HINT
        constraints = self._hard_constraints(pod)
        if original is not None and modified is not None:
            return _after_label_change(original, modified, constraints)
        changed = modified if modified is not None else original
        if changed is None:
            raise TypeError("an assigned pod event without a pod")
        if any(c.selector.matches_pod(changed) for c in constraints):
            return _QUEUE
        return _SKIP_HINT

    def _spread_keys(self, pod: Pod) -> frozenset[Hashable] | None:
        """Which added assigned pods can help the pod (`AddedIndex`): those of its
        namespace that one of its hard constraints selects. None for the default
        constraints (their selector follows the workloads, not the pod object)."""
        if not pod.topology_spread_constraints:
            return None
        try:
            constraints = self._hard_constraints(pod)
        except Exception:  # the hint raises too: it says QUEUE
            return None
        keys: frozenset[Hashable] = frozenset()
        for constraint in constraints:
            if not isinstance(constraint.selector, LabelSelector):
                return None
            keys |= selector_keys((pod.namespace,), constraint.selector)
        return keys

    def is_schedulable_after_target_pod_change(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """Upstream `isSchedulableAfterTargetPodChange`: new tolerations matter only with a
        `nodeTaintsPolicy: Honor` constraint; labels as for an assigned pod."""
        original, modified = event_objects(Pod, old, new)
        if original is None or modified is None:
            raise TypeError("a pod update without both versions of the pod")
        constraints = self._hard_constraints(pod)
        if modified.tolerations != original.tolerations and any(
            c.honor_taints for c in constraints
        ):
            return _QUEUE
        return _after_label_change(original, modified, constraints)

    def is_schedulable_after_node_change(self, pod: Pod, old: object, new: object) -> QueueingHint:
        """Upstream `isSchedulableAfterNodeChange`: a node "matches" when it has every
        constraint's topology key (so any node does for a pod without constraints)."""
        original, modified = event_objects(Node, old, new)
        constraints = self._hard_constraints(pod)
        if original is not None and modified is not None:
            was = _has_keys(original, constraints)
            now = _has_keys(modified, constraints)
            if was != now:
                return _QUEUE
            if now and (
                _keys_changed(original, modified, constraints) or original.taints != modified.taints
            ):
                return _QUEUE
            return _SKIP_HINT
        node = modified if modified is not None else original
        if node is None:
            raise TypeError("a node event without the node")
        return _QUEUE if _has_keys(node, constraints) else _SKIP_HINT


def _involved(changed: Pod, pod: Pod) -> bool:
    """Upstream `involvedInTopologySpreading`: bound or nominated, in the pod's namespace."""
    if not changed.node_name and not changed.nominated_node_name:
        return False
    return changed.namespace == pod.namespace


def _after_label_change(
    original: Pod, modified: Pod, constraints: Sequence[Constraint]
) -> QueueingHint:
    """Upstream `isSchedulableAfterPodLabelChange`: some constraint selects the pod before
    and not after, or after and not before."""
    if original.labels == modified.labels:
        return _SKIP_HINT
    for c in constraints:
        if c.selector.matches_pod(original) != c.selector.matches_pod(modified):
            return _QUEUE
    return _SKIP_HINT


def _has_keys(node: Node, constraints: Sequence[Constraint]) -> bool:
    """Upstream `nodeLabelsMatchSpreadConstraints`."""
    return all(c.topology_key in node.labels for c in constraints)


def _keys_changed(original: Node, modified: Node, constraints: Sequence[Constraint]) -> bool:
    """Upstream `checkTopologyKeyLabelsChanged` (a missing label reads as "")."""
    before, after = original.labels, modified.labels
    return any(before.get(c.topology_key, "") != after.get(c.topology_key, "") for c in constraints)
