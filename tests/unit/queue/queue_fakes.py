"""A fake monotonic clock, PrioritySort and a schedulingGates PreEnqueue for queue tests."""

from __future__ import annotations

from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float) -> None:
        self.now += seconds


def priority_sort(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """PrioritySort: higher priority first, then the earlier timestamp."""
    if a.pod.priority != b.pod.priority:
        return a.pod.priority > b.pod.priority
    return a.timestamp < b.timestamp


def gates(pod: Pod) -> str | None:
    """The SchedulingGates PreEnqueue plugin."""
    return "SchedulingGates" if pod.scheduling_gates else None
