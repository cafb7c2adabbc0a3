"""NodeAffinity (PreFilter, Filter, PreScore, Score): `nodeSelector` and node affinity.

Filter: the node must carry every `nodeSelector` label and match one of the required
`nodeSelectorTerms` (terms ORed, expressions ANDed); else `node(s) didn't match Pod's node
affinity/selector`. PreFilter narrows the cycle to the nodes named by `metadata.name In`
field terms. Score: the sum of the weights of the matching preferred terms, normalized.

Args (`NodeAffinityArgs`): `addedAffinity` with `requiredDuringSchedulingIgnoredDuringExecution`
(enforced on every pod of the profile: `node(s) didn't match scheduler-enforced node
affinity`) and `preferredDuringSchedulingIgnoredDuringExecution` (added to every score).

Queueing hints: a rejected pod is retried on a node added that matches its required affinity
and the enforced one, or a node whose labels changed to match them (upstream's).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, MutableSequence, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
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
from kubesched.framework.signs import node_affinity_sign
from kubesched.model import Node, Pod
from kubesched.model import nodeselector as ns
from kubesched.model.nodeselector import RequiredAffinity
from kubesched.plugins.helper.event_objects import added_or_updated
from kubesched.plugins.helper.normalize import default_normalize_score
from kubesched.plugins.node_affinity.args import NodeAffinityArgs

NAME = names.NODE_AFFINITY
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_REJECT_POD: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
_REJECT_ENFORCED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)
_SKIP: Final = Status(Code.SKIP)


_PRE_FILTER_KEY: StateKey[RequiredAffinity] = StateKey("PreFilter" + NAME)
_PRE_SCORE_KEY: StateKey[tuple[tuple[int, ns.Term], ...]] = StateKey("PreScore" + NAME)


class NodeAffinity:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        self.args = NodeAffinityArgs.from_v1(args)
        self._added_required = self.args.required_terms()
        self._added_preferred = self.args.preferred_terms()

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...]:
        """Upstream `SignPod`: the pod's node selector and affinity.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        return (node_affinity_sign(pod),)

    def pre_filter(
        self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]
    ) -> Status | frozenset[str] | None:
        required = ns.node_affinity(pod).required
        if required is None and self._added_required is None and not pod.node_selector:
            return _SKIP
        state.write(_PRE_FILTER_KEY, RequiredAffinity.of(pod))
        if not required or not required.get("nodeSelectorTerms"):
            return None
        return _named_nodes(required["nodeSelectorTerms"])

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if self._added_required is not None and not ns.selector_matches(self._added_required, node):
            return _REJECT_ENFORCED
        required = state.get(_PRE_FILTER_KEY)
        if required is None:
            required = RequiredAffinity.of(pod)
        return None if required.matches(node) else _REJECT_POD

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        preferred = ns.compile_preferred(ns.node_affinity(pod).preferred)
        if not preferred and not self._added_preferred:
            return _SKIP
        state.write(_PRE_SCORE_KEY, preferred)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        preferred = state.get(_PRE_SCORE_KEY)
        if preferred is None:
            preferred = ns.compile_preferred(ns.node_affinity(pod).preferred)
        node = node_info.node
        return ns.preferred_score(self._added_preferred, node) + ns.preferred_score(preferred, node)

    def normalize_score(
        self, _state: CycleState, _pod: Pod, scores: MutableSequence[int]
    ) -> Status | None:
        default_normalize_score(scores)
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        event = ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
        return (ClusterEventWithHint(event, self.is_schedulable_after_node_change),)

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE for a node added that the pod's required affinity (and the
        scheduler-enforced one) matches, or updated from not matching to matching."""
        original, modified = added_or_updated(Node, old, new)
        if self._added_required is not None and not ns.selector_matches(
            self._added_required, modified
        ):
            return QueueingHint.QUEUE_SKIP
        required = RequiredAffinity.of(pod)
        if not _matches(required, modified):
            return QueueingHint.QUEUE_SKIP
        if original is not None and _matches(required, original):
            return QueueingHint.QUEUE_SKIP  # it matched before: nothing new for the pod
        return QueueingHint.QUEUE


def _matches(required: RequiredAffinity, node: Node) -> bool:
    """Whether the pod's required affinity matches the node; ValueError when no term
    matched and one of them is invalid (upstream's Match errs then: the hint queues)."""
    if required.matches(node):
        return True
    invalid = [term.error for term in required.terms or () if term.error]
    if invalid and all(node.labels.get(key) == value for key, value in required.labels):
        raise ValueError("; ".join(invalid))
    return False


def _named_nodes(terms: Sequence[Mapping[str, Any]]) -> Status | frozenset[str] | None:
    """Node names every term restricts to via `metadata.name In` (upstream PreFilter)."""
    names: set[str] = set()
    for term in terms:
        term_names: set[str] | None = None
        for field in term.get("matchFields") or ():
            if field.get("key") == "metadata.name" and field.get("operator") == "In":
                values = set(field.get("values") or ())
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None  # this term does not pin node names: any node may match
        names |= term_names
    if not names:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
    return frozenset(names)
