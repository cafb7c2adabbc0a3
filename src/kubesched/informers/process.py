"""The informer process: the list+watch HTTP, the JSON decoding and the parsing into slim
model objects of the hot informers (pods, nodes) in a child process, so the scheduling
thread only applies the decoded deltas (`kubesched.informers.deltas`).

`InformerProcess` starts the child (`argv`, given by the composition root) when the first
of its informers runs, sends it one settings frame (the connection settings and each
informer's path, field selector and kind), then reads delta frames from its stdout and hands
each delta to its `RemoteReflector`. A child that ends (killed, crashed, a corrupt stream)
is noticed at once (its stdout closes): its informers drop any list it had begun, and a new
child is started after a short backoff; it lists again, and each informer's list replaces
its store, reporting what changed meanwhile. Nothing is bound by the child, so nothing can
be bound twice; the scheduler's cache only lags while no child runs, as it does while an
in-process watch reconnects. `down_for()` tells the health checks how long no child has run.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

from kubesched.framework.logkv import kv
from kubesched.informers.deltas import Delta, DeltaError, DeltaReader, encode
from kubesched.informers.remote import RemoteReflector
from kubesched.kube.child_pipe import ChildPipe

log = logging.getLogger(__name__)

RESTART_BACKOFF_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)
"""Waits before restarting a child that died, one more step each time it dies in a row."""
STABLE_AFTER_SECONDS = 30.0
"""A child that ran this long resets the backoff."""


class InformerProcess:
    """One child process that lists and watches for the informers registered on it."""

    def __init__(self, argv: Sequence[str], settings: Mapping[str, Any]) -> None:
        self._argv = tuple(argv)
        self._settings = dict(settings)
        self._informers: list[RemoteReflector[Any]] = []
        self._specs: list[dict[str, str]] = []
        self._transport: asyncio.SubprocessTransport | None = None
        self._starting: asyncio.Task[None] | None = None
        self._restarter: asyncio.Task[None] | None = None
        self._attached = 0
        self._closing = False
        self._restarts = 0
        self._started_at = 0.0
        self._down_since: float | None = time.monotonic()
        self._reason = "not started yet"

    def register(self, reflector: RemoteReflector[Any], *, kind: str, field_selector: str) -> None:
        """Feed `reflector` from the child: `kind` names the child's decoder."""
        reflector.attach(self)
        self._informers.append(reflector)
        self._specs.append({"path": reflector.path, "kind": kind, "selector": field_selector})

    @property
    def pid(self) -> int | None:
        """The running child's process id (None while none runs)."""
        return None if self._transport is None else self._transport.get_pid()

    def down_for(self) -> float:
        """Seconds since the child died and none replaced it yet (0 while one runs)."""
        since = self._down_since
        return 0.0 if since is None or self._closing else time.monotonic() - since

    def down_reason(self) -> str:
        return self._reason

    async def attach(self) -> None:
        """An informer runs: start the child unless one runs or is starting."""
        self._attached += 1
        if self._transport is None and (self._closing or self._attached == 1):
            self._down_since = time.monotonic()  # not down while nothing asked for one
        self._closing = False
        if self._transport is None and self._restarter is None:
            if self._starting is None or self._starting.done():
                self._starting = asyncio.get_running_loop().create_task(self._first_start())
            await asyncio.shield(self._starting)

    def detach(self) -> None:
        """An informer stopped; the last one stops the child."""
        self._attached -= 1
        if self._attached <= 0:
            self.close()

    async def _first_start(self) -> None:
        try:
            await self._start()
        except OSError as exc:  # as a death: retried with backoff, the health says so
            log.error("informer process did not start", extra=kv(err=exc))  # noqa: TRY400
            self.exited(None, f"start failed: {exc}")

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.subprocess_exec(
            self._pipe, *self._argv, stdin=-1, stdout=-1, stderr=None
        )
        self._transport = transport
        self._started_at, self._down_since = time.monotonic(), None
        for informer in self._informers:
            informer.child_started()
        stdin = cast("asyncio.WriteTransport", transport.get_pipe_transport(0))
        stdin.write(encode([(-1, "settings", {**self._settings, "informers": self._specs})]))
        log.info("informer process started", extra=kv(pid=transport.get_pid()))

    def close(self) -> None:
        """Stop the child (its stdin closes; it exits) and restart no other."""
        self._closing = True
        if self._restarter is not None:
            self._restarter.cancel()
            self._restarter = None
        transport, self._transport = self._transport, None
        if transport is not None:
            stdin = transport.get_pipe_transport(0)
            if stdin is not None:
                stdin.close()
            if transport.get_returncode() is None:
                asyncio.get_running_loop().call_later(2.0, _kill, transport)

    def _pipe(self) -> ChildPipe[list[Delta]]:
        """The child's stdout: delta frames, read to the end when it exits."""
        reader = DeltaReader()
        return ChildPipe(
            feed=reader.feed,
            received=self.received,
            exited=self.exited,
            corrupt=(DeltaError,),
            what="delta stream",
        )

    def received(self, frames: Sequence[list[tuple[int, str, Any]]]) -> None:
        """Delta frames of the child, applied in order."""
        informers = self._informers
        for deltas in frames:
            for index, op, payload in deltas:
                try:
                    informers[index].apply(op, payload)
                except Exception:  # one delta never stops the others
                    log.exception("applying an informer delta failed", extra=kv(op=op))

    def exited(self, code: int | None, reason: str) -> None:
        """The child ended (or its stream was corrupt): start another."""
        transport, self._transport = self._transport, None
        if transport is not None:
            if transport.get_returncode() is None:
                transport.kill()
            transport.close()
        for informer in self._informers:
            informer.child_gone()
        if self._closing:
            return
        self._down_since, self._reason = time.monotonic(), reason
        log.error("informer process ended; starting another", extra=kv(code=code, reason=reason))
        if time.monotonic() - self._started_at > STABLE_AFTER_SECONDS:
            self._restarts = 0
        wait = RESTART_BACKOFF_SECONDS[min(self._restarts, len(RESTART_BACKOFF_SECONDS) - 1)]
        self._restarts += 1
        self._restarter = asyncio.get_running_loop().create_task(self._restart(wait))

    async def _restart(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self._restarter = None
        if self._closing:
            return
        try:
            await self._start()
        except OSError as exc:
            log.error("informer process did not start", extra=kv(err=exc))  # noqa: TRY400
            self.exited(None, f"start failed: {exc}")


def _kill(transport: asyncio.SubprocessTransport) -> None:
    if transport.get_returncode() is None:
        transport.kill()
