"""`scheduler_unschedulable_pods{plugin,profile}`, counted as pods enter and leave the
unschedulable pool and the gated set (as upstream's queue increments and decrements
`UnschedulableReason` on each move), so that reporting it costs nothing per waiting pod.

A waiting pod counts once for every plugin that rejected it, returned Pending for it, or
gates it. The plugins are read when the pod enters a pool; the scheduler changes them
only while the pod is in flight, and a pod's scheduler name never changes.
"""

from __future__ import annotations

from collections import Counter

from kubesched.queue.types import QueuedPodInfo

ReasonKey = tuple[str, str]
"""(plugin, scheduler name), the labels of `scheduler_unschedulable_pods`."""


def reason_keys(qpi: QueuedPodInfo) -> frozenset[ReasonKey]:
    """The series a waiting pod counts in."""
    plugins = qpi.unschedulable_plugins | qpi.pending_plugins
    if qpi.gating_plugin:
        plugins = plugins | {qpi.gating_plugin}
    profile = qpi.pod.scheduler_name
    return frozenset((plugin, profile) for plugin in plugins)


class ReasonCounts:
    """Waiting pods per (plugin, scheduler name), over the pools that report to it."""

    def __init__(self) -> None:
        self.counts: Counter[ReasonKey] = Counter()
        """Only keys above 0."""
        self._held: dict[tuple[str, str], frozenset[ReasonKey]] = {}

    def enter(self, pool: str, qpi: QueuedPodInfo) -> None:
        """`qpi` is (now) in `pool`, counted by its current plugins."""
        keys = reason_keys(qpi)
        where = (pool, qpi.uid)
        if self._held.get(where) == keys:
            return
        self.leave(pool, qpi.uid)
        if keys:
            self._held[where] = keys
            counts = self.counts
            for key in keys:
                counts[key] += 1

    def leave(self, pool: str, uid: str) -> None:
        """The pod `uid` is no longer in `pool` (nothing if it was not)."""
        keys = self._held.pop((pool, uid), None)
        if keys is None:
            return
        counts = self.counts
        for key in keys:
            left = counts[key] - 1
            if left:
                counts[key] = left
            else:
                del counts[key]
