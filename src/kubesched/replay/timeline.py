"""How a replayed cluster changes over virtual time: pods waiting, resources used.

The replay loop offers the timeline every moment it reaches (`observe`); a sample is taken
when `interval` has passed since the last one (`SAMPLES` over the trace, and one at the
end), so a long trace costs a bounded number of samples. Each sample counts the pods
waiting in the queue (all of them, and those in the unschedulable pool or gated) and
the share of each resource requested over allocatable on every node (`shares`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import NodeInfo
from kubesched.queue import SchedulingQueue

SAMPLES = 120
"""Samples over a whole trace (plus the last one, at its end)."""


@dataclass(frozen=True, slots=True)
class Sample:
    """The replayed cluster at one virtual moment."""

    t: float
    pending: int
    """Pods in the queue: active, backoffQ, unschedulable pool, gated."""
    unschedulable: int
    """Of those, in the unschedulable pool or gated: waiting for an event to try again."""
    utilization: dict[str, float]
    """Requested / allocatable per resource over every node."""

    def as_json(self) -> dict[str, Any]:
        return {
            "t": self.t,
            "pending": self.pending,
            "unschedulable": self.unschedulable,
            "utilization": self.utilization,
        }


@dataclass(slots=True)
class Timeline:
    """Samples taken at most every `interval` virtual seconds."""

    interval: float
    samples: list[Sample] = field(default_factory=list)
    _next: float = 0.0

    @classmethod
    def over(cls, duration: float) -> Timeline:
        return cls(interval=max(duration / SAMPLES, 1e-9))

    def observe(
        self, now: float, queue: SchedulingQueue, cache: SchedulerCache, snapshot: Snapshot
    ) -> None:
        """Take a sample if one is due at `now`."""
        if now < self._next:
            return
        self.take(now, queue, cache, snapshot)
        self._next = now + self.interval

    def take(
        self, now: float, queue: SchedulingQueue, cache: SchedulerCache, snapshot: Snapshot
    ) -> None:
        """A sample at `now`, whether due or not (the end of the trace)."""
        counts = queue.pending_counts()
        cache.update_snapshot(snapshot)
        waiting = counts.get("unschedulable", 0) + counts.get("gated", 0)
        sample = Sample(round(now, 3), sum(counts.values()), waiting, shares(snapshot.node_infos))
        if self.samples and self.samples[-1].t == sample.t:
            self.samples[-1] = sample
        else:
            self.samples.append(sample)


def shares(nodes: Iterable[NodeInfo]) -> dict[str, float]:
    """Requested / allocatable per resource (cpu, memory, pods, each extended resource)
    over `nodes` (one pass in C per figure: a sample of 15,000 nodes costs milliseconds)."""
    infos = list(nodes)
    requested = list(map(attrgetter("requested"), infos))
    allocatable = list(map(attrgetter("allocatable"), infos))
    used: dict[str, float] = {
        "cpu": sum(map(attrgetter("milli_cpu"), requested)),
        "memory": sum(map(attrgetter("memory"), requested)),
        "pods": sum(map(len, map(attrgetter("pods"), infos))),
    }
    room: dict[str, float] = {
        "cpu": sum(map(attrgetter("milli_cpu"), allocatable)),
        "memory": sum(map(attrgetter("memory"), allocatable)),
        "pods": sum(map(attrgetter("allowed_pods"), allocatable)),
    }
    for name in sorted({name for a in allocatable if a.scalar for name in a.scalar}):
        used[name] = sum(r.scalar.get(name, 0) for r in requested)
        room[name] = sum(a.scalar.get(name, 0) for a in allocatable)
    return {name: round(used[name] / room[name], 4) for name in room if room[name]}
