"""The cluster events that arrive while pods are being scheduled (upstream `inFlightEvents`).

A pod popped from activeQ is "in flight" until `done`. Every event of interest that arrives
meanwhile is recorded, so that when the pod comes back rejected, the queue can ask the
rejecting plugins' hints whether one of those events may already have made it schedulable
(else it would wait in the unschedulable pool for an event that came and went). Events older
than the oldest pod still in flight are dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kubesched.queue.types import event_label

POD_POPPED = "PodPopped"
"""The `scheduler_inflight_events` label that counts the pods in flight."""


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    sequence: int
    event: object
    old: Any
    new: Any


class InFlightEvents:
    """Pods in flight (uid -> sequence number at pop) and the events since the oldest."""

    def __init__(self) -> None:
        self._pods: dict[str, int] = {}
        """In pop order, so the first is the oldest."""
        self._events: deque[RecordedEvent] = deque()
        self._sequence = 0
        self.counts: dict[str, int] = {}
        """Per event label, the events kept now; POD_POPPED: the pods in flight
        (`scheduler_inflight_events`, read when /metrics is scraped)."""

    def __bool__(self) -> bool:
        return bool(self._pods)

    def __contains__(self, uid: object) -> bool:
        return uid in self._pods

    def popped(self, uid: str) -> None:
        self._sequence += 1
        self._pods[uid] = self._sequence
        self._changed(POD_POPPED, 1)

    def record(self, event: object, old: Any, new: Any) -> bool:
        """Keep `event` for the pods in flight now; False (nothing kept) if there are none."""
        if not self._pods:
            return False
        self._sequence += 1
        self._events.append(RecordedEvent(self._sequence, event, old, new))
        self._changed(event_label(event), 1)
        return True

    def record_for(self, uid: str, events: list[object], old: Any, new: Any) -> bool:
        """Upstream `addEventsIfPodInFlight`: keep the pod's own update events if it is in
        flight (True), else nothing (False)."""
        if uid not in self._pods:
            return False
        for event in events:
            self.record(event, old, new)
        return True

    def since_popped(self, uid: str) -> Iterator[RecordedEvent]:
        """The events recorded after `uid` was popped (none if it is not in flight)."""
        popped = self._pods.get(uid)
        if popped is None:
            return iter(())
        return (recorded for recorded in self._events if recorded.sequence > popped)

    def done(self, uid: str) -> None:
        """`uid` is no longer in flight: drop the events no pod in flight needs."""
        if self._pods.pop(uid, None) is None:
            return
        self._changed(POD_POPPED, -1)
        oldest = next(iter(self._pods.values()), self._sequence + 1)
        events = self._events
        while events and events[0].sequence < oldest:
            self._changed(event_label(events.popleft().event), -1)

    def _changed(self, label: str, delta: int) -> None:
        counts = self.counts
        counts[label] = counts.get(label, 0) + delta
