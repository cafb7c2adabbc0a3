"""The writer process: the scheduler's API writes (Bindings, status patches, ...) sent by a
child process, and its events recorded there, so the scheduling thread does not spend its
time on HTTP.

`WriterProcess` starts the child (`argv`, given by the composition root), sends it the
connection settings as its first frame, then requests (`kubesched.kube.writer_frames`), and
matches the answers to the waiting callers. Each request carries the fence of the client
that sends it (`fence()`: the monotonic time until which its Lease is known renewed), so the
child refuses a write at the moment it would go out exactly as `kubesched.kube.fence` does
in process. A child that dies (killed, crashed) fails the requests it held with
ConnectionFailed (the binding cycle treats them as any failed write: forget, requeue; the API
server refuses a second binding of a pod, so nothing is bound twice) and is started again
after a short backoff; `down_for()` tells the health check how long no child has run.

Besides requests, `notify()` sends one-way frames (the events the child records) and
`drain_notices()` waits until the child has written what they asked for; frames the child
sends unasked (its reports: `rest_client_*` samples, dropped events) go to `on_report`.
A report's `"s"` counts the one-way frames the child has settled; when it dies, those it
was sent beyond are reported lost (`{"lost": count}`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from kubesched.framework.logkv import kv
from kubesched.kube.child_pipe import COALESCE_SECONDS, ChildPipe
from kubesched.kube.errors import ConnectionFailed, Fenced
from kubesched.kube.writer_frames import (
    CONNECTION_FAILED,
    FENCED,
    FrameError,
    FrameReader,
    Observation,
    encode,
)

log = logging.getLogger(__name__)

ANSWER_GRACE_SECONDS = 5.0
"""How much longer than a request's own timeout its answer may take before giving up."""
WATCHDOG_SECONDS = 1.0
"""How often overdue answers are looked for."""
RESTART_BACKOFF_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)
"""Waits before restarting a child that died, one more step each time it dies in a row."""
STABLE_AFTER_SECONDS = 30.0
"""A child that ran this long resets the backoff."""
MAX_HELD_NOTICES = 5000
"""One-way frames kept while no child runs, sent to the next one."""

Fence = Callable[[], float | None]
"""The monotonic time until which writes may be sent; None: never fenced."""
Answer = tuple[int, bytes, list[Observation]]
Report = Callable[[dict[str, Any]], None]
"""Takes a frame the child sent unasked (no request id)."""


