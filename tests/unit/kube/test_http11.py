"""The lean HTTP/1.1 pool against a raw TCP server that answers with scripted bytes: framing
(Content-Length, chunked, until close, 1xx), keep-alive reuse, gzip, timeouts, stale idle
connections, the connection limit, cancels and close."""

from __future__ import annotations

import asyncio
import gzip
import time
from collections.abc import AsyncIterator, Callable

import pytest

from kubesched.kube import http11
from kubesched.kube.dial import Route
from kubesched.kube.http11 import HttpError, Pool, parse_chunked, parse_head

GET = b"GET /x HTTP/1.1\r\nHost: h\r\n\r\n"
POST = b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"


def ok(body: bytes = b'{"a":1}', extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), extra, body)


class Server:
    """Answers each request with the next scripted reply: bytes to write (then keep the
    connection), a callable that gets the writer (to close, dribble or stay silent)."""

    def __init__(self) -> None:
        self.replies: list[bytes | Callable[[asyncio.StreamWriter], object]] = []
        self.connections = 0
        self.requests: list[bytes] = []
        self.port = 0
        self._writers: list[asyncio.StreamWriter] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._writers.append(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                self.requests.append(head + await reader.readexactly(length))
                reply = self.replies.pop(0)
                if isinstance(reply, bytes):
                    writer.write(reply)
                else:
                    result = reply(writer)
                    if asyncio.iscoroutine(result):
                        await result
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def drop_all(self) -> None:
        for writer in self._writers:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    scripted = Server()
    tcp = await asyncio.start_server(scripted.handle, "127.0.0.1", 0)
    scripted.port = tcp.sockets[0].getsockname()[1]
    async with tcp:
        yield scripted
        scripted.drop_all()


def pool_for(server: Server, limit: int = 4) -> Pool:
    return Pool(Route("127.0.0.1", server.port), limit=limit, connect_timeout=5.0)


async def test_content_length_answers_reuse_one_connection(server: Server) -> None:
    server.replies = [ok(b"one"), ok(b"two", b"Retry-After: 3\r\n")]
    pool = pool_for(server)
    first = await pool.request("GET", GET, timeout=5)
    second = await pool.request("POST", POST, timeout=5)
    assert (first.status, first.body) == (200, b"one")
    assert (second.body, second.headers["retry-after"]) == (b"two", "3")
    assert server.connections == 1
    assert server.requests[1].endswith(b"{}")
    await pool.close()


async def test_a_chunked_answer_with_extensions_and_trailers(server: Server) -> None:
    chunked = (
        b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"4;ext=1\r\nabcd\r\n3\r\nefg\r\n0\r\nX-Trailer: t\r\n\r\n"
    )
    server.replies = [chunked, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"]
    pool = pool_for(server)
    answer = await pool.request("POST", POST, timeout=5)
    assert (answer.status, answer.body) == (201, b"abcdefg")
    assert (await pool.request("GET", GET, timeout=5)).body == b""
    assert server.connections == 1
    await pool.close()


async def test_an_answer_in_single_bytes(server: Server) -> None:
    reply = b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b"dribbled")

    async def dribble(writer: asyncio.StreamWriter) -> None:
        for byte in reply:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0)

    server.replies = [dribble]
    pool = pool_for(server)
    assert (await pool.request("GET", GET, timeout=5)).body == b"dribbled"
    await pool.close()


async def test_gzip_is_inflated(server: Server) -> None:
    body = gzip.compress(b'{"items":[]}')
    server.replies = [ok(body, b"Content-Encoding: gzip\r\n")]
    pool = pool_for(server)
    assert (await pool.request("GET", GET, timeout=5)).body == b'{"items":[]}'
    await pool.close()


