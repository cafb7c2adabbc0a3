"""The two objects of a cluster event, as a queueing hint expects them (upstream `util.As`).

A hint gets `old` (None for an add) and `new` (None for a delete); another type than the
one its registration is about is a programming error upstream returns as an error, here a
TypeError, which the queue counts as QUEUE.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def event_objects(old: object, new: object, kind: type[T]) -> tuple[T | None, T | None]:
    """`(old, new)` checked to be `kind` or None; raises TypeError otherwise."""
    checked_new = _checked(new, kind)
    return _checked(old, kind), checked_new


def _checked(obj: object, kind: type[T]) -> T | None:
    if obj is None or isinstance(obj, kind):
        return obj
    raise TypeError(f"expected {kind.__name__}, but got {type(obj).__name__}")