class WriterProcess:
    """One child process that sends the writes of every client built on it."""

    def __init__(
        self, argv: Sequence[str], settings: Mapping[str, Any], *, on_report: Report | None = None
    ) -> None:
        self._argv = tuple(argv)
        self._settings = dict(settings)
        self._on_report = on_report
        self._held: list[bytes] = []
        """One-way frames waiting for a child to run."""
        self._notified = 0
        """One-way frames sent to the running child."""
        self._settled = 0
        """Of those, how many it said it settled."""
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Answer]] = {}
        self._transport: asyncio.SubprocessTransport | None = None
        self._ready: asyncio.Event | None = None
        self._closing = False
        self._restarts = 0
        self._started_at = 0.0
        self._down_since: float | None = time.monotonic()
        self._restarter: asyncio.Task[None] | None = None
        self._gone = asyncio.Event()
        """Set while no child runs."""
        self._outbox: list[bytes] = []
        self._overdue_at: dict[int, float] = {}
        self._watchdog: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        """The running child's process id (None while none runs)."""
        return None if self._transport is None else self._transport.get_pid()

    def down_for(self) -> float:
        """Seconds since the child died and none replaced it yet (0 while one runs)."""
        since = self._down_since
        return 0.0 if since is None or self._closing else time.monotonic() - since

    async def start(self) -> None:
        """Start the child (idempotent while one runs)."""
        if self._transport is not None or self._closing:
            return
        loop = asyncio.get_running_loop()
        self._ready = self._ready or asyncio.Event()
        transport, _ = await loop.subprocess_exec(
            self._pipe, *self._argv, stdin=-1, stdout=-1, stderr=None
        )
        self._transport = transport
        self._outbox = []
        if self._watchdog is None:
            self._watchdog = loop.create_task(self._watch_overdue(), name="writer watchdog")
        self._gone.clear()
        self._started_at, self._down_since = time.monotonic(), None
        self._send(encode({"settings": self._settings}))
        held, self._held = self._held, []
        for frame in held:
            self._send(frame)
        self._notified, self._settled = len(held), 0
        self._ready.set()
        log.info("writer process started", extra=kv(pid=transport.get_pid()))

    async def write(
        self,
        method: str,
        path: str,
        *,
        body: Any,
        params: Mapping[str, str] | None,
        content_type: str,
        timeout: float,
        fence: float | None,
    ) -> Answer:
        """Send one request through the child; its (status, body, observations)."""
        await self._wait_running(timeout)
        request_id = next(self._ids)
        answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = answer
        header = {"i": request_id, "m": method, "p": path, "b": body, "c": content_type}
        header.update(t=timeout, f=fence, q=dict(params) if params else None)
        # No timer a request: the watchdog fails answers overdue (checked every second).
        self._overdue_at[request_id] = time.monotonic() + timeout + ANSWER_GRACE_SECONDS
        try:
            self._send(encode(header))
            return await answer
        finally:
            self._pending.pop(request_id, None)
            self._overdue_at.pop(request_id, None)

    def notify(self, header: dict[str, Any]) -> bool:
        """Send a one-way frame (no answer); while no child runs it is kept for the next
        one (up to `MAX_HELD_NOTICES`). False when it could not be kept."""
        frame = encode(header)
        if self._stdin() is not None:
            self._send(frame)
            self._notified += 1
            return True
        if self._closing or len(self._held) >= MAX_HELD_NOTICES:
            return False
        self._held.append(frame)
        return True

    async def drain_notices(self, key: str, timeout: float) -> bool:
        """Ask the child (frame `{key: id}`) to finish the work the one-way frames sent so
        far started, and wait for its answer; False on timeout, or while frames are held
        for want of a child."""
        if self._transport is None:
            return not self._held
        return await self._ask({}, key, timeout)

    async def close_fence(self, timeout: float) -> bool:
        """Close the fence of every fenced client now and wait until the child's writes
        that started before have ended (before the Lease is released); False on timeout."""
        if self._transport is None:
            return True
        return await self._ask({"f": 0.0}, "d", timeout)

    async def _ask(self, header: dict[str, Any], key: str, timeout: float) -> bool:
        """Send `header` with a new request id under `key`; True once answered in time."""
        request_id = next(self._ids)
        done: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = done
        try:
            self._send(encode({**header, key: request_id}))
            async with asyncio.timeout(timeout):
                await done
        except (TimeoutError, ConnectionFailed):
            return False
        finally:
            self._pending.pop(request_id, None)
        return True

    async def close(self, timeout: float = 10.0) -> None:
        """Let the child finish its writes (its stdin closes) and wait for it to exit."""
        self._closing = True
        for task in (self._restarter, self._watchdog):
            if task is not None:
                task.cancel()
        transport = self._transport
        if transport is None:
            return
        self._flush()
        stdin = transport.get_pipe_transport(0)
        if stdin is not None:
            stdin.close()
        try:
            async with asyncio.timeout(timeout):
                await self._gone.wait()
        except TimeoutError:
            transport.kill()

    def _stdin(self) -> asyncio.WriteTransport | None:
        transport = self._transport
        stdin = None if transport is None else transport.get_pipe_transport(0)
        if stdin is None or stdin.is_closing():
            return None
        return cast("asyncio.WriteTransport", stdin)

    def _send(self, frame: bytes) -> None:
        """Queue a frame; the frames queued within `COALESCE_SECONDS` go out in one write
        (one system call, one wake-up of the child)."""
        if self._stdin() is None:
            raise ConnectionFailed("the writer process is not running")
        self._outbox.append(frame)
        if len(self._outbox) == 1:
            asyncio.get_running_loop().call_later(COALESCE_SECONDS, self._flush)

    def _flush(self) -> None:
        frames, self._outbox = self._outbox, []
        stdin = self._stdin()
        if frames and stdin is not None:
            stdin.write(b"".join(frames))

    async def _watch_overdue(self) -> None:
        """Fail the requests whose answer is overdue (a child that hangs, not one that died:
        that one is noticed at once)."""
        while True:
            await asyncio.sleep(WATCHDOG_SECONDS)
            now = time.monotonic()
            for request_id in [i for i, due in self._overdue_at.items() if due <= now]:
                answer = self._pending.get(request_id)
                if answer is not None and not answer.done():
                    answer.set_exception(
                        ConnectionFailed("no answer from the writer process in time")
                    )

    async def _wait_running(self, timeout: float) -> None:
        if self._transport is not None:
            return
        if self._closing or self._ready is None:
            raise ConnectionFailed("the writer process is not running (kubesched is stopping)")
        try:
            async with asyncio.timeout(timeout):
                await self._ready.wait()
        except TimeoutError:
            raise ConnectionFailed("the writer process is not running") from None

    def _pipe(self) -> ChildPipe[tuple[dict[str, Any], bytes]]:
        """The child's stdout: answer frames, read to the end when it exits."""
        reader = FrameReader()
        return ChildPipe(
            feed=reader.feed,
            received=self._answers,
            exited=self.exited,
            corrupt=(FrameError,),
            what="answer stream",
        )

    def _answers(self, frames: Sequence[tuple[dict[str, Any], bytes]]) -> None:
        for header, body in frames:
            self.answered(header, body)

    def answered(self, header: dict[str, Any], body: bytes) -> None:
        """An answer frame from the child (or a report, which has no request id)."""
        if "i" not in header:
            settled = header.get("s")
            if isinstance(settled, int):
                self._settled = settled
            if self._on_report is not None:
                self._on_report(header)
            return
        answer = self._pending.get(header["i"])
        if answer is None or answer.done():
            return  # its caller gave up (timeout) before it came
        status = int(header.get("s", CONNECTION_FAILED))
        message = str(header.get("e", ""))
        if status == CONNECTION_FAILED:
            answer.set_exception(ConnectionFailed(message))
        elif status == FENCED:
            answer.set_exception(Fenced(message))
        else:
            observed: list[Observation] = [
                (str(m), str(h), str(c), float(t), bool(r)) for m, h, c, t, r in header.get("o", ())
            ]
            answer.set_result((status, body, observed))

    def exited(self, code: int | None, reason: str) -> None:
        """The child ended (or its stream was corrupt): fail what it held, start another."""
        transport, self._transport = self._transport, None
        if transport is not None:
            if transport.get_returncode() is None:
                transport.kill()
            transport.close()
        if self._ready is not None:
            self._ready.clear()
        self._gone.set()
        self._down_since = time.monotonic()
        failure = ConnectionFailed(
            f"the writer process ended ({reason}); the write may or may not have been applied"
        )
        for answer in self._pending.values():
            if not answer.done():
                answer.set_exception(failure)
        lost, self._notified, self._settled = self._notified - self._settled, 0, 0
        if lost > 0 and self._on_report is not None:
            self._on_report({"lost": lost})
        if self._closing:
            return
        log.error("writer process ended; starting another", extra=kv(code=code, reason=reason))
        if time.monotonic() - self._started_at > STABLE_AFTER_SECONDS:
            self._restarts = 0
        wait = RESTART_BACKOFF_SECONDS[min(self._restarts, len(RESTART_BACKOFF_SECONDS) - 1)]
        self._restarts += 1
        self._restarter = asyncio.get_running_loop().create_task(self._restart(wait))

    async def _restart(self, wait: float) -> None:
        await asyncio.sleep(wait)
        try:
            await self.start()
        except OSError as exc:
            log.error("writer process did not start", extra=kv(err=exc))  # noqa: TRY400 - one line
            self.exited(None, f"start failed: {exc}")
