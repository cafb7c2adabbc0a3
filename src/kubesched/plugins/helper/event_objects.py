"""The two objects of a cluster event, as a queueing hint expects them (upstream `util.As`).

A hint gets `old` (None for an add) and `new` (None for a delete); another type than the
one its registration is about is a programming error upstream returns as an error, here a
TypeError, which the queue counts as QUEUE.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def event_objects(kind: type[T], old: object, new: object) -> tuple[T | None, T | None]:
    """`(old, new)` checked to be `kind` or None; raises TypeError otherwise."""
    checked_new = _checked(new, kind)
    return _checked(old, kind), checked_new


def added_or_updated(kind: type[T], old: object, new: object) -> tuple[T | None, T]:
    """`(old, new)` of an add (old None) or an update event about a `kind`."""
    before, after = event_objects(kind, old, new)
    if after is None:
        raise TypeError(f"expected {kind.__name__}, but got NoneType")
    return before, after


def updated(kind: type[T], old: object, new: object) -> tuple[T, T]:
    """`(old, new)` of an update event about a `kind` (both versions present)."""
    before, after = added_or_updated(kind, old, new)
    if before is None:
        raise TypeError(f"expected {kind.__name__}, but got NoneType")
    return before, after


def deleted(kind: type[T], old: object, new: object) -> T:
    """The object of a delete event about a `kind` (`old`; `new` is None or a `kind`)."""
    before, _ = event_objects(kind, old, new)
    if before is None:
        raise TypeError(f"expected {kind.__name__}, but got NoneType")
    return before


def _checked(obj: object, kind: type[T]) -> T | None:
    if obj is None or isinstance(obj, kind):
        return obj
    raise TypeError(f"expected {kind.__name__}, but got {type(obj).__name__}")
