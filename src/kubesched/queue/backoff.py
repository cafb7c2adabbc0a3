"""backoffQ: pods that wait out an exponential backoff before they go back to activeQ.

As upstream's (v1.37, SchedulerPopFromBackoffQ on): the backoff of a pod is
`initial * 2**(count - 1)` capped at `maximum` (1, 2, 4, 8, 10, 10 s with the defaults), where
`count` is the pod's consecutive errors if any, else the times plugins rejected it; it runs
from `QueuedPodInfo.timestamp` (refreshed whenever a failed attempt comes back) and, with the
pop from backoffQ, ends on a whole second (1 s ordering windows), so that pods whose backoff
ends in the same second are taken in QueueSort order. A pod never rejected has no backoff.

Two heaps: pods rejected by plugins (ordered by backoff end, then QueueSort) may be popped
before their backoff is over when activeQ is empty (`pop_rejected`); pods whose attempt
ended in an error (no rejecting plugin) always wait it out. With a fair order (`queue.fair`)
and the pop from backoffQ, the rejected pods are partitioned by group as activeQ is: among
heads whose backoff ends in the same window with the same priority, the lowest share goes
first.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from kubesched.queue.fair import FairOrder, PartitionedHeap
from kubesched.queue.heap import KeyedHeap
from kubesched.queue.types import LessFunc, QueuedPodInfo

ORDERING_WINDOW = 1.0
"""Upstream `backoffQOrderingWindowDuration`."""


def _uid(qpi: QueuedPodInfo) -> str:
    return qpi.uid


class BackoffQueue:
    """The rejected-pod heap and the error heap."""

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        initial: float,
        maximum: float,
        less: LessFunc,
        pop_from_backoff: bool = True,
        fair: FairOrder | None = None,
    ) -> None:
        self._clock = clock
        self._initial = initial
        self._maximum = maximum
        self._windows = pop_from_backoff
        self._less = less

        def expires_first(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
            return self.expiration(a) < self.expiration(b)

        def expires_first_then_sorted(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
            first, second = self.expiration(a), self.expiration(b)
            return first < second if first != second else less(a, b)

        def same_window_and_priority(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
            return self.expiration(a) == self.expiration(b) and a.pod.priority == b.pod.priority

        ordered = expires_first_then_sorted if pop_from_backoff else expires_first
        self._rejected: KeyedHeap[QueuedPodInfo] | PartitionedHeap = (
            PartitionedHeap(less=ordered, order=fair, peers=same_window_and_priority)
            if fair is not None and pop_from_backoff
            else KeyedHeap(key=_uid, less=ordered)
        )
        self._errors: KeyedHeap[QueuedPodInfo] = KeyedHeap(key=_uid, less=expires_first)

    def __len__(self) -> int:
        return len(self._rejected) + len(self._errors)

    def __contains__(self, uid: object) -> bool:
        return uid in self._rejected or uid in self._errors

    @property
    def rejected(self) -> int:
        """Pods a pop from backoffQ may take."""
        return len(self._rejected)

    def get(self, uid: str) -> QueuedPodInfo | None:
        return self._rejected.get(uid) or self._errors.get(uid)

    def items(self) -> list[QueuedPodInfo]:
        return [*self._rejected, *self._errors]

    def duration(self, qpi: QueuedPodInfo) -> float:
        """Backoff length for the pod's count (upstream `calculateBackoffDuration`)."""
        return self.duration_for(qpi.consecutive_errors_count or qpi.unschedulable_count)

    def duration_for(self, count: int, size: int = 1) -> float:
        """Backoff length after `count` failed attempts of an entity of `size` pods: a pod
        group's maximum is the pods' times the square root of its size."""
        if count == 0 or self._maximum == 0:
            return 0.0
        maximum = self._maximum * math.sqrt(size) if size > 1 else self._maximum
        doubled: float = self._initial * 2.0 ** (count - 1)
        return min(doubled, maximum)

    def expiration(self, qpi: QueuedPodInfo) -> float:
        """When the pod's backoff ends (0 for none), computed once per failed attempt."""
        if qpi.backoff_expiration is None:
            if self.duration(qpi) == 0.0:
                return 0.0
            qpi.backoff_expiration = self.align(qpi.timestamp + self.duration(qpi))
        return qpi.backoff_expiration

    def is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        expiration = self.expiration(qpi)
        return expiration != 0.0 and expiration >= self.align(self._clock())

    def add(self, qpi: QueuedPodInfo, *, errors: bool = False) -> None:
        """Into the rejected heap, or the error heap for a pod no plugin rejected (or with
        `errors`: a pod group's members, whose group has no rejecting plugin upstream)."""
        if (qpi.unschedulable_plugins or qpi.pending_plugins) and not errors:
            self._errors.delete(qpi.uid)
            self._rejected.add_or_update(qpi)
        else:
            self._rejected.delete(qpi.uid)
            self._errors.add_or_update(qpi)

    def delete(self, uid: str) -> QueuedPodInfo | None:
        return self._rejected.delete(uid) or self._errors.delete(uid)

    def pop_completed(self) -> list[QueuedPodInfo]:
        """Remove and return every pod whose backoff has ended, earliest first."""
        return [*self._completed(self._rejected), *self._completed(self._errors)]

    def pop_rejected(self) -> QueuedPodInfo | None:
        """The head of the rejected pods, backoff over or not (activeQ is empty)."""
        return self._rejected.pop() if self._rejected else None

    def _completed(self, heap: KeyedHeap[QueuedPodInfo] | PartitionedHeap) -> list[QueuedPodInfo]:
        done: list[QueuedPodInfo] = []
        while (head := heap.peek()) is not None and not self.is_backing_off(head):
            done.append(heap.pop())
        return done

    def align(self, moment: float) -> float:
        """`moment` at the start of its ordering window (unchanged without windows)."""
        if not self._windows:
            return moment
        return math.floor(moment / ORDERING_WINDOW) * ORDERING_WINDOW
