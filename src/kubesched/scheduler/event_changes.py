"""Which scheduling-relevant parts of a node or pod an update changed, as cluster events
(upstream `NodeSchedulingPropertiesChange` and `PodSchedulingPropertiesChange`).

One event per changed part, so a plugin's hint runs only for the kind of change it
registered; an update of a pod that changed none of them is one generic `Update` event
(which only registrations of every update match). Node conditions and annotations are not
modelled, so their events never occur (no default plugin registers them).
"""

from __future__ import annotations

from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.model import Node, Pod
from kubesched.model.resources import Resource


def node_changes(old: Node, new: Node) -> list[ClusterEvent]:
    """The events of a node update, in upstream's order (none for a heartbeat)."""
    actions = []
    if old.unschedulable != new.unschedulable and not new.unschedulable:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if old.allocatable != new.allocatable:
        actions.append(ActionType.UPDATE_NODE_ALLOCATABLE)
    if old.labels != new.labels:
        actions.append(ActionType.UPDATE_NODE_LABEL)
    if old.taints != new.taints:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if old.declared_features != new.declared_features:
        actions.append(ActionType.UPDATE_NODE_DECLARED_FEATURE)
    return [ClusterEvent(EventResource.NODE, action) for action in actions]


def pod_changes(old: Pod, new: Pod, *, target: bool = False) -> list[ClusterEvent]:
    """The events of a pod update: AssignedPod for a bound pod, TargetPod for the pending
    pod itself (`target`), else UnscheduledPod."""
    if new.node_name:
        resource = EventResource.ASSIGNED_POD
    elif target:
        resource = EventResource.TARGET_POD
    else:
        resource = EventResource.UNSCHEDULED_POD
    actions = []
    if old.labels != new.labels:
        actions.append(ActionType.UPDATE_POD_LABEL)
    if _shrank(old.requests, new.requests):
        actions.append(ActionType.UPDATE_POD_SCALE_DOWN)
    if _shrank(new.requests, old.requests):
        actions.append(ActionType.UPDATE_POD_SCALE_UP)
    if old.scheduling_gates and not new.scheduling_gates:
        actions.append(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    if len(old.tolerations) != len(new.tolerations):
        actions.append(ActionType.UPDATE_POD_TOLERATION)
    if old.generated_claims != new.generated_claims:
        actions.append(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM)
    if not actions:
        actions.append(ActionType.UPDATE)
    return [ClusterEvent(resource, action) for action in actions]


def _shrank(before: Resource, after: Resource) -> bool:
    """Whether some request of `before` is larger in `after`, or gone from it."""
    if (
        after.milli_cpu < before.milli_cpu
        or after.memory < before.memory
        or after.ephemeral_storage < before.ephemeral_storage
    ):
        return True
    return any(after.scalar.get(name, -1) < value for name, value in before.scalar.items())
