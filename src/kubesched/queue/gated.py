"""The gated set: pods a PreEnqueue plugin keeps out of activeQ, by UID and grouped by
(scheduler name, gating plugin).

A cluster event can only ungate the pods whose gating plugin registered it (upstream
`isPodWorthRequeuing` skips the others), so the queue asks once per group, not once per
pod: with ten thousand pods held by schedulingGates, a bound pod's event costs a lookup,
not ten thousand hint calls (scheduler_perf's SchedulingWhileGated).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, ValuesView

from kubesched.queue.reasons import ReasonCounts
from kubesched.queue.types import GATED, QueuedPodInfo

GateKey = tuple[str, str | None]
"""(scheduler name, gating plugin)."""
GateHears = Callable[[str, str | None, object], bool]
"""Whether `event` may ungate the pods of a scheduler gated by a plugin."""


class GatedSet:
    """UID -> gated pod, with the pods of each (scheduler, gating plugin) apart."""

    def __init__(self, reasons: ReasonCounts | None = None) -> None:
        """`reasons`: counts the held pods by plugin as they come and go."""
        self._reasons = reasons
        self._pods: dict[str, QueuedPodInfo] = {}
        self._groups: dict[GateKey, dict[str, QueuedPodInfo]] = {}
        self._group_of: dict[str, GateKey] = {}

    def __len__(self) -> int:
        return len(self._pods)

    def __contains__(self, uid: object) -> bool:
        return uid in self._pods

    def get(self, uid: str) -> QueuedPodInfo | None:
        return self._pods.get(uid)

    def values(self) -> ValuesView[QueuedPodInfo]:
        return self._pods.values()

    def add(self, qpi: QueuedPodInfo) -> None:
        """Hold `qpi` under its current gating plugin (moved there if it was held under
        another). A pod held again by the same plugin (each event its gate hears asks
        PreEnqueue anew) stays where it is: only its entry and its reasons are updated."""
        uid = qpi.uid
        key = (qpi.pod.scheduler_name, qpi.gating_plugin)
        if self._group_of.get(uid) == key:
            self._pods[uid] = qpi
            self._groups[key][uid] = qpi
        else:
            self.pop(uid)
            self._pods[uid] = qpi
            self._groups.setdefault(key, {})[uid] = qpi
            self._group_of[uid] = key
        if self._reasons is not None:
            self._reasons.enter(GATED, qpi)  # nothing when its plugins are the same

    def pop(self, uid: str) -> QueuedPodInfo | None:
        if self._reasons is not None:
            self._reasons.leave(GATED, uid)
        key = self._group_of.pop(uid, None)
        if key is not None:
            group = self._groups[key]
            group.pop(uid, None)
            if not group:
                del self._groups[key]
        return self._pods.pop(uid, None)

    def hearing(self, event: object, hears: GateHears) -> Iterator[QueuedPodInfo]:
        """The pods whose gating plugin may be ungated by `event` (one question a group)."""
        for (scheduler, gate), group in list(self._groups.items()):
            if hears(scheduler, gate, event):
                yield from list(group.values())
