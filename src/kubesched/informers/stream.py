"""The informer process's reflector: lists and watches as `Reflector` does (paging,
bookmarks, resume, 410 relist, backoff, malformed objects skipped) but keeps no store;
each list step and watch object becomes a delta (`kubesched.informers.deltas`) for the
scheduler, whose `RemoteReflector` keeps the store and calls the handlers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from kubesched.informers.deltas import LIST_ENDED, LIST_STARTED, LISTED
from kubesched.informers.reflector import IgnoreEvents, Reflector

T = TypeVar("T")

Emit = Callable[[str, Any], None]
"""Sends one delta (op, payload) of this informer."""


class StreamingReflector(Reflector[T]):
    """A Reflector whose list pages and watch objects go to `emit`, not into a store."""

    def __init__(self, *args: Any, emit: Emit, **kwargs: Any) -> None:
        kwargs.setdefault("handler", IgnoreEvents())
        super().__init__(*args, **kwargs)
        self._emit = emit

    def _list_started(self) -> None:
        self._emit(LIST_STARTED, None)

    def _listed(self, objects: list[T]) -> None:
        if objects:
            self._emit(LISTED, objects)

    def _list_ended(self) -> None:
        self._emit(LIST_ENDED, self.resource_version)

    def _changed(self, kind: str, obj: T) -> None:
        self._emit(kind, obj)
