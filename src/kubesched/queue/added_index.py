"""The unschedulable pool indexed for add events: an added object reaches only the pods whose
rejecting plugins' hints may answer QUEUE for it.

The composition root passes an `AddNarrowing` built from the hints' promises
(`framework.AddedIndex`): for each add event it covers, a pod entering the pool gets keys
(None: it hears every such add) and an added object names the keys it reaches. The pods an
add is offered to are those of its keys plus the keyless ones, in the pool's own order (the
order they entered it), and the hints are still asked about each: the index decides only
whom the queue need not ask, never where a pod goes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Protocol

from kubesched.queue.types import QueuedPodInfo


class AddNarrowing(Protocol):
    """Which pods an add event may help (see the module docstring)."""

    @property
    def events(self) -> frozenset[object]:
        """The add events it covers."""
        ...

    def pod_keys(self, event: object, qpi: QueuedPodInfo) -> frozenset[Hashable] | None: ...

    def added_keys(self, event: object, new: Any) -> Iterable[Hashable]: ...


class _EventIndex:
    __slots__ = ("by_key", "keyless")

    def __init__(self) -> None:
        self.by_key: dict[Hashable, set[str]] = {}
        self.keyless: set[str] = set()


class UnschedulableAddIndex:
    """The unschedulable pool's pods by key, per covered add event."""

    def __init__(self, narrowing: AddNarrowing) -> None:
        self._narrowing = narrowing
        self._events = {event: _EventIndex() for event in narrowing.events}
        self._held: dict[str, list[frozenset[Hashable] | None]] = {}
        self._order: dict[str, int] = {}
        self._next = 0

    def enter(self, qpi: QueuedPodInfo) -> None:
        """`qpi` is in the pool (again, with a new object: keyed anew, its place kept)."""
        uid = qpi.uid
        if uid in self._held:
            self._unkey(uid)
        else:
            self._order[uid] = self._next
            self._next += 1
        held = []
        for event, index in self._events.items():
            keys = self._narrowing.pod_keys(event, qpi)
            held.append(keys)
            if keys is None:
                index.keyless.add(uid)
                continue
            by_key = index.by_key
            for key in keys:
                found = by_key.get(key)
                if found is None:
                    by_key[key] = {uid}
                else:
                    found.add(uid)
        self._held[uid] = held

    def leave(self, uid: str) -> None:
        if uid in self._held:
            self._unkey(uid)
            del self._held[uid]
            del self._order[uid]

    def candidates(self, event: object, old: Any, new: Any) -> list[str] | None:
        """The pods (uids, in pool order) an add `event` of `new` may help; None when the
        event is not a covered add (every pod is asked)."""
        if old is not None or new is None:
            return None
        index = self._events.get(event)
        if index is None:
            return None
        found = set(index.keyless)
        by_key = index.by_key
        for key in self._narrowing.added_keys(event, new):
            uids = by_key.get(key)
            if uids:
                found |= uids
        order = self._order
        return sorted(found, key=order.__getitem__)

    def _unkey(self, uid: str) -> None:
        for (_event, index), keys in zip(self._events.items(), self._held[uid], strict=True):
            if keys is None:
                index.keyless.discard(uid)
                continue
            by_key = index.by_key
            for key in keys:
                found = by_key.get(key)
                if found is not None:
                    found.discard(uid)
                    if not found:
                        del by_key[key]
