"""What the scheduling queue holds and the callables it is wired with.

The queue runs no plugin: the composition root passes plain callables (`LessFunc`,
`PreEnqueueFunc`, `RequeueFunc`, `InterestFunc`) built from the profiles' frameworks, and
cluster events are opaque objects handed back to them. The event *labels* below name the
queue's own moves in the `scheduler_queue_incoming_pods_total{event}` metric, spelled as
kube-scheduler spells them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from kubesched.model import Pod

# Labels of the queue's own events (upstream `framework/events.go`).
UNSCHEDULED_POD_ADD = "UnschedulablePodAdd"
UNSCHEDULED_POD_UPDATE = "UnschedulablePodUpdate"
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
FORCE_ACTIVATE = "ForceActivate"

# Sub-queue names, as the `queue` label of kube-scheduler's queue metrics.
ACTIVE = "active"
BACKOFF = "backoff"
UNSCHEDULABLE = "unschedulable"
GATED = "gated"


class QueueingStrategy(IntEnum):
    """Where an event sends a waiting pod (upstream `queueingStrategy`), weakest first."""

    SKIP = 0
    """It stays where it is (the unschedulable pool, or gated)."""
    AFTER_BACKOFF = 1
    """backoffQ while it still backs off, else activeQ."""
    IMMEDIATELY = 2
    """activeQ now."""


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
    unschedulable_count: int = 0
    """Attempts that plugins rejected (upstream `UnschedulableCount`): the backoff's count."""
    consecutive_errors_count: int = 0
    """Attempts in a row that ended in an error; the backoff's count while above 0."""
    initial_attempt_timestamp: float | None = None
    """When the pod first entered activeQ (start of `pod_scheduling_sli_duration_seconds`)."""
    unschedulable_plugins: set[str] = field(default_factory=set)
    """Plugins that rejected the pod in the last attempt (set by the scheduler on failure)."""
    pending_plugins: set[str] = field(default_factory=set)
    """Plugins that returned Pending in the last attempt."""
    gating_plugin: str | None = None
    """The PreEnqueue plugin currently holding the pod back, if any."""
    backoff_expiration: float | None = None
    """When the current backoff ends (computed by backoffQ once per failed attempt)."""
    flush_timestamp: float | None = None
    """When the leftover flush last moved the pod (it stays gated, or comes back)."""

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
RequeueFunc = Callable[[QueuedPodInfo, object, Any, Any], QueueingStrategy]
"""`(pod, event, old, new)`: where a cluster event sends a waiting pod, asked of the hints
of the plugins that rejected it (upstream `isPodWorthRequeuing`)."""
InterestFunc = Callable[[object], bool]
"""Whether some plugin registered an event (else it is neither applied nor recorded)."""
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


def always_after_backoff(
    _qpi: QueuedPodInfo, _event: object, _old: Any, _new: Any
) -> QueueingStrategy:
    """The default: every event may help every pod (after its backoff)."""
    return QueueingStrategy.AFTER_BACKOFF


def always_interested(_event: object) -> bool:
    return True
