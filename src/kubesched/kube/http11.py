"""A lean HTTP/1.1 client for the API server's ordinary requests (every request but watches).

A scheduler sends two requests per pod (the Binding and the Scheduled Event); through
aiohttp's request machinery (request and response objects, header multidicts, timers, a
stream reader) each cost about as much CPU as the scheduling cycle's Score phase
(docs/performance.md). Here a request is one preformatted head and body written to a
keep-alive connection, and the answer is parsed by an `asyncio.Protocol` straight into
status, headers and body.

`Pool` keeps at most `limit` connections to one server, each opened by its `Route` (TLS or
plain TCP, directly or through a proxy): a request takes an idle connection, opens one, or
waits for one to be released. Connections idle for longer
than `IDLE_SECONDS` are closed rather than reused (the API server closes idle ones after 90
s). A connection is reused only after a complete answer; a timeout, a cancel or a broken
answer closes it. A request on a reused connection that ended before any byte of the answer
came is sent once more on a new one when its method is idempotent (a POST is not: the server
may have acted on it). Answers with `Content-Encoding: gzip` are inflated.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, cast

from kubesched.errors import KubeschedError

if TYPE_CHECKING:
    from kubesched.kube.dial import Route

IDLE_SECONDS = 60.0
MAX_HEAD_BYTES = 64 * 1024
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
_NO_BODY_STATUS = frozenset({204, 304})
_HEX = frozenset(b"0123456789abcdefABCDEF")


Guard = Callable[[], None]
"""Called right before a request is written; raises to keep it from being sent."""


class HttpError(KubeschedError, OSError):
    """The connection failed, or the answer was not a well-formed HTTP/1.1 response."""


class _Stale(HttpError):
    """A reused connection ended before any byte of the answer arrived."""


class Response(NamedTuple):
    status: int
    headers: dict[str, str]  # names in lower case; a repeated header keeps its last value
    body: bytes


class Head(NamedTuple):
    status: int
    headers: dict[str, str]
    end: int  # offset of the body in the buffer


def parse_head(buffer: bytes | bytearray) -> Head | None:
    """The status line and headers at the start of `buffer`, or None while incomplete."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        if len(buffer) > MAX_HEAD_BYTES:
            raise HttpError(f"response head larger than {MAX_HEAD_BYTES} bytes")
        return None
    lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    code = rest[:3]
    if not version.startswith("HTTP/1.") or len(code) != 3 or not code.isdigit():
        raise HttpError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise HttpError(f"malformed header line: {line[:80]!r}")
        headers[name.strip().lower()] = value.strip()
    if version == "HTTP/1.0" and headers.get("connection", "").lower() != "keep-alive":
        headers["connection"] = "close"
    return Head(int(code), headers, end + 4)


def parse_chunked(buffer: bytes | bytearray, at: int, parts: list[bytes]) -> tuple[int, bool]:
    """Read the chunks of a chunked body that begin at `at` in `buffer`, appending each
    whole chunk's data to `parts`: the offset after the last whole chunk read, and whether
    the body (its last chunk and trailers) has ended. Called again as more bytes come, from
    that offset, so a large answer is read once."""
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            return at, False
        size_text = bytes(buffer[at:line_end]).split(b";", 1)[0].strip()
        if not size_text or any(char not in _HEX for char in size_text):
            raise HttpError(f"malformed chunk size {size_text[:20]!r}")
        size = int(size_text, 16)
        if size == 0:
            if buffer[line_end + 2 : line_end + 4] == b"\r\n":
                return line_end + 4, True
            trailers_end = buffer.find(b"\r\n\r\n", line_end)
            if trailers_end < 0:
                return at, False
            return trailers_end + 4, True
        data_start = line_end + 2
        data_end = data_start + size
        if len(buffer) < data_end + 2:
            return at, False
        if buffer[data_end : data_end + 2] != b"\r\n":
            raise HttpError("chunk not followed by CRLF")
        parts.append(bytes(buffer[data_start:data_end]))
        at = data_end + 2


