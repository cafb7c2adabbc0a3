"""The objects a queueing hint receives, checked to be of the kind the plugin registered
for (upstream `util.As`): a wrong kind raises TypeError, which the queue counts as QUEUE."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def added_or_updated(kind: type[T], old: object, new: object) -> tuple[T | None, T]:
    """`(old, new)` of an add (old None) or an update event about a `kind`."""
    if not isinstance(new, kind):
        raise TypeError(f"expected {kind.__name__}, but got {type(new).__name__}")
    if old is not None and not isinstance(old, kind):
        raise TypeError(f"expected {kind.__name__}, but got {type(old).__name__}")
    return old, new


def updated(kind: type[T], old: object, new: object) -> tuple[T, T]:
    """`(old, new)` of an update event about a `kind` (both versions present)."""
    before, after = added_or_updated(kind, old, new)
    if before is None:
        raise TypeError(f"expected {kind.__name__}, but got NoneType")
    return before, after
