"""Cluster events: which changes may make a pod rejected by a plugin schedulable again.

Plugins list the events that can undo their rejections (`events_to_register()`); the queue
moves a pod out of the unschedulable pool only on an event that one of the plugins which
rejected it registered. Actions are bit flags, as upstream's `ActionType`, so one
registration covers several actions and matching is a bitwise AND.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntFlag, StrEnum


class EventResource(StrEnum):
    """The API resource an event is about (upstream `EventResource`)."""

    POD = "Pod"
    """Any pod: assigned pods (add/update/delete) and the unscheduled pod itself."""
    UNSCHEDULED_POD = "UnscheduledPod"
    """A pending pod of one of our profiles was added (a new gang member may complete its
    group); sent only when a plugin registered it."""
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    CSI_NODE = "storage.k8s.io/CSINode"
    CSI_DRIVER = "storage.k8s.io/CSIDriver"
    CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
    VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
    WILDCARD = "*"
    """Matches every resource; an incoming wildcard event moves every pod."""


class ActionType(IntFlag):
    """What changed; the UpdateNode*/UpdatePod* flags narrow an update to one part."""

    NONE = 0
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    """Taints or `spec.unschedulable` changed."""
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8
    """A resource request of a pod got smaller."""
    UPDATE_POD_TOLERATION = 1 << 9
    """Tolerations were added to a pod (the API allows adding only)."""
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    """The last scheduling gate of a pod was removed."""
    UPDATE_NODE_DECLARED_FEATURE = 1 << 11
    """A node's `status.declaredFeatures` changed."""
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE
        | UPDATE_NODE_LABEL
        | UPDATE_NODE_TAINT
        | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION
        | UPDATE_POD_LABEL
        | UPDATE_POD_SCALE_DOWN
        | UPDATE_POD_TOLERATION
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        | UPDATE_NODE_DECLARED_FEATURE
    )
    """Any update, when the kind is unknown or does not matter."""
    ALL = ADD | DELETE | UPDATE


_ACTION_LABELS = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_TOLERATION: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    ActionType.UPDATE: "Update",
    ActionType.ALL: "All",
}


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """A resource and the action(s) on it, e.g. `ClusterEvent(NODE, ADD | UPDATE_NODE_TAINT)`."""

    resource: EventResource | str
    """A built-in resource, or a declared one's `ResourceSpec.event_resource`
    (`podgroups.v1alpha1.scheduling.x-k8s.io`)."""
    action: ActionType
    custom_label: str = ""

    @property
    def label(self) -> str:
        """The event's name in logs and metrics, as upstream spells it (`NodeAdd`)."""
        if self.custom_label:
            return self.custom_label
        action = _ACTION_LABELS.get(self.action, str(int(self.action)))
        return f"{self.resource}{action}"

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether this registered event covers an incoming one (upstream `Match`)."""
        if incoming.resource == EventResource.WILDCARD:
            return True
        if self.resource not in (EventResource.WILDCARD, incoming.resource):
            return False
        return bool(self.action & incoming.action)


WILDCARD_EVENT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL)
"""Registered for plugins that do not say which events they care about: every event."""