class _Connection(asyncio.Protocol):
    """One keep-alive connection; one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.used = 0  # answers completed on this connection
        self.idle_since = time.monotonic()
        self._buffer = bytearray()
        self._waiter: asyncio.Future[Response] | None = None
        self._method = ""
        self._head: Head | None = None
        self._until_close = False
        self._chunks: list[bytes] = []  # the chunks of a chunked body read so far
        self._chunk_at = 0  # where the next chunk begins in the buffer

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast("asyncio.Transport", transport)

    def data_received(self, data: bytes) -> None:
        if self._waiter is None or self._waiter.done():
            self.close()  # bytes nobody asked for: the connection is out of step
            return
        self._buffer += data
        try:
            self._parse()
        except HttpError as exc:
            self._fail(exc)

    def eof_received(self) -> bool:
        if self._until_close and self._head is not None:
            self._finish(self._head, bytes(self._buffer[self._head.end :]), reusable=False)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._until_close and self._head is not None and exc is None:
            self._finish(self._head, bytes(self._buffer[self._head.end :]), reusable=False)
        if self._waiter is not None and not self._waiter.done():
            if self.used and not self._buffer and self._head is None:
                self._waiter.set_exception(_Stale("the server closed the idle connection"))
            else:
                reason = f": {exc}" if exc else ""
                self._fail(HttpError(f"the connection closed before the whole answer{reason}"))

    # requests

    def send(self, method: str, payload: bytes) -> asyncio.Future[Response]:
        if self.transport is None or self.closed:
            raise HttpError("the connection is closed")
        self._waiter = asyncio.get_running_loop().create_future()
        self._method = method
        self._head = None
        self._until_close = False
        self._buffer.clear()
        self.transport.write(payload)
        return self._waiter

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def _parse(self) -> None:
        head = self._head
        if head is None:
            head = parse_head(self._buffer)
            while head is not None and 100 <= head.status < 200:  # 100 Continue, 103 hints
                del self._buffer[: head.end]
                head = parse_head(self._buffer)
            if head is None:
                return
            self._head = head
            self._chunks, self._chunk_at = [], head.end
        headers = head.headers
        if self._method == "HEAD" or head.status in _NO_BODY_STATUS:
            self._finish(head, b"", reusable=True)
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            self._chunk_at, ended = parse_chunked(self._buffer, self._chunk_at, self._chunks)
            if ended:
                body = b"".join(self._chunks)
                self._finish(head, body, reusable=self._chunk_at == len(self._buffer))
        elif "content-length" in headers:
            length = _content_length(headers["content-length"])
            if len(self._buffer) >= head.end + length:
                body = bytes(self._buffer[head.end : head.end + length])
                self._finish(head, body, reusable=len(self._buffer) == head.end + length)
        else:
            self._until_close = True

    def _finish(self, head: Head, body: bytes, *, reusable: bool) -> None:
        waiter = self._waiter
        self._head = None
        self._buffer.clear()
        self._chunks = []
        self.used += 1
        self.idle_since = time.monotonic()
        if not reusable or head.headers.get("connection", "").lower() == "close":
            self.close()
        if head.headers.get("content-encoding", "").lower() == "gzip":
            try:
                body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
            except zlib.error as exc:
                if waiter is not None and not waiter.done():
                    waiter.set_exception(HttpError(f"the gzip body does not inflate: {exc}"))
                return
        if waiter is not None and not waiter.done():
            waiter.set_result(Response(head.status, head.headers, body))

    def _fail(self, exc: HttpError) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc)
        self.close()


def _content_length(value: str) -> int:
    if not value.isdigit():
        raise HttpError(f"malformed Content-Length {value[:20]!r}")
    return int(value)


class Pool:
    """Keep-alive connections to one server; see the module docstring."""

    def __init__(self, route: Route, *, limit: int, connect_timeout: float) -> None:
        self._route = route
        self._limit = max(1, limit)
        self._connect_timeout = connect_timeout
        self._idle: list[_Connection] = []
        self._connections: set[_Connection] = set()  # open ones, idle or in use
        self._open = 0  # connections open or being opened
        self._waiters: deque[asyncio.Future[_Connection | None]] = deque()
        self._closed = False

    async def request(
        self, method: str, payload: bytes, *, timeout: float, guard: Guard | None = None
    ) -> Response:
        """Send `payload` (a whole request: head and body) and return the answer. Raises
        HttpError (or TimeoutError after `timeout` seconds, the wait for a connection
        included). `guard` is called at the moment the payload would be written, once a
        connection is in hand: whatever it raises is raised, and nothing is sent."""
        deadline = time.monotonic() + timeout
        connection = await self._acquire(deadline)
        try:
            return await self._exchange(connection, method, payload, deadline, guard)
        except _Stale:
            if method not in IDEMPOTENT:
                raise
        connection = await self._acquire(deadline, fresh=True)
        return await self._exchange(connection, method, payload, deadline, guard)

    async def close(self) -> None:
        """Close every connection, idle or in use: requests in flight and those waiting for
        a connection fail (as aiohttp's session close does)."""
        self._closed = True
        for connection in list(self._connections):
            connection.close()
        self._idle.clear()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(HttpError("the connection pool is closed"))

    async def _exchange(
        self,
        connection: _Connection,
        method: str,
        payload: bytes,
        deadline: float,
        guard: Guard | None = None,
    ) -> Response:
        if guard is not None:
            try:
                guard()  # nothing awaited between this check and the write
            except BaseException:
                self._release(connection, reusable=True)
                raise
        reusable = False
        expiry: asyncio.TimerHandle | None = None
        try:
            # Inside the try: a connection closed by the server between its hand-over and
            # this send is released (dropped) like any other, not leaked from the count.
            waiter = connection.send(method, payload)
            expiry = asyncio.get_running_loop().call_later(
                max(deadline - time.monotonic(), 0.0), _expire, waiter
            )
            response = await waiter
            reusable = not connection.closed
            return response
        finally:
            if expiry is not None:
                expiry.cancel()
            self._release(connection, reusable=reusable)

    async def _acquire(self, deadline: float, *, fresh: bool = False) -> _Connection:
        if self._closed:
            raise HttpError("the connection pool is closed")
        now = time.monotonic()
        while self._idle and not fresh:
            connection = self._idle.pop()
            if not connection.closed and now - connection.idle_since < IDLE_SECONDS:
                return connection
            self._drop(connection)
        async with asyncio.timeout(max(deadline - now, 0.0)):
            if self._open < self._limit:
                return await self._connect()
            waiter: asyncio.Future[_Connection | None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                handed = await waiter
            except asyncio.CancelledError:
                self._pass_on(waiter)
                raise
            return handed if handed is not None else await self._connect()

    async def _connect(self) -> _Connection:
        self._open += 1
        try:
            async with asyncio.timeout(self._connect_timeout):
                _, connection = await self._route.open(_Connection)
        except BaseException:
            self._open -= 1
            self._wake_one()
            raise
        self._connections.add(connection)
        return connection

    def _pass_on(self, waiter: asyncio.Future[_Connection | None]) -> None:
        """A waiter was cancelled: what it had been handed goes to the next one."""
        if not waiter.done() or waiter.cancelled() or waiter.exception() is not None:
            return
        handed = waiter.result()
        if handed is None:
            self._wake_one()
        else:
            self._release(handed, reusable=True)

    def _release(self, connection: _Connection, *, reusable: bool) -> None:
        if not reusable or connection.closed or self._closed:
            self._drop(connection)
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return
        self._idle.append(connection)

    def _drop(self, connection: _Connection) -> None:
        connection.close()
        self._connections.discard(connection)
        self._open -= 1
        self._wake_one()

    def _wake_one(self) -> None:
        """A connection slot is free: the first waiter opens a new connection."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


def _expire(waiter: asyncio.Future[Response]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())
