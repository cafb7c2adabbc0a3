"""PodTopologySpread (PreFilter, Filter, PreScore, Score): spread pods evenly over topology
domains (zones, hosts, ...) by their `topologySpreadConstraints`, as kube-scheduler does.

* `whenUnsatisfiable: DoNotSchedule` constraints filter: a node is rejected if placing the
  pod there would make its domain exceed the global minimum by more than `maxSkew`
  (`node(s) didn't match pod topology spread constraints`), or if it lacks the topology key
  (`... (missing required label)`). See `pod_topology_spread_filtering`.
* `ScheduleAnyway` constraints score: fewer matching pods in a node's domains, higher score.
  See `pod_topology_spread_scoring`.
* Pods without constraints get the default constraints (`PodTopologySpreadArgs`:
  `defaultingType: System|List`, `defaultConstraints`), spreading the pod among the pods
  of the Services and controllers that select it (`helper.spread.default_selector`).

PreFilter and PreScore do the counting (per-node counts are reused across cycles while a
node is unchanged, see `plugins.helper.node_counts`); Filter and Score are O(constraints) per node.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableSequence, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    StateKey,
    Status,
)
from kubesched.model import Pod
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.helper.selectors import SelectorError
from kubesched.plugins.pod_topology_spread.constraints import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    parse_args,
    pod_constraints,
)
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

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PodTopologySpread",
]


class PodTopologySpread:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self._args = parse_args(args)
        self._handle = handle
        self._counts = NodeCountCache()
        self._totals = PairTotals()

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            constraints = pod_constraints(pod, DO_NOT_SCHEDULE, self._args, lister=self._handle)
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
            constraints = pod_constraints(pod, SCHEDULE_ANYWAY, self._args, lister=self._handle)
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

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return (
            # Assigned pods added, relabelled or deleted change the counts; the pod itself
            # may get new labels or tolerations (nodeTaintsPolicy: Honor).
            ClusterEvent(
                EventResource.POD,
                ActionType.ADD
                | ActionType.DELETE
                | ActionType.UPDATE_POD_LABEL
                | ActionType.UPDATE_POD_TOLERATION,
            ),
            ClusterEvent(
                EventResource.NODE,
                ActionType.ADD
                | ActionType.DELETE
                | ActionType.UPDATE_NODE_LABEL
                | ActionType.UPDATE_NODE_TAINT,
            ),
        )
