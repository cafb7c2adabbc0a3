"""The scheduler's end of a child process's stdout, read as frames: the protocol the writer
process (`kube.writer_process`) and the informer process (`informers.process`) start their
child with."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar, cast

Frame = TypeVar("Frame")

COALESCE_SECONDS = 0.002
"""How long a frame waits for others before a write to a pipe between the scheduler and a
child: the frames queued meanwhile go out in one system call, which wakes the other process
once (a wake-up costs the writer several microseconds of CPU, whatever the size); a pod
makes two to three frames each way."""


class ChildPipe(asyncio.SubprocessProtocol, Generic[Frame]):
    """`feed(data)` parses the child's stdout into complete frames (raising one of `corrupt`
    on a corrupt stream), `received(frames)` takes them; `exited(code, reason)` is called
    once: for a corrupt stream (`corrupt <what>: ...`, code None) or when the child exited
    and its pipes were read to the end (no frame is lost)."""

    def __init__(
        self,
        *,
        feed: Callable[[bytes], Sequence[Frame]],
        received: Callable[[Sequence[Frame]], None],
        exited: Callable[[int | None, str], None],
        corrupt: tuple[type[Exception], ...],
        what: str,
    ) -> None:
        self._feed, self._received, self._exited = feed, received, exited
        self._corrupt, self._what = corrupt, what
        self._failed = False
        self._transport: asyncio.SubprocessTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast("asyncio.SubprocessTransport", transport)  # uvloop's is no subclass

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd != 1 or self._failed:
            return
        try:
            frames = self._feed(data)
        except self._corrupt as exc:
            self._failed = True
            self._exited(None, f"corrupt {self._what}: {exc}")
            return
        self._received(frames)

    def connection_lost(self, _exc: Exception | None) -> None:
        if self._failed:
            return
        self._failed = True
        code = None if self._transport is None else self._transport.get_returncode()
        reason = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        self._exited(code, reason)
