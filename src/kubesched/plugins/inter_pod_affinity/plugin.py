"""InterPodAffinity (PreFilter, Filter, PreScore, Score): place pods near (affinity) or away
from (anti-affinity) other pods, per topology domain, as kube-scheduler does.

* Filter: the pod's required affinity and anti-affinity terms, and the required
  anti-affinity of pods already running (placed by any scheduler) against it; see
  `filtering`. A pod whose affinity selects itself may start a group: if
  no pod anywhere matches its terms, it may go to any node that has the topology keys.
* Score: preferred terms of the pod, and the terms of existing pods that select it; see
  `scoring`.
* Terms: see `terms`; `namespaceSelector`: the plugin declares `NAMESPACES` and reads
  their lister, as upstream its namespace informer. In PreFilter and PreScore the incoming
  pod's selectors become the names of the namespaces listed that they select
  (`terms.with_selected_namespaces`, upstream's `mergeAffinityTermNamespacesIfNotEmpty`);
  existing pods' selectors are matched against the labels of the incoming pod's namespace
  (`plugins.helper.namespaces`; an unknown namespace has no labels).

Args (`InterPodAffinityArgs`): `hardPodAffinityWeight` (0..100, default 1): the score an
existing pod's required affinity term that selects the incoming pod adds to its domain;
`ignorePreferredTermsOfExistingPods` (default false).

Queueing hints, as upstream: an assigned pod added that matches all the pod's required
affinity terms, updated to match them or to stop matching one of its anti-affinity terms,
or deleted while matching one of them (or while its own anti-affinity matched the pod); any
label change of the pod itself; a node added or relabelled that gains (or moves) an affinity
topology key, or loses (or moves) an anti-affinity one (any added node, with anti-affinity).
Like upstream's, the hints match a `namespaceSelector` against no namespace labels.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, MutableSequence, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    NAMESPACES,
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
from kubesched.model.affinity import POD_AFFINITY, POD_ANTI_AFFINITY
from kubesched.plugins.helper.added_pod_keys import added_pod_keys, selector_keys
from kubesched.plugins.helper.event_objects import event_objects
from kubesched.plugins.helper.listers import declared_lister
from kubesched.plugins.helper.namespaces import NamespaceLabels
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.plugins.helper.pair_totals import PairTotals
from kubesched.plugins.helper.selectors import SelectorError
from kubesched.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from kubesched.plugins.inter_pod_affinity.filtering import (
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    FilterState,
    filter_state,
)
from kubesched.plugins.inter_pod_affinity.scoring import ScoreState, score_state
from kubesched.plugins.inter_pod_affinity.terms import (
    RequiredTermCache,
    TermCache,
    matches_all,
    matches_any,
    pod_terms,
    with_selected_namespaces,
)

NAME = names.INTER_POD_AFFINITY
_SKIP: Final = Status(Code.SKIP)
_PRE_FILTER_KEY: StateKey[FilterState] = StateKey("PreFilter" + NAME)
_PRE_SCORE_KEY: StateKey[ScoreState] = StateKey("PreScore" + NAME)
_QUEUE: Final = QueueingHint.QUEUE
_SKIP_HINT: Final = QueueingHint.QUEUE_SKIP
_NO_LABELS: Final[Mapping[str, str]] = {}


def _no_namespace_labels(_namespace: str) -> Mapping[str, str]:
    """What upstream's hints match a term's `namespaceSelector` against: no labels (they
    call `AffinityTerm.Matches(pod, nil)` on terms whose selector is not resolved into
    namespaces, so `{}` matches every namespace and `team: a` none)."""
    return _NO_LABELS


def _hint(helps: bool) -> QueueingHint:
    return _QUEUE if helps else _SKIP_HINT


def _unassigned(pod: Pod) -> bool:
    return not pod.node_name and not pod.nominated_node_name


__all__ = [
    "ERR_REASON_AFFINITY",
    "ERR_REASON_ANTI_AFFINITY",
    "ERR_REASON_EXISTING_ANTI_AFFINITY",
    "NAME",
    "InterPodAffinity",
]


class InterPodAffinity:
    name = NAME
    resources = (NAMESPACES,)
    """Namespace labels, for `namespaceSelector`s (no queue events: upstream registers none)."""

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self.args = InterPodAffinityArgs.from_v1(args)
        self._handle = handle
        self._namespaces = declared_lister(handle, NAMESPACES)
        self._terms = TermCache()
        self._hint_terms = RequiredTermCache()
        self._counts = NodeCountCache()
        self._totals = PairTotals()

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            terms = with_selected_namespaces(pod_terms(pod), self._namespaces.list)
        except SelectorError as exc:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"parsing pod: {exc}")
        self._counts.prune(nodes)
        computed = filter_state(
            pod,
            terms,
            nodes,
            namespaces=NamespaceLabels(self._namespaces),
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

    def extension_reach(
        self, state: CycleState, _pod: Pod, other: Pod, _node_info: NodeInfo
    ) -> frozenset[str] | None:
        """`framework.interfaces.ExtensionReach`: the topology keys through which adding or
        removing `other` can change this cycle's Filter verdicts (`FilterState.reach`)."""
        return state.read(_PRE_FILTER_KEY).reach(other, self._terms.of(other))

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            terms = with_selected_namespaces(pod_terms(pod), self._namespaces.list)
        except SelectorError as exc:
            return Status(Code.ERROR, f"failed to parse pod: {exc}")
        has_preferred = bool(terms.preferred_affinity or terms.preferred_anti_affinity)
        if self.args.ignore_preferred_terms_of_existing_pods and not has_preferred:
            return _SKIP
        computed = score_state(
            pod,
            terms,
            self._handle.list_node_infos(),
            hard_weight=self.args.hard_pod_affinity_weight,
            namespaces=NamespaceLabels(self._namespaces),
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

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return (
            # An assigned pod added may satisfy the pod's affinity; one relabelled may
            # start matching its affinity or stop matching its anti-affinity; one deleted
            # may take a conflicting pod (or a conflicting anti-affinity) away.
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.ASSIGNED_POD,
                    ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
                ),
                self.is_schedulable_after_assigned_pod_change,
                AddedIndex(self._affinity_keys, added_pod_keys),
            ),
            # The pod's own labels: some pod's anti-affinity may no longer select it.
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_LABEL),
                self.is_schedulable_after_target_pod_update_label,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
                self.is_schedulable_after_node_change,
            ),
        )

    def is_schedulable_after_assigned_pod_change(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """Upstream `isSchedulableAfterAssignedPodChange`; a pod neither bound nor
        nominated never helps (binding and nominating are an add or a delete)."""
        original, modified = event_objects(Pod, old, new)
        if (modified is not None and _unassigned(modified)) or (
            original is not None and _unassigned(original)
        ):
            return _SKIP_HINT
        affinity = self._hint_terms.of(pod, POD_AFFINITY)
        anti_affinity = self._hint_terms.of(pod, POD_ANTI_AFFINITY)
        labels_of = _no_namespace_labels
        if original is not None and modified is not None:
            # One existing pod must match all the affinity terms at once.
            return _hint(
                (
                    not matches_all(affinity, original, labels_of)
                    and matches_all(affinity, modified, labels_of)
                )
                or (
                    matches_any(anti_affinity, original, labels_of)
                    and not matches_any(anti_affinity, modified, labels_of)
                )
            )
        if modified is not None:
            return _hint(matches_all(affinity, modified, labels_of))
        if original is None:
            raise TypeError("an assigned pod event without a pod")
        return _hint(
            matches_any(anti_affinity, original, labels_of)
            or matches_any(self._hint_terms.of(original, POD_ANTI_AFFINITY), pod, labels_of)
        )

    def _affinity_keys(self, pod: Pod) -> frozenset[Hashable] | None:
        """Which added assigned pods can help the pod (`AddedIndex`): they must match
        every required affinity term, so the first term's namespaces (any, with a
        namespace selector: the hint matches one against no labels) and one label it
        requires."""
        try:
            affinity = self._hint_terms.of(pod, POD_AFFINITY)
            self._hint_terms.of(pod, POD_ANTI_AFFINITY)  # an invalid one fails the hint
        except Exception:  # the hint raises too: it says QUEUE
            return None
        if not affinity:
            return frozenset()
        term = affinity[0]
        scope = term.namespaces if term.namespace_selector.nothing else (None,)
        return selector_keys(scope, term.selector)

    def is_schedulable_after_target_pod_update_label(
        self, _pod: Pod, _old: object, _new: object
    ) -> QueueingHint:
        """Upstream `isSchedulableAfterTargetPodUpdateLabel`: always, as some pod's
        anti-affinity may select the old labels and not the new ones."""
        return _QUEUE

    def is_schedulable_after_node_change(self, pod: Pod, old: object, new: object) -> QueueingHint:
        """Upstream `isSchedulableAfterNodeChange`: a node added with an affinity topology
        key, or updated to get one or to change its value; any node added when the pod has
        anti-affinity (a node without the key always accepts it), or one updated to lose
        an anti-affinity key or to change its value."""
        original, modified = event_objects(Node, old, new)
        if modified is None:
            raise TypeError("a node event without the node")
        labels = modified.labels
        for term in self._hint_terms.of(pod, POD_AFFINITY):
            key = term.topology_key
            if key in labels and (original is None or original.labels.get(key) != labels[key]):
                return _QUEUE
        anti_affinity = self._hint_terms.of(pod, POD_ANTI_AFFINITY)
        if not anti_affinity:
            return _SKIP_HINT
        if original is None:
            return _QUEUE
        before = original.labels
        for term in anti_affinity:
            key = term.topology_key
            if key in before and labels.get(key) != before[key]:
                return _QUEUE
        return _SKIP_HINT
