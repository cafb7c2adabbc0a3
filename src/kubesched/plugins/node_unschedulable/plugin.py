"""NodeUnschedulable (Filter): cordoned nodes (`spec.unschedulable`) take no new pods, unless
the pod tolerates the `node.kubernetes.io/unschedulable:NoSchedule` taint.

Queueing hints: a rejected pod is retried on a schedulable node added, a node uncordoned, or
a toleration of that taint added to the pod itself (upstream's).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
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
    Status,
)
from kubesched.framework.signs import tolerations_sign
from kubesched.model import Node, Pod, Taint
from kubesched.model.node import NO_SCHEDULE
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import added_or_updated
from kubesched.plugins.helper.tolerations import tolerated

NAME = names.NODE_UNSCHEDULABLE
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT: Final = Taint("node.kubernetes.io/unschedulable", "", NO_SCHEDULE)
_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)


class NodeUnschedulable:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...]:
        """Upstream `SignPod`: the pod's tolerations.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        return (tolerations_sign(pod),)

    def filter(self, _state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not node_info.node.unschedulable or tolerated(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return None
        return _REJECTED

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

    def is_schedulable_after_target_pod_toleration_change(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """QUEUE when the pod's new tolerations tolerate the unschedulable taint. Tolerations
        can only be added, and a pod that tolerated it was not rejected here: the old
        version need not be looked at."""
        del pod
        _, modified = added_or_updated(Pod, old, new)
        if tolerated(modified.tolerations, _UNSCHEDULABLE_TAINT):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE for a schedulable node added, or a node updated from unschedulable to
        schedulable."""
        del pod
        original, modified = added_or_updated(Node, old, new)
        if modified.unschedulable or (original is not None and not original.unschedulable):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
