"""What the scheduling queue holds and the callables it is wired with.

The queue depends on no framework module: the composition root passes plain callables
(`LessFunc`, `PreEnqueueFunc`, `WorthRequeuingFunc`) built from the profile's plugins, and
cluster events are opaque objects handed back to `WorthRequeuingFunc`. The event *labels*
below name the queue's own moves in the `scheduler_queue_incoming_pods_total{event}` metric,
spelled as kube-scheduler spells them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from kubesched.model import Pod

# Labels of the queue's own events (upstream `framework/events.go`).
UNSCHEDULED_POD_ADD = "UnschedulablePodAdd"
UNSCHEDULED_POD_UPDATE = "UnschedulablePodUpdate"
ASSIGNED_POD_ADD = "AssignedPodAdd"
ASSIGNED_POD_UPDATE = "AssignedPodUpdate"
ASSIGNED_POD_DELETE = "AssignedPodDelete"
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
FORCE_ACTIVATE = "ForceActivate"
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"

# Sub-queue names, as the `queue` label of kube-scheduler's queue metrics.
ACTIVE = "active"
BACKOFF = "backoff"
UNSCHEDULABLE = "unschedulable"
GATED = "gated"


@dataclass(frozen=True, slots=True)
class QueueEvent:
    """A cluster event the queue raises itself when the caller passes none.

    Callers normally pass the framework's `ClusterEvent`; the queue only hands the object
    to `WorthRequeuingFunc` and reads its `label` for metrics.
    """

    resource: str
    action: str
    label: str


ASSIGNED_POD_ADD_EVENT = QueueEvent("AssignedPod", "Add", ASSIGNED_POD_ADD)
ASSIGNED_POD_UPDATE_EVENT = QueueEvent("AssignedPod", "Update", ASSIGNED_POD_UPDATE)
ASSIGNED_POD_DELETE_EVENT = QueueEvent("AssignedPod", "Delete", ASSIGNED_POD_DELETE)


def event_label(event: object) -> str:
    """The metric label of an event: its `label` attribute (or method), else `str(event)`."""
    label = getattr(event, "label", None)
    if callable(label):
        label = label()
    return label if isinstance(label, str) else str(event)


@dataclass(slots=True, kw_only=True, eq=False)
class QueuedPodInfo:
    """A pending pod plus its queueing history; one object follows the pod between queues."""

    pod: Pod
    timestamp: float
    """When the pod was last added to the queue (PrioritySort's tie-breaker, backoff start)."""
    attempts: int = 0
    """Scheduling attempts so far; incremented by `pop()`."""
    initial_attempt_timestamp: float | None = None
    """When the pod first entered activeQ (start of `pod_scheduling_sli_duration_seconds`)."""
    unschedulable_plugins: set[str] = field(default_factory=set)
    """Plugins that rejected the pod in the last attempt (set by the scheduler on failure)."""
    pending_plugins: set[str] = field(default_factory=set)
    """Plugins that returned Pending in the last attempt."""
    gating_plugin: str | None = None
    """The PreEnqueue plugin currently holding the pod back, if any."""
    backoff_expiration: float = 0.0
    """When the current backoff ends (valid while the pod is in backoffQ)."""

    @property
    def uid(self) -> str:
        return self.pod.uid

    @property
    def gated(self) -> bool:
        """True while a PreEnqueue plugin (e.g. schedulingGates) keeps the pod out of activeQ."""
        return self.gating_plugin is not None


LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]
"""QueueSort: True when the first pod must be scheduled before the second."""
PreEnqueueFunc = Callable[[Pod], "str | None"]
"""Runs the PreEnqueue plugins: None when the pod may be queued, else the gating plugin."""
WorthRequeuingFunc = Callable[[QueuedPodInfo, object], bool]
"""Whether a cluster event may make a pod rejected by `unschedulable_plugins` schedulable."""
PodCheck = Callable[[Pod], bool]
"""A pre-check narrowing which unschedulable pods an event is tried on."""
IncomingHook = Callable[[str, str], None]
"""Called with (queue, event label) whenever a pod enters a sub-queue (metrics)."""


_STATUS_FIELDS = {
    "resource_version",
    "phase",
    "nominated_node_name",
    "scheduled_condition",
    "start_time",
    "preempted_by_scheduler",
}
_SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(Pod) if f.name not in _STATUS_FIELDS)


def spec_changed(old: Pod, new: Pod) -> bool:
    """Whether an update may make the pod schedulable (anything but status/resourceVersion)."""
    return any(getattr(old, name) != getattr(new, name) for name in _SPEC_FIELDS)


def always_worth_requeuing(_qpi: QueuedPodInfo, _event: object) -> bool:
    """The default hint: every event may help every pod."""
    return True
