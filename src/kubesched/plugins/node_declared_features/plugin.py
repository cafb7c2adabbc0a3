"""NodeDeclaredFeatures (PreFilter, Filter): a pod that needs a node feature only fits nodes
that declare it in `status.declaredFeatures`.

v1.37 infers three features at scheduling time (`kubesched.model.pod_features`):
`VolumeBindMountOptions` (a volume mount with `bindMountOptions`),
`RestartAllContainersOnContainerExits` (a `restartPolicyRules` action `RestartAllContainers`)
and `UserNamespacesHostNetworkSupport` (`hostNetwork` with `hostUsers: false`). Other pods skip
the plugin. Rejections are UnschedulableAndUnresolvable: `node(s) didn't match Pod's required
features`.

Queueing hints: a rejected pod is retried on a node added or whose declared features
changed, and on an update of the pod itself that changes the features it needs
(upstream's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from kubesched.model import Node, Pod
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import added_or_updated, updated

NAME = names.NODE_DECLARED_FEATURES
ERR_REASON = "node(s) didn't match Pod's required features"
_SKIP: Final = Status(Code.SKIP)
_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)


class NodeDeclaredFeatures:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def pre_filter(self, _state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        return None if pod.required_features else _SKIP

    def filter(self, _state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.required_features <= node_info.node.declared_features:
            return None
        return _REJECTED

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        node_action = ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_action), self.is_schedulable_after_node_change
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE),
                self.is_schedulable_after_target_pod_update,
            ),
        )

    def is_schedulable_after_target_pod_update(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE when the update changed the features the pod needs."""
        del pod
        old_pod, new_pod = updated(Pod, old, new)
        if new_pod.required_features == old_pod.required_features:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE for a node added, or one whose declared features changed."""
        del pod
        original, modified = added_or_updated(Node, old, new)
        if original is not None and original.declared_features == modified.declared_features:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
