"""NodeDeclaredFeatures (PreFilter, Filter): a pod that needs a node feature only fits nodes
that declare it in `status.declaredFeatures`.

v1.37 infers three features at scheduling time (`kubesched.model.pod_features`):
`VolumeBindMountOptions` (a volume mount with `bindMountOptions`),
`RestartAllContainersOnContainerExits` (a `restartPolicyRules` action `RestartAllContainers`)
and `UserNamespacesHostNetworkSupport` (`hostNetwork` with `hostUsers: false`). Other pods skip
the plugin. Rejections are UnschedulableAndUnresolvable: `node(s) didn't match Pod's required
features`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from kubesched.model import Pod
from kubesched.plugins.helper.args import no_args

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

    def events_to_register(self) -> Sequence[ClusterEvent]:
        action = ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE
        return (ClusterEvent(EventResource.NODE, action),)
