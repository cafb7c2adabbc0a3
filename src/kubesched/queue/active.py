"""activeQ: pods ready to be tried, in QueueSort order, plus the pods being tried (in flight)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from kubesched.queue.fair import FairOrder, PartitionedHeap
from kubesched.queue.heap import KeyedHeap
from kubesched.queue.types import LessFunc, QueuedPodInfo

Fallback = Callable[[], "QueuedPodInfo | None"]
"""Where `pop()` takes a pod when activeQ is empty (the pop from backoffQ), None: nowhere."""


def _uid(qpi: QueuedPodInfo) -> str:
    return qpi.uid


class ActiveQueue:
    """A heap ordered by `less` (one per fairness group with `fair`, `queue.fair`); `pop()`
    waits for a pod and counts scheduling cycles."""

    def __init__(self, *, less: LessFunc, fair: FairOrder | None = None) -> None:
        self._heap: KeyedHeap[QueuedPodInfo] | PartitionedHeap = (
            KeyedHeap(key=_uid, less=less)
            if fair is None
            else PartitionedHeap(less=less, order=fair)
        )
        self.fallback: Fallback | None = None
        """Set by the pools when the pop from backoffQ is on."""
        self._wakeup = asyncio.Event()
        self.in_flight: dict[str, QueuedPodInfo] = {}
        """Popped pods whose attempt (scheduling and binding cycle) is not done yet."""
        self.scheduling_cycle = 0
        """Incremented by every pop; the number of the latest scheduling cycle."""
        self.closed = False

    def __len__(self) -> int:
        return len(self._heap)

    def __contains__(self, uid: object) -> bool:
        return uid in self._heap

    def get(self, uid: str) -> QueuedPodInfo | None:
        return self._heap.get(uid)

    def items(self) -> list[QueuedPodInfo]:
        return list(self._heap)

    def add(self, qpi: QueuedPodInfo) -> None:
        """Insert or re-order `qpi` and wake a waiting `pop()`."""
        self._heap.add_or_update(qpi)
        self._wakeup.set()

    def delete(self, uid: str) -> QueuedPodInfo | None:
        return self._heap.delete(uid)

    def wake(self) -> None:
        """A pod `fallback` may give appeared: let a waiting `pop()` look again."""
        self._wakeup.set()

    async def pop(self) -> QueuedPodInfo | None:
        """The head of the queue (or the fallback's pod), waiting while there is none; None
        once closed."""
        while True:
            if self.closed:
                return None
            if self._heap:
                qpi = self._heap.pop()
                break
            if self.fallback is not None and (taken := self.fallback()) is not None:
                qpi = taken
                break
            self._wakeup.clear()
            await self._wakeup.wait()
        qpi.attempts += 1
        self.scheduling_cycle += 1
        self.in_flight[qpi.uid] = qpi
        return qpi

    def take(self, qpi: QueuedPodInfo) -> None:
        """Put a pod taken out of another sub-queue in flight, as if popped with the last
        pop (same scheduling cycle)."""
        qpi.attempts += 1
        self.in_flight[qpi.uid] = qpi

    def done(self, uid: str) -> QueuedPodInfo | None:
        return self.in_flight.pop(uid, None)

    def close(self) -> None:
        self.closed = True
        self._wakeup.set()
