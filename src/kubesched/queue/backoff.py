"""backoffQ: pods that wait out an exponential backoff before they go back to activeQ.

The backoff of a pod is `initial * 2**(attempts - 1)` capped at `maximum` (1, 2, 4, 8, 10,
10 s with the defaults), counted from `QueuedPodInfo.timestamp`, which the queue refreshes
whenever a failed attempt comes back. A pod never attempted has no backoff.
"""

from __future__ import annotations

from collections.abc import Callable

from kubesched.queue.heap import KeyedHeap
from kubesched.queue.types import QueuedPodInfo


def _uid(qpi: QueuedPodInfo) -> str:
    return qpi.uid


def _expires_first(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    return a.backoff_expiration < b.backoff_expiration


class BackoffQueue:
    """A heap ordered by backoff expiry."""

    def __init__(self, *, clock: Callable[[], float], initial: float, maximum: float) -> None:
        self._clock = clock
        self._initial = initial
        self._maximum = maximum
        self._heap: KeyedHeap[QueuedPodInfo] = KeyedHeap(key=_uid, less=_expires_first)

    def __len__(self) -> int:
        return len(self._heap)

    def __contains__(self, uid: object) -> bool:
        return uid in self._heap

    def get(self, uid: str) -> QueuedPodInfo | None:
        return self._heap.get(uid)

    def items(self) -> list[QueuedPodInfo]:
        return list(self._heap)

    def duration(self, qpi: QueuedPodInfo) -> float:
        """Backoff length for the pod's number of attempts."""
        if qpi.attempts == 0:
            return 0.0
        duration = self._initial
        for _ in range(1, qpi.attempts):
            if duration >= self._maximum:
                break
            duration *= 2
        return min(duration, self._maximum)

    def expiration(self, qpi: QueuedPodInfo) -> float:
        return qpi.timestamp + self.duration(qpi)

    def is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        return self.expiration(qpi) > self._clock()

    def add(self, qpi: QueuedPodInfo) -> None:
        qpi.backoff_expiration = self.expiration(qpi)
        self._heap.add_or_update(qpi)

    def delete(self, uid: str) -> QueuedPodInfo | None:
        return self._heap.delete(uid)

    def pop_completed(self) -> list[QueuedPodInfo]:
        """Remove and return every pod whose backoff has ended, earliest first."""
        now = self._clock()
        done: list[QueuedPodInfo] = []
        while (head := self._heap.peek()) is not None and head.backoff_expiration <= now:
            done.append(self._heap.pop())
        return done
