"""NodeName (Filter): a pod that names a node (`spec.nodeName`) fits only that node.

Queueing hints: none, as upstream: a rejected pod is retried on every node added.
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
    Status,
)
from kubesched.framework.signs import node_name_sign
from kubesched.model import Pod
from kubesched.plugins.helper.args import no_args

NAME = names.NODE_NAME
ERR_REASON = "node(s) didn't match the requested node name"
_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)


class NodeName:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...]:
        """Upstream `SignPod`: the pod's `spec.nodeName`.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        return (node_name_sign(pod),)

    def filter(self, _state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.node_name or pod.node_name == node_info.node.name:
            return None
        return _REJECTED

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        # No hint: a node added always retries the pod (upstream: same as QUEUE).
        return (ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),)
