"""`RemoteReflector`: the scheduler's side of an informer whose list+watch, JSON decoding
and parsing run in the informer process (`kubesched.informers.process`).

It is a Reflector to everything that reads one (its store, `synced`, `health()`, `run()`),
and it applies the child's deltas with the Reflector's own steps: a list's objects replace
the store, reporting the adds, updates and deletes between (so the relist of a restarted
child reconciles the cache with what changed while none ran), a watch object goes into the
store and to the handler. Its health is the child reflector's (sent every second) while a
child runs, and says the process is gone while none does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

from kubesched.framework.logkv import kv
from kubesched.informers.deltas import HEALTH, LIST_ENDED, LIST_STARTED, LISTED, WATCH_OPS
from kubesched.informers.health import InformerHealth
from kubesched.informers.reflector import EventHandler, Reflector
from kubesched.kube.api import WatchApi

log = logging.getLogger(__name__)

T = TypeVar("T")

DOWN_TOLERANCE_SECONDS = 15.0
"""How long no child may run (killed, being restarted) before the informer reads as
stalled (/livez fails): longer than the process's longest restart backoff."""
SILENT_AFTER_SECONDS = 10.0
"""A running child that sent no health for this long is stuck: the informer reads as
stalled."""


class ChildState(Protocol):
    """What a RemoteReflector asks of its process."""

    def down_for(self) -> float: ...
    def down_reason(self) -> str: ...
    async def attach(self) -> None: ...
    def detach(self) -> None: ...


class RemoteReflector(Reflector[T]):
    """The store and handlers of one informer fed by the informer process."""

    def __init__(
        self,
        *,
        path: str,
        key: Callable[[T], str],
        version: Callable[[T], str],
        handler: EventHandler[T],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # The child lists and watches; this side never sends a request.
        super().__init__(
            cast("WatchApi", None),
            path=path,
            decode=_never,
            key=key,
            version=version,
            handler=handler,
            clock=clock,
        )
        self._process: ChildState | None = None
        self._child_health: tuple[bool, bool, str, float] = (False, False, "", 0.0)
        self._heard = clock()

    def attach(self, process: ChildState) -> None:
        """The process whose child feeds this informer (set once, before `run`)."""
        self._process = process

    async def run(self) -> None:
        """Start the child if none runs, then keep this informer until cancelled."""
        if self._process is None:
            raise RuntimeError(f"{self.path}: remote informer without a process")
        self._running, self._stopped = True, False
        self._heard = self._clock()
        try:
            await self._process.attach()
            await asyncio.Event().wait()
        finally:
            self._running, self._stopped = False, True
            self._process.detach()

    def apply(self, op: str, payload: Any) -> None:
        """One delta of the child."""
        self._progress = self._clock()
        if op in WATCH_OPS:
            self.resource_version = self._version(payload) or self.resource_version
            self._changed(op, payload)
        elif op == LISTED:
            self._listed(payload)
        elif op == HEALTH:
            synced, stalled, error, failing_for = payload
            self._child_health = (bool(synced), bool(stalled), str(error), float(failing_for))
            self._heard = self._clock()
        elif op == LIST_STARTED:
            self._list_started()
        elif op == LIST_ENDED:
            self.resource_version = str(payload)
            self._list_ended()
            self.relists += 1
            self.synced.set()
        else:
            log.warning("unknown informer delta", extra=kv(path=self.path, op=op))

    def child_started(self) -> None:
        """A child (re)started: it has until SILENT_AFTER_SECONDS to report."""
        self._heard = self._clock()

    def child_gone(self) -> None:
        """The child ended: a list it had begun is dropped (the next child lists anew)."""
        self._fresh = {}
        self._child_health = (False, False, "", 0.0)

    def health(self) -> InformerHealth:
        now = self._clock()
        down = 0.0 if self._process is None or not self._running else self._process.down_for()
        synced = self.synced.is_set()
        if down > 0.0:
            reason = self._process.down_reason() if self._process is not None else ""
            return InformerHealth(
                path=self.path,
                synced=synced,
                dead=self._stopped,
                stalled=down > DOWN_TOLERANCE_SECONDS,
                error=f"the informer process is not running ({reason}); restarting it",
                failing_for=down,
            )
        _, stalled, error, failing_for = self._child_health
        silent = self._running and now - self._heard > SILENT_AFTER_SECONDS
        return InformerHealth(
            path=self.path,
            synced=synced,
            dead=self._stopped,
            stalled=stalled or silent,
            error=error or ("the informer process sends nothing" if silent else ""),
            failing_for=failing_for,
        )


def _never(_raw: dict[str, Any]) -> Any:
    raise RuntimeError("a remote informer decodes nothing: its process does")
