"""TaintToleration: Filter out nodes with a NoSchedule/NoExecute taint the pod does not
tolerate; Score nodes by their untolerated PreferNoSchedule taints (fewer is better).

Filter message as upstream (v1.37): `node(s) had untolerated taint(s)` (the taint itself
is logged at debug level). Score: the count, normalized in reverse to 0..100.

Queueing hints: a rejected pod is retried on a node added, or whose taints changed, that
has no NoSchedule/NoExecute taint the pod does not tolerate (when the old version had one),
and on any toleration added to the pod itself (upstream's).
"""

from __future__ import annotations

import logging
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
from kubesched.framework.logkv import kv
from kubesched.framework.signs import tolerations_sign
from kubesched.model import Node, Pod, Toleration
from kubesched.model.node import DO_NOT_SCHEDULE_EFFECTS, PREFER_NO_SCHEDULE
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import added_or_updated
from kubesched.plugins.helper.normalize import default_normalize_score
from kubesched.plugins.helper.tolerations import first_untolerated, tolerated

NAME = names.TAINT_TOLERATION
_DO_NOT_SCHEDULE: Final = DO_NOT_SCHEDULE_EFFECTS
_PREFER_NO_SCHEDULE = PREFER_NO_SCHEDULE
_UNTOLERATED: Final = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)"
)
log = logging.getLogger(__name__)
_PRE_SCORE_KEY: StateKey[tuple[Toleration, ...]] = StateKey("PreScore" + NAME)


class TaintToleration:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...]:
        """Upstream `SignPod`: the pod's tolerations.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        return (tolerations_sign(pod),)

    def filter(self, _state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        taints = node_info.node.taints
        if not taints:
            return None
        taint = first_untolerated(taints, pod.tolerations, _DO_NOT_SCHEDULE)
        if taint is None:
            return None
        # kube-scheduler >= 1.33 no longer names the taint (it logs it at -v=4). Once per
        # filtered node: the pairs are built only when the line is shown.
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "node had untolerated taint",
                extra=kv(node=node_info.name, pod=pod.key, taint=taint),
            )
        return _UNTOLERATED

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        # Tolerations with no effect tolerate every effect, PreferNoSchedule included.
        prefer = tuple(t for t in pod.tolerations if t.effect in ("", _PREFER_NO_SCHEDULE))
        state.write(_PRE_SCORE_KEY, prefer)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        if not node_info.node.taints:
            return 0
        tolerations = state.get(_PRE_SCORE_KEY)
        if tolerations is None:
            tolerations = pod.tolerations
        return sum(
            1
            for taint in node_info.node.taints
            if taint.effect == _PREFER_NO_SCHEDULE and not tolerated(tolerations, taint)
        )

    def normalize_score(
        self, _state: CycleState, _pod: Pod, scores: MutableSequence[int]
    ) -> Status | None:
        default_normalize_score(scores, reverse=True)
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_TOLERATION),
                self.is_schedulable_after_target_pod_toleration_change,
            ),
        )

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE when the node (added, or updated from one with a NoSchedule/NoExecute taint
        the pod does not tolerate) now has no such taint."""
        original, modified = added_or_updated(Node, old, new)
        if first_untolerated(modified.taints, pod.tolerations, _DO_NOT_SCHEDULE) is not None:
            return QueueingHint.QUEUE_SKIP
        if original is not None and (
            first_untolerated(original.taints, pod.tolerations, _DO_NOT_SCHEDULE) is None
        ):
            return QueueingHint.QUEUE_SKIP  # tolerated before too: not why the pod was rejected
        return QueueingHint.QUEUE

    def is_schedulable_after_target_pod_toleration_change(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """QUEUE: the rejected pod got a toleration, which may tolerate the node's taint."""
        del pod, old, new
        return QueueingHint.QUEUE
