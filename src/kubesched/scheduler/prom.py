"""prometheus_client's Counter, Gauge and Histogram, with each labelled child remembered.

prometheus_client's `labels()` checks its arguments, converts every value to a string and
takes a lock on each call, several microseconds; the scheduling thread calls it many times
a pod (attempts, durations, event handling, the queue's incoming pods). These subclasses
look the child up by the values exactly as passed first, and fall back to `labels()` once
per new set of values; `remove()` and `clear()` forget what they remembered, so a removed
child is never served again. Exposition is prometheus_client's own.
"""

from __future__ import annotations

from typing import Any, Self

import prometheus_client

__all__ = ["Counter", "Gauge", "Histogram"]


class _RememberedChildren:
    """The memo of `labels()`; mixed in before a prometheus_client metric class."""

    _remembered: dict[tuple[object, ...], Any]

    def labels(self, *labelvalues: object, **labelkwargs: object) -> Self:
        if labelkwargs:
            return super().labels(*labelvalues, **labelkwargs)  # type: ignore[misc, no-any-return]
        try:
            remembered = self._remembered
        except AttributeError:
            remembered = self._remembered = {}
        child = remembered.get(labelvalues)
        if child is None:
            child = remembered[labelvalues] = super().labels(*labelvalues)  # type: ignore[misc]
        return child  # type: ignore[no-any-return]

    def remove(self, *labelvalues: Any) -> None:
        self._remembered = {}
        super().remove(*labelvalues)  # type: ignore[misc]

    def clear(self) -> None:
        self._remembered = {}
        super().clear()  # type: ignore[misc]


class Counter(_RememberedChildren, prometheus_client.Counter):
    """`prometheus_client.Counter` whose `labels()` remembers its children."""


class Gauge(_RememberedChildren, prometheus_client.Gauge):
    """`prometheus_client.Gauge` whose `labels()` remembers its children."""


class Histogram(_RememberedChildren, prometheus_client.Histogram):
    """`prometheus_client.Histogram` whose `labels()` remembers its children."""
