"""InterPodAffinity (PreFilter, Filter, PreScore, Score): place pods near (affinity) or away
from (anti-affinity) other pods, per topology domain, as kube-scheduler does.

* Filter: the pod's required affinity and anti-affinity terms, and the required
  anti-affinity of pods already running (placed by any scheduler) against it; see
  `filtering`. A pod whose affinity selects itself may start a group: if
  no pod anywhere matches its terms, it may go to any node that has the topology keys.
* Score: preferred terms of the pod, and the terms of existing pods that select it; see
  `scoring`.
* Terms: see `terms`; `namespaceSelector`: see `plugins.helper.namespaces` (the
  application's Handle lists namespaces from an informer, as upstream; only a Handle without
  `namespace_labels` falls back to each namespace's name label).

Args (`InterPodAffinityArgs`): `hardPodAffinityWeight` (0..100, default 1): the score an
existing pod's required affinity term that selects the incoming pod adds to its domain;
`ignorePreferredTermsOfExistingPods` (default false).
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
from kubesched.plugins.helper.args import ArgsError, check_fields
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.helper.selectors import SelectorError
from kubesched.plugins.inter_pod_affinity.filtering import (
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    FilterState,
    filter_state,
)
from kubesched.plugins.inter_pod_affinity.scoring import ScoreState, score_state
from kubesched.plugins.inter_pod_affinity.terms import TermCache, pod_terms

NAME = names.INTER_POD_AFFINITY
_KIND = "InterPodAffinityArgs"
_SKIP: Final = Status(Code.SKIP)
_PRE_FILTER_KEY: StateKey[FilterState] = StateKey("PreFilter" + NAME)
_PRE_SCORE_KEY: StateKey[ScoreState] = StateKey("PreScore" + NAME)

__all__ = [
    "ERR_REASON_AFFINITY",
    "ERR_REASON_ANTI_AFFINITY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY",
    "NAME",
    "InterPodAffinity",
]


class InterPodAffinity:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        check_fields(
            args,
            kind=_KIND,
            allowed=("hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"),
        )
        weight = args.get("hardPodAffinityWeight", 1)
        if isinstance(weight, bool) or not isinstance(weight, int) or not 0 <= weight <= 100:
            raise ArgsError(
                f"{_KIND}.hardPodAffinityWeight: Invalid value: {weight!r}:"
                " not in valid range [0, 100]"
            )
        ignore = args.get("ignorePreferredTermsOfExistingPods", False)
        if not isinstance(ignore, bool):
            raise ArgsError(f"{_KIND}.ignorePreferredTermsOfExistingPods: expected a boolean")
        self.hard_pod_affinity_weight = weight
        self.ignore_preferred_terms_of_existing_pods = ignore
        self._handle = handle
        self._terms = TermCache()
        self._counts = NodeCountCache()
        self._totals = PairTotals()

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            terms = pod_terms(pod)
        except SelectorError as exc:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"parsing pod: {exc}")
        self._counts.prune(nodes)
        computed = filter_state(
            pod,
            terms,
            nodes,
            namespaces=NamespaceLabels(self._handle),
            term_cache=self._terms,
            counts=self._counts,
            totals=self._totals,
        )
        if computed is None:
            return _SKIP
        state.write(_PRE_FILTER_KEY, computed)
        return None

    def filter(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        return state.read(_PRE_FILTER_KEY).check(node_info.node)

    def add_pod(
        self, state: CycleState, _pod: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        """PreFilterExtensions: `pod_to_add` joined `node_info` in a what-if evaluation."""
        terms = self._terms.of(pod_to_add)
        state.read(_PRE_FILTER_KEY).update_with_pod(pod_to_add, terms, node_info.node, 1)
        return None

    def remove_pod(
        self, state: CycleState, _pod: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        """PreFilterExtensions: `pod_to_remove` left `node_info` in a what-if evaluation."""
        terms = self._terms.of(pod_to_remove)
        state.read(_PRE_FILTER_KEY).update_with_pod(pod_to_remove, terms, node_info.node, -1)
        return None

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            terms = pod_terms(pod)
        except SelectorError as exc:
            return Status(Code.ERROR, f"failed to parse pod: {exc}")
        has_preferred = bool(terms.preferred_affinity or terms.preferred_anti_affinity)
        if self.ignore_preferred_terms_of_existing_pods and not has_preferred:
            return _SKIP
        computed = score_state(
            pod,
            terms,
            self._handle.list_node_infos(),
            hard_weight=self.hard_pod_affinity_weight,
            namespaces=NamespaceLabels(self._handle),
            term_cache=self._terms,
            counts=self._counts,
            pair_totals=self._totals,
        )
        if computed is None:
            return _SKIP
        state.write(_PRE_SCORE_KEY, computed)
        return None

    def score(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        return state.read(_PRE_SCORE_KEY).score(node_info.node)

    def normalize_score(
        self, state: CycleState, _pod: Pod, scores: MutableSequence[int]
    ) -> Status | None:
        computed = state.get(_PRE_SCORE_KEY)
        if computed is not None:
            computed.normalize(scores)
        return None

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return (
            # Assigned pods added, relabelled or deleted; the pod's own labels changing.
            ClusterEvent(
                EventResource.POD, ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_POD_LABEL
            ),
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
        )
