"""NodeUnschedulable (Filter): cordoned nodes (`spec.unschedulable`) take no new pods, unless
the pod tolerates the `node.kubernetes.io/unschedulable:NoSchedule` taint."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
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
    Status,
)
from kubesched.framework.signs import tolerations_sign
from kubesched.model import Pod, Taint
from kubesched.model.node import NO_SCHEDULE
from kubesched.plugins.helper.args import no_args
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

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return (
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
            ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION),
        )
