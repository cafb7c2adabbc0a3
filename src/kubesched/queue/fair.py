"""activeQ partitioned by fairness group: the opt-in fair order across teams.

With a `FairOrder` (built by the composition root from a plugin that opts in, e.g.
CapacityScheduling's `fairQueueing`), activeQ keeps one heap per group (a pod's group: its
quota; None for a pod outside every group), each in QueueSort order, and `pop` chooses:

1. the best head of all heaps under QueueSort (ties: the earlier insertion), i.e. the pod a
   single heap would pop;
2. if that pod has no group, it is popped (pods outside every group keep today's order);
3. else, among the heads of the groups whose pod has the same priority as that pod, the
   head of the group with the lowest share (`FairOrder.share_of`, read at this pop, so it
   is never stale); equal shares go by QueueSort order.

So a group never passes a pod of higher priority, and a pod without group is popped exactly
when the single heap would pop it. Shares are read once per pop per candidate group: pop is
O(groups + log n). backoffQ's heap of rejected pods, from which a pop takes a pod when
activeQ is empty, is partitioned the same way with `peers` narrowed to heads whose backoff
ends in the same ordering window as well (`BackoffQueue`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass

from kubesched.model import Pod
from kubesched.queue.heap import KeyedHeap
from kubesched.queue.types import LessFunc, QueuedPodInfo

Group = Hashable
"""A fairness group's key (opaque to the queue)."""


@dataclass(frozen=True, slots=True)
class FairOrder:
    """How the queue learns a pod's fairness group and a group's current share."""

    group_of: Callable[[Pod], Group | None]
    """The pod's group, None for a pod outside every group (it keeps QueueSort order)."""
    share_of: Callable[[Group], float]
    """The group's share now (lower is served first among heads of equal priority)."""


def _uid(qpi: QueuedPodInfo) -> str:
    return qpi.uid


_EMPTY: Group = object()
"""No group (an empty queue)."""


Peers = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


def same_priority(best: QueuedPodInfo, other: QueuedPodInfo) -> bool:
    """The default `Peers`: heads of equal priority compete by share."""
    return best.pod.priority == other.pod.priority


class PartitionedHeap:
    """One `KeyedHeap` per group, with the interface of the single heap activeQ uses."""

    def __init__(self, *, less: LessFunc, order: FairOrder, peers: Peers = same_priority) -> None:
        """`peers(best, other)`: whether `other`'s group competes by share with `best`'s
        (both heads; by default: of the same priority)."""
        self._less = less
        self._order = order
        self._peers = peers
        self._counter = itertools.count()
        self._heaps: dict[Group | None, KeyedHeap[QueuedPodInfo]] = {}
        self._group: dict[str, Group | None] = {}

    def __len__(self) -> int:
        return len(self._group)

    def __contains__(self, uid: object) -> bool:
        return uid in self._group

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        """Items in no particular order."""
        return itertools.chain.from_iterable(self._heaps.values())

    def get(self, uid: str) -> QueuedPodInfo | None:
        if uid not in self._group:
            return None
        return self._heaps[self._group[uid]].get(uid)

    def peek(self) -> QueuedPodInfo | None:
        """The head a single heap would have (fairness aside); None when empty."""
        self._settle()
        group = self._best()
        return None if group is _EMPTY else _head(self._heaps[group])

    def add_or_update(self, qpi: QueuedPodInfo) -> None:
        """Insert `qpi` into its group's heap (moving it if its group changed)."""
        group = self._order.group_of(qpi.pod)
        if qpi.uid in self._group and self._group[qpi.uid] != group:
            self.delete(qpi.uid)
        self._insert(qpi, group)

    def _insert(self, qpi: QueuedPodInfo, group: Group | None, seq: int | None = None) -> None:
        heap = self._heaps.get(group)
        if heap is None:
            heap = KeyedHeap(key=_uid, less=self._less, counter=self._counter)
            self._heaps[group] = heap
        heap.add_or_update(qpi, seq=seq)
        self._group[qpi.uid] = group

    def delete(self, uid: str) -> QueuedPodInfo | None:
        if uid not in self._group:
            return None
        group = self._group.pop(uid)
        heap = self._heaps[group]
        removed = heap.delete(uid)
        if not heap:
            del self._heaps[group]
        return removed

    def pop(self) -> QueuedPodInfo:
        """The fair head (module docstring); IndexError when empty."""
        if not self._group:
            raise IndexError("pop from an empty queue")
        self._settle()
        group = self._choose()
        heap = self._heaps[group]
        qpi = heap.pop()
        del self._group[qpi.uid]
        if not heap:
            del self._heaps[group]
        return qpi

    def _settle(self) -> None:
        """Move each head whose group changed while it waited (its quota created or deleted
        after it entered, e.g. pods queued before the quotas' informer synced) to its
        group's heap, keeping its insertion number, until every head is where its group
        says: only heads compete, so a pod behind them is settled when it comes up."""
        for _ in range(len(self._group)):
            heap = next(
                (
                    heap
                    for group, heap in self._heaps.items()
                    if self._order.group_of(_head(heap).pod) != group
                ),
                None,
            )
            if heap is None:
                return
            seq = heap.peek_seq()
            qpi = self.delete(_head(heap).uid)
            assert qpi is not None
            self._insert(qpi, self._order.group_of(qpi.pod), seq)

    def _best(self) -> Group | None:
        """The group whose head a single heap would pop (`_EMPTY` when empty)."""
        best: Group | None = _EMPTY
        best_heap: KeyedHeap[QueuedPodInfo] | None = None
        for group, heap in self._heaps.items():
            if best_heap is None or self._before(heap, best_heap):
                best, best_heap = group, heap
        return best

    def _choose(self) -> Group | None:
        best = self._best()
        if best is None:
            return None
        head = _head(self._heaps[best])
        chosen, chosen_share = best, self._order.share_of(best)
        for group, heap in self._heaps.items():
            if group is None or group == best or not self._peers(head, _head(heap)):
                continue
            share = self._order.share_of(group)
            if share < chosen_share or (
                share == chosen_share and self._before(heap, self._heaps[chosen])
            ):
                chosen, chosen_share = group, share
        return chosen

    def _before(self, first: KeyedHeap[QueuedPodInfo], second: KeyedHeap[QueuedPodInfo]) -> bool:
        """Whether `first`'s head goes before `second`'s under QueueSort, then insertion."""
        a, b = _head(first), _head(second)
        if self._less(a, b):
            return True
        if self._less(b, a):
            return False
        return first.peek_seq() < second.peek_seq()


def _head(heap: KeyedHeap[QueuedPodInfo]) -> QueuedPodInfo:
    head = heap.peek()
    assert head is not None
    return head
