"""Cluster events: which changes may make a pod rejected by a plugin schedulable again.

Plugins list the events that can undo their rejections (`events_to_register()`), each with
an optional queueing hint; the queue moves a pod out of the unschedulable pool only on an
event that one of the plugins which rejected it registered and whose hint says QUEUE.
Actions are bit flags, as upstream's `ActionType`, so one registration covers several
actions and matching is a bitwise AND.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from enum import IntEnum, IntFlag, StrEnum
from typing import Any

from kubesched.model import Pod


class EventResource(StrEnum):
    """The API resource an event is about (upstream `EventResource`)."""

    POD = "Pod"
    """Registered only: matches ASSIGNED_POD, UNSCHEDULED_POD and TARGET_POD events."""
    ASSIGNED_POD = "AssignedPod"
    """A bound pod was added, updated or deleted."""
    UNSCHEDULED_POD = "UnscheduledPod"
    """A pending pod other than the one a hint is asked about (e.g. a new gang member that
    may complete its group); sent only when a plugin registered it."""
    TARGET_POD = "TargetPod"
    """The pending pod itself was updated (the hint's `pod`; `new` is its new version)."""
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    CSI_NODE = "storage.k8s.io/CSINode"
    CSI_DRIVER = "storage.k8s.io/CSIDriver"
    CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
    VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
    RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
    RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
    DEVICE_CLASS = "resource.k8s.io/DeviceClass"
    WILDCARD = "*"
    """Registered: matches every resource. Incoming with ActionType.ALL (the queue's
    UnschedulableTimeout and ForceActivate): requeues every pod it is sent for."""


class ActionType(IntFlag):
    """What changed; the UpdateNode*/UpdatePod* flags narrow an update to one part.

    The bits are in upstream's order: a registered action matches an incoming one only
    when the incoming one is the same or more specific (numerically not larger).
    """

    NONE = 0
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    """Taints changed, or `spec.unschedulable` was cleared."""
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_NODE_DECLARED_FEATURE = 1 << 7
    """A node's `status.declaredFeatures` changed."""
    UPDATE_NODE_PREEMPTION_POLICY = 1 << 8
    """A node's `spec.podPreemptionPolicy` changed."""
    UPDATE_POD_LABEL = 1 << 9
    UPDATE_POD_SCALE_DOWN = 1 << 10
    """A resource request of a pod got smaller (or went away)."""
    UPDATE_POD_SCALE_UP = 1 << 11
    """A resource request of a pod got larger (or appeared)."""
    UPDATE_POD_TOLERATION = 1 << 12
    """Tolerations were added to a pod (the API allows adding only)."""
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 13
    """The last scheduling gate of a pod was removed."""
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 14
    """The ResourceClaims generated for a pod (`status.resourceClaimStatuses`) changed."""
    ALL = (1 << 15) - 1
    UPDATE = ALL & ~(ADD | DELETE)
    """Any update, when the kind is unknown or does not matter."""


_ACTION_LABELS = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_NODE_PREEMPTION_POLICY: "UpdateNodePreemptionPolicy",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_SCALE_UP: "UpdatePodScaleUp",
    ActionType.UPDATE_POD_TOLERATION: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ActionType.UPDATE: "Update",
    ActionType.ALL: "All",
}


_POD_KINDS = frozenset(
    {EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD, EventResource.TARGET_POD}
)


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

    @property
    def is_wildcard(self) -> bool:
        """Upstream `ClusterEventIsWildCard`: every resource, every action."""
        return self.resource == EventResource.WILDCARD and self.action == ActionType.ALL

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether this registered event covers an incoming one (upstream
        `MatchClusterEvents`): the same resource (POD covers the three pod kinds) and an
        incoming action that is the same or more specific. An incoming wildcard is matched
        only by a registered wildcard (the queue requeues on it without asking hints)."""
        if self.is_wildcard:
            return True
        resource = incoming.resource
        if self.resource not in (EventResource.WILDCARD, resource) and not (
            self.resource == EventResource.POD and resource in _POD_KINDS
        ):
            return False
        return bool(self.action & incoming.action) and incoming.action <= self.action


WILDCARD_EVENT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL)
"""Registered for plugins that do not say which events they care about: every event."""
UNSCHEDULABLE_TIMEOUT_EVENT = ClusterEvent(
    EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout"
)
"""A pod sat in the unschedulable pool longer than podMaxInUnschedulablePodsDuration."""
FORCE_ACTIVATE_EVENT = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "ForceActivate")
"""A plugin activated a pod (`new` is that pod: the event is for it alone)."""


class QueueingHint(IntEnum):
    """A hint's answer (upstream `QueueingHint`): may the event make the pod schedulable?"""

    QUEUE_SKIP = 0
    """No: the pod stays in the unschedulable pool."""
    QUEUE = 1
    """Maybe: requeue the pod (after its backoff; at once if the plugin said Pending)."""


QueueingHintFn = Callable[[Pod, Any, Any], QueueingHint]
"""`hint(pod, old, new)`: `pod` is the rejected pending pod; `old`/`new` are the objects of
the event (None for an add's `old` and a delete's `new`): `Node`, `Pod`,
`PersistentVolumeClaim`, ... as the informers hold them, `ApiObject` for a declared
resource. An exception counts as QUEUE (logged; the pod must not get stuck)."""


@dataclass(frozen=True, slots=True)
class AddedIndex:
    """A promise about a hint on add events: `hint(pod, None, new)` answers QUEUE_SKIP
    (and raises nothing) whenever `pod_keys(pod)` is a set sharing no key with
    `added_keys(new)`. `pod_keys` returns None when it cannot tell (the pod is always
    asked); it reads only the pending pod's object, so its keys hold while that object
    does. The queue indexes its unschedulable pods by these keys: an added object
    reaches the pods it may help, and the hint still gives the answer."""

    pod_keys: Callable[[Pod], frozenset[Hashable] | None]
    added_keys: Callable[[Any], Iterable[Hashable]]


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    """A registered event plus the plugin's hint for it (upstream `ClusterEventWithHint`).
    Without a hint (None) every matching event queues the pods the plugin rejected."""

    event: ClusterEvent
    hint: QueueingHintFn | None = None
    added_index: AddedIndex | None = None
    """For this registration's add events (no old object): which pending pods the hint
    can answer QUEUE for, so the queue offers an add only to those (`AddedIndex`)."""


def with_hint(registration: ClusterEvent | ClusterEventWithHint) -> ClusterEventWithHint:
    """A plugin's registration in one shape (a bare event has no hint)."""
    if isinstance(registration, ClusterEventWithHint):
        return registration
    return ClusterEventWithHint(registration)
