"""The writer process's main: `python -m kubesched.server.writer_child`, started by the
scheduler (`kubesched.kube.writer_process`), never by a user.

It reads frames (`kubesched.kube.writer_frames`) from stdin: first the settings (the same
kubeconfig/master the scheduler connected with, loaded the same way, the content type, the
timeout, the log settings), then requests, each sent at once on its own task through one
KubeClient and answered on stdout with the raw answer. A fenced request (its frame carries a
fence time) is not written to the socket once `time.monotonic()` passes the newest fence
time the scheduler sent (`kubesched.kube.fence`'s check, across the process boundary: the
monotonic clock is the host's). Event frames go to its event recorder
(`kubesched.server.writer_events`), which writes with a client of its own and reports its
samples and drops unasked. SIGINT/SIGTERM are left to the scheduler, which drains and
then closes stdin: the child ends its writes (the events left too) and exits 0; it exits
too when the scheduler dies (stdin closes), after its last writes, which the fence stops
within renewDeadline.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import signal
import sys
import time
from typing import Any

from kubesched.framework.logkv import kv
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.kube.errors import ApiError, Fenced
from kubesched.kube.writer_frames import (
    CONNECTION_FAILED,
    FENCED,
    FrameError,
    FrameReader,
    Observation,
    encode,
    mark_retry,
)
from kubesched.scheduler.event_frames import DRAIN, EVENT
from kubesched.server import eventloop
from kubesched.server.logs import setup_logging
from kubesched.server.writer_events import ChildEvents

log = logging.getLogger("kubesched.writer")

UNLIMITED = 1_000_000_000
_OBSERVED: contextvars.ContextVar[list[Observation]] = contextvars.ContextVar("observed")


def _observe(method: str, host: str, code: str, seconds: float) -> None:
    _OBSERVED.get().append((method, host, code, seconds, False))


def _observe_retry(method: str, host: str, code: str) -> None:  # noqa: ARG001
    mark_retry(_OBSERVED.get(), method, code)


class _Writer:
    """Sends the requests of the frames it is fed; answers through `out`."""

    def __init__(self, out: asyncio.WriteTransport) -> None:
        self._out = out
        self._client: KubeClient | None = None
        self._fence_until = 0.0
        self._tasks: set[asyncio.Task[None]] = set()
        self._connected = asyncio.Event()
        self._outbox: list[bytes] = []
        self._events: ChildEvents | None = None
        self._early_events: list[Any] = []
        """Event frames that came before the connection was made."""

    def _fenced(self) -> bool:
        return time.monotonic() >= self._fence_until

    async def connect(self, settings: dict[str, Any]) -> None:
        setup_logging(
            verbosity=int(settings.get("verbosity", 0)),
            logging_format=str(settings.get("logging_format", "text")),
        )
        connection = await load_connection(
            kubeconfig=str(settings.get("kubeconfig", "")), master=str(settings.get("master", ""))
        )
        self._client = KubeClient(
            connection,
            # The scheduler's clients take their tokens before they send.
            qps=UNLIMITED,
            burst=UNLIMITED,
            timeout=float(settings.get("timeout", 30.0)),
            max_connections=int(settings.get("max_connections", 64)),
            content_type=str(settings["content_type"]),
            observe=_observe,
            observe_retry=_observe_retry,
        )
        self._events = ChildEvents(connection, settings, self._answer)
        for fields in self._early_events:
            self._events.record(fields)
        self._early_events.clear()
        self._connected.set()

    def feed(self, header: dict[str, Any]) -> None:
        if EVENT in header:
            if self._events is None:
                self._early_events.append(header[EVENT])
            else:
                self._events.record(header[EVENT])
            return
        if DRAIN in header:
            self._spawn(self._events_written(int(header[DRAIN])))
            return
        fence = header.get("f")
        if isinstance(fence, int | float):
            self._fence_until = float(fence)
        if "d" in header:
            self._spawn(self._drained(int(header["d"]), set(self._tasks)))
        elif "i" in header:
            self._spawn(self._send(header))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drained(self, request_id: int, before: set[asyncio.Task[None]]) -> None:
        if before:
            await asyncio.wait(before)
        self._answer({"i": request_id, "s": 200})

    async def _events_written(self, request_id: int) -> None:
        await self._connected.wait()
        assert self._events is not None
        await self._events.drain()
        self._answer({"i": request_id, "s": 200})

    async def _send(self, header: dict[str, Any]) -> None:
        request_id = header["i"]
        observed: list[Observation] = []
        _OBSERVED.set(observed)
        fenced = header.get("f") is not None
        try:
            await self._connected.wait()
            assert self._client is not None
            status, raw = await self._client.request_raw(
                str(header["m"]),
                str(header["p"]),
                body=header.get("b"),
                params=header.get("q"),
                content_type=str(header["c"]),
                timeout=float(header["t"]),
                fence=self._fenced if fenced else None,
            )
        except Fenced as exc:
            self._answer({"i": request_id, "s": FENCED, "e": exc.message})
        except ApiError as exc:
            self._answer({"i": request_id, "s": CONNECTION_FAILED, "e": str(exc)})
        except Exception as exc:  # one request never ends the writer
            log.exception("write failed", extra=kv(path=header.get("p")))
            self._answer({"i": request_id, "s": CONNECTION_FAILED, "e": f"writer: {exc!r}"})
        else:
            self._answer({"i": request_id, "s": status, "n": len(raw), "o": observed}, raw)

    def _answer(self, header: dict[str, Any], body: bytes = b"") -> None:
        """Queue an answer; those of one turn of the event loop go out in one write."""
        self._outbox.append(encode(header, body))
        if len(self._outbox) == 1:
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        frames, self._outbox = self._outbox, []
        if frames and not self._out.is_closing():
            self._out.write(b"".join(frames))

    async def finish(self) -> None:
        while self._tasks:
            await asyncio.wait(set(self._tasks))
        if self._events is not None:
            await self._events.close()
        if self._client is not None:
            await self._client.close()
        self._flush()


class _Input(asyncio.Protocol):
    def __init__(self, writer: _Writer, connected: asyncio.Future[None]) -> None:
        self._writer = writer
        self._frames = FrameReader()
        self._settings: dict[str, Any] | None = None
        self._connected = connected
        self.closed = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        try:
            frames = self._frames.feed(data)
        except FrameError as exc:
            log.error("corrupt request stream; exiting", extra=kv(err=exc))  # noqa: TRY400
            self.eof_received()
            return
        for header, _ in frames:
            if self._settings is None:
                self._settings = header.get("settings") or {}
                self._connected.set_result(None)
            else:
                self._writer.feed(header)

    def eof_received(self) -> bool | None:
        if not self.closed.done():
            self.closed.set_result(None)
        return None

    def connection_lost(self, _exc: Exception | None) -> None:
        self.eof_received()

    @property
    def settings(self) -> dict[str, Any]:
        return self._settings or {}


async def _serve() -> int:
    loop = asyncio.get_running_loop()
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout.buffer)
    writer = _Writer(out)
    connected: asyncio.Future[None] = loop.create_future()
    _, reader = await loop.connect_read_pipe(lambda: _Input(writer, connected), sys.stdin.buffer)
    await asyncio.wait({connected, reader.closed}, return_when=asyncio.FIRST_COMPLETED)
    if connected.done():
        await writer.connect(reader.settings)
    await reader.closed
    await writer.finish()
    out.close()
    return 0


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        return eventloop.run(_serve())
    except Exception as exc:  # a start-up failure: one line, the scheduler restarts it
        print(f"kubesched writer process: {exc}", file=sys.stderr)  # noqa: T201
        return 1


if __name__ == "__main__":
    sys.exit(main())
