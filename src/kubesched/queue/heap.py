"""A binary heap with a key index: O(log n) push, pop, update and delete by key.

`heapq` cannot delete or re-order an item in place; the scheduling queue needs both (a pod
is deleted while waiting, or updated). Ties under `less` are broken by insertion order, so
pods of equal priority and timestamp leave in FIFO order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(slots=True)
class _Entry(Generic[T]):
    item: T
    seq: int


class KeyedHeap(Generic[T]):
    """A min-heap under `less`, where every item has a unique string key."""

    def __init__(
        self,
        *,
        key: Callable[[T], str],
        less: Callable[[T, T], bool],
        counter: Iterator[int] | None = None,
    ) -> None:
        """`counter` numbers the insertions (the FIFO tie-breaker); heaps that share one can
        be compared head to head (`peek_seq`)."""
        self._key = key
        self._less = less
        self._entries: list[_Entry[T]] = []
        self._index: dict[str, int] = {}
        self._seq = itertools.count() if counter is None else counter

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[T]:
        """Items in no particular order."""
        return (entry.item for entry in self._entries)

    def get(self, key: str) -> T | None:
        index = self._index.get(key)
        return None if index is None else self._entries[index].item

    def peek(self) -> T | None:
        return self._entries[0].item if self._entries else None

    def peek_seq(self) -> int:
        """The insertion number of the smallest item; IndexError when empty."""
        return self._entries[0].seq

    def add_or_update(self, item: T, *, seq: int | None = None) -> None:
        """Insert `item`, or replace the item with the same key and restore the order;
        `seq`: the insertion number a new item keeps (one moved from a heap sharing this
        one's counter), else the next one."""
        key = self._key(item)
        index = self._index.get(key)
        if index is None:
            self._entries.append(_Entry(item, next(self._seq) if seq is None else seq))
            self._index[key] = len(self._entries) - 1
            self._sift_up(len(self._entries) - 1)
            return
        self._entries[index].item = item
        self._fix(index)

    def pop(self) -> T:
        """Remove and return the smallest item; IndexError when empty."""
        if not self._entries:
            raise IndexError("pop from an empty heap")
        return self._remove_at(0)

    def delete(self, key: str) -> T | None:
        """Remove the item with `key`; returns it, or None if absent."""
        index = self._index.get(key)
        return None if index is None else self._remove_at(index)

    def _remove_at(self, index: int) -> T:
        entry = self._entries[index]
        last = self._entries.pop()
        del self._index[self._key(entry.item)]
        if index < len(self._entries):
            self._entries[index] = last
            self._index[self._key(last.item)] = index
            self._fix(index)
        return entry.item

    def _before(self, a: _Entry[T], b: _Entry[T]) -> bool:
        if self._less(a.item, b.item):
            return True
        if self._less(b.item, a.item):
            return False
        return a.seq < b.seq

    def _fix(self, index: int) -> None:
        if not self._sift_up(index):
            self._sift_down(index)

    def _swap(self, i: int, j: int) -> None:
        entries = self._entries
        entries[i], entries[j] = entries[j], entries[i]
        self._index[self._key(entries[i].item)] = i
        self._index[self._key(entries[j].item)] = j

    def _sift_up(self, index: int) -> bool:
        moved = False
        while index > 0:
            parent = (index - 1) // 2
            if not self._before(self._entries[index], self._entries[parent]):
                break
            self._swap(index, parent)
            index = parent
            moved = True
        return moved

    def _sift_down(self, index: int) -> None:
        size = len(self._entries)
        while True:
            smallest = index
            for child in (2 * index + 1, 2 * index + 2):
                if child < size and self._before(self._entries[child], self._entries[smallest]):
                    smallest = child
            if smallest == index:
                return
            self._swap(index, smallest)
            index = smallest