async def test_connection_close_and_a_body_until_close(server: Server) -> None:
    def until_close(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\n\r\nall of it")
        writer.close()

    server.replies = [ok(b"a", b"Connection: close\r\n"), until_close, ok(b"c")]
    pool = pool_for(server)
    assert (await pool.request("GET", GET, timeout=5)).body == b"a"
    assert (await pool.request("GET", GET, timeout=5)).body == b"all of it"
    assert (await pool.request("GET", GET, timeout=5)).body == b"c"
    assert server.connections == 3
    await pool.close()


async def test_a_malformed_answer_fails_and_the_connection_is_not_reused(server: Server) -> None:
    server.replies = [b"SMTP ready\r\n\r\n", ok()]
    pool = pool_for(server)
    with pytest.raises(HttpError, match=r"not an HTTP/1\.1 status line"):
        await pool.request("GET", GET, timeout=5)
    assert (await pool.request("GET", GET, timeout=5)).status == 200
    assert server.connections == 2
    await pool.close()


async def test_a_timeout_closes_the_connection(server: Server) -> None:
    server.replies = [lambda writer: None, ok()]
    pool = pool_for(server)
    with pytest.raises(TimeoutError):
        await pool.request("GET", GET, timeout=0.2)
    assert (await pool.request("GET", GET, timeout=5)).status == 200
    assert server.connections == 2
    await pool.close()


def close_silently(writer: asyncio.StreamWriter) -> None:
    writer.close()


async def test_a_connection_closed_while_idle_is_not_used(server: Server) -> None:
    server.replies = [ok(), ok(b"again")]
    pool = pool_for(server)
    await pool.request("GET", GET, timeout=5)
    server.drop_all()  # the server ends the idle connection
    await asyncio.sleep(0.05)
    assert (await pool.request("GET", GET, timeout=5)).body == b"again"
    assert server.connections == 2
    await pool.close()


async def test_a_get_the_server_drops_on_a_reused_connection_is_sent_again(
    server: Server,
) -> None:
    server.replies = [ok(), close_silently, ok(b"again")]
    pool = pool_for(server)
    await pool.request("GET", GET, timeout=5)
    assert (await pool.request("GET", GET, timeout=5)).body == b"again"
    assert (server.connections, len(server.requests)) == (2, 3)
    await pool.close()


async def test_a_post_the_server_drops_on_a_reused_connection_is_not_sent_again(
    server: Server,
) -> None:
    server.replies = [ok(), close_silently, ok()]
    pool = pool_for(server)
    await pool.request("GET", GET, timeout=5)
    with pytest.raises(HttpError, match="closed"):
        await pool.request("POST", POST, timeout=5)
    assert len(server.requests) == 2
    await pool.close()


async def test_connections_idle_too_long_are_not_reused(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.replies = [ok(), ok()]
    pool = pool_for(server)
    await pool.request("GET", GET, timeout=5)
    monkeypatch.setattr(http11, "IDLE_SECONDS", 0.0)
    await pool.request("GET", GET, timeout=5)
    assert server.connections == 2
    await pool.close()


async def test_the_limit_queues_requests_and_a_cancelled_waiter_passes_its_turn(
    server: Server,
) -> None:
    gate = asyncio.Event()

    async def late(writer: asyncio.StreamWriter) -> None:
        await gate.wait()
        writer.write(ok(b"first"))

    server.replies = [late, ok(b"third")]
    pool = pool_for(server, limit=1)
    first = asyncio.create_task(pool.request("GET", GET, timeout=5))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(pool.request("GET", GET, timeout=5))
    third = asyncio.create_task(pool.request("GET", GET, timeout=5))
    await asyncio.sleep(0.05)
    second.cancel()
    gate.set()
    assert (await first).body == b"first"
    assert (await third).body == b"third"
    assert second.cancelled()
    assert server.connections == 1
    await pool.close()


async def test_close_fails_the_requests_in_flight_and_waiting(server: Server) -> None:
    server.replies = [lambda writer: None]
    pool = pool_for(server, limit=1)
    first = asyncio.create_task(pool.request("GET", GET, timeout=5))
    await asyncio.sleep(0.05)
    waiting = asyncio.create_task(pool.request("GET", GET, timeout=5))
    await asyncio.sleep(0.05)
    await pool.close()
    with pytest.raises(HttpError, match="closed"):
        await waiting
    with pytest.raises(HttpError, match="closed"):
        await first
    with pytest.raises(HttpError, match="closed"):
        await pool.request("GET", GET, timeout=5)


async def test_connection_refused_is_an_os_error() -> None:
    pool = Pool(Route("127.0.0.1", 1), limit=1, connect_timeout=2.0)
    with pytest.raises(OSError):  # the transport's own error, whatever its errno
        await pool.request("GET", GET, timeout=2)
    with pytest.raises(OSError):  # again: the slot was given back
        await pool.request("GET", GET, timeout=2)


def test_parse_head_needs_the_whole_head_and_bounds_it() -> None:
    assert parse_head(b"HTTP/1.1 200 OK\r\nA: b\r\n") is None
    head = parse_head(b"HTTP/1.0 404 Not Found\r\nX-Y:  z \r\n\r\nbody")
    assert head is not None
    assert (head.status, head.headers["x-y"], head.headers["connection"]) == (404, "z", "close")
    with pytest.raises(HttpError, match="larger than"):
        parse_head(b"HTTP/1.1 200 OK\r\n" + b"A: b\r\n" * 20000)
    with pytest.raises(HttpError, match="malformed header"):
        parse_head(b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n")


def test_parse_chunked_reads_each_chunk_once_and_refuses_bad_sizes() -> None:
    parts: list[bytes] = []
    assert parse_chunked(b"3\r\nabc\r\n5\r\nab", 0, parts) == (8, False)
    assert parts == [b"abc"]
    assert parse_chunked(b"3\r\nabc\r\n5\r\nabcde\r\n0\r\n", 8, parts) == (8 + 10, False)
    assert parts == [b"abc", b"abcde"]
    assert parse_chunked(b"3\r\nabc\r\n5\r\nabcde\r\n0\r\n\r\n", 18, parts) == (23, True)
    assert parts == [b"abc", b"abcde"]
    for bad in (b"zz\r\n", b"-1\r\n", b"\r\n", b"0x3\r\n"):
        with pytest.raises(HttpError, match="chunk size"):
            parse_chunked(bad, 0, [])
    with pytest.raises(HttpError, match="CRLF"):
        parse_chunked(b"3\r\nabcXY0\r\n\r\n", 0, [])


async def test_a_connection_closed_before_its_request_is_sent_frees_its_slot(
    server: Server,
) -> None:
    server.replies = [ok(), ok(b"after")]
    pool = pool_for(server, limit=1)
    await pool.request("GET", GET, timeout=5)
    connection = pool._idle.pop()  # handed over, as _acquire does
    connection.close()  # and closed before the request goes out
    with pytest.raises(HttpError, match="closed"):
        await pool._exchange(connection, "GET", GET, time.monotonic() + 5)
    assert (await pool.request("GET", GET, timeout=2)).body == b"after"  # the one slot is free
    await pool.close()


async def test_a_guard_that_raises_sends_nothing_and_keeps_the_connection(server: Server) -> None:
    server.replies = [ok(b"one"), ok(b"two")]
    pool = pool_for(server, limit=1)
    assert (await pool.request("GET", GET, timeout=5)).body == b"one"

    def refuse() -> None:
        raise PermissionError("fenced")

    with pytest.raises(PermissionError):
        await pool.request("POST", POST, timeout=5, guard=refuse)
    assert (await pool.request("POST", POST, timeout=5, guard=lambda: None)).body == b"two"
    assert len(server.requests) == 2
    assert server.connections == 1
    await pool.close()
