"""Retry-After as client-go honours it, against a local HTTP server: a 429 or 5xx with the
header is waited out and sent again (a binding POST included, with the same body); no header,
an HTTP-date or another status is final; at most 10 retries; a wait longer than the cap is
shortened, one that would outlast the call's timeout is not started; a cancel or close()
ends the wait at once; every retried attempt is counted; a watch is retried the same way."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError, ConnectionFailed, TooManyRequests
from kubesched.kube.retry import MAX_RETRIES, RetryPolicy, retry_after_seconds
from kubesched.server.logs_quote import render_message
from tests.unit.kube.kube_server import plain_client, serving

BINDING = "/api/v1/namespaces/ns/pods/p/binding"


@dataclass
class Reply:
    status: int
    retry_after: str | None = None


@dataclass
class Server:
    """Answers each request with the next scripted reply (the last one forever after)."""

    url: str = ""
    replies: list[Reply] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def script(self, *replies: Reply) -> None:
        self.replies = list(replies)

    async def answer(self, request: web.Request) -> web.StreamResponse:
        self.bodies.append(await request.read())
        self.arrived.set()
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        headers = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
        if reply.status >= 300:
            status = {"kind": "Status", "reason": "TooManyRequests", "message": "slow down"}
            return web.json_response(status, status=reply.status, headers=headers)
        if request.query.get("watch") == "true":
            return web.Response(text='{"type":"ADDED","object":{"kind":"Pod"}}\n')
        return web.json_response({"kind": "Binding"}, status=reply.status)

    @property
    def requests(self) -> int:
        return len(self.bodies)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    state = Server()
    async with serving(state.answer) as url:
        state.url = url
        yield state


@dataclass
class Retries:
    """The retry observer's calls: (method, code)."""

    seen: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, method: str, host: str, code: str) -> None:
        self.seen.append((method, code))


@pytest.fixture
def retries() -> Retries:
    return Retries()


@pytest.fixture
async def client(server: Server, retries: Retries) -> AsyncIterator[KubeClient]:
    kube = plain_client(server.url, observe_retry=retries)
    yield kube
    await kube.close()


@pytest.fixture
def retry_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(1, logger="kubesched.kube.client"):
        yield caplog


async def test_429_with_retry_after_then_200(
    client: KubeClient, server: Server, retries: Retries, retry_log: pytest.LogCaptureFixture
) -> None:
    server.script(Reply(429, "1"), Reply(201))
    started = time.monotonic()
    answer = await client.post(BINDING, {"target": {"name": "n1"}})
    assert answer == {"kind": "Binding"}
    assert time.monotonic() - started >= 1.0  # the server's delay, waited out
    assert server.requests == 2
    assert server.bodies[0] == server.bodies[1]  # the binding POST replayed as it was
    assert retries.seen == [("POST", "201")]
    (line,) = (r for r in retry_log.records if "Retry-After" in r.getMessage())
    assert render_message(line) == (
        f'"Got a Retry-After response" delay="1s" attempt=1 code=429 verb="POST" path="{BINDING}"'
    )
    assert line.levelno == logging.INFO - 4  # V(4), as client-go's line
    assert line.exc_info is None


@pytest.mark.parametrize("status", [500, 503, 504])
async def test_5xx_with_retry_after(
    client: KubeClient, server: Server, retries: Retries, status: int
) -> None:
    server.script(Reply(status, "0"), Reply(status, "0"), Reply(200))
    assert await client.get("/api/v1/nodes") == {"kind": "Binding"}
    assert server.requests == 3
    assert retries.seen == [("GET", str(status)), ("GET", "200")]


@pytest.mark.parametrize(
    "reply",
    [
        Reply(500),  # a 5xx without Retry-After
        Reply(429),  # a 429 without it: client-go does not retry either
        Reply(429, "Wed, 21 Oct 2037 07:28:00 GMT"),  # an HTTP-date: not an integer
        Reply(409, "1"),  # another status, header or not
        Reply(404, "1"),
    ],
    ids=["500", "429", "429-date", "409", "404"],
)
async def test_final_answers_are_not_retried(
    client: KubeClient, server: Server, retries: Retries, reply: Reply
) -> None:
    server.script(reply, Reply(200))
    with pytest.raises(ApiError) as raised:
        await client.post(BINDING, {})
    assert raised.value.status == reply.status
    assert server.requests == 1
    assert retries.seen == []


async def test_at_most_ten_retries_then_the_last_error(
    client: KubeClient, server: Server, retries: Retries
) -> None:
    server.script(Reply(429, "0"))
    with pytest.raises(TooManyRequests, match="slow down"):
        await client.get("/api/v1/pods")
    assert server.requests == 1 + MAX_RETRIES == 11
    assert retries.seen == [("GET", "429")] * MAX_RETRIES


async def test_a_long_retry_after_is_shortened_to_the_cap(server: Server) -> None:
    server.script(Reply(503, "3600"), Reply(200))
    policy = RetryPolicy(max_delay=0.2)
    client = plain_client(server.url, retry=policy)
    started = time.monotonic()
    await client.get("/api/v1/pods")
    assert 0.2 <= time.monotonic() - started < 5
    assert server.requests == 2
    await client.close()


async def test_a_wait_past_the_timeout_is_not_started(client: KubeClient, server: Server) -> None:
    server.script(Reply(429, "5"), Reply(200))
    started = time.monotonic()
    with pytest.raises(TooManyRequests):
        await client.post(BINDING, {}, timeout=2.0)
    assert time.monotonic() - started < 2.0
    assert server.requests == 1


async def test_a_cancel_ends_the_wait(client: KubeClient, server: Server) -> None:
    server.script(Reply(429, "30"), Reply(200))
    task = asyncio.create_task(client.post(BINDING, {}))
    await server.arrived.wait()
    await asyncio.sleep(0.05)  # the client is now waiting out the Retry-After
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1
    assert server.requests == 1


async def test_close_ends_the_wait(client: KubeClient, server: Server) -> None:
    server.script(Reply(429, "30"), Reply(200))
    task = asyncio.create_task(client.get("/api/v1/pods"))
    await server.arrived.wait()
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await client.close()
    with pytest.raises(ConnectionFailed, match="the API client is closed"):
        await task
    assert time.monotonic() - started < 1
    assert server.requests == 1


async def test_a_watch_is_retried_too(client: KubeClient, server: Server, retries: Retries) -> None:
    server.script(Reply(429, "0"), Reply(200))
    watch = client.watch("/api/v1/pods", params={}, inactivity_timeout=5)
    events = [event async for event in watch]
    assert events == [{"type": "ADDED", "object": {"kind": "Pod"}}]
    assert server.requests == 2
    assert retries.seen == [("GET", "200")]


async def test_a_watch_refused_without_retry_after_raises(
    client: KubeClient, server: Server
) -> None:
    server.script(Reply(503), Reply(200))
    with pytest.raises(ApiError) as raised:
        async for _ in client.watch("/api/v1/pods", params={}, inactivity_timeout=5):
            pass
    assert raised.value.status == 503
    assert server.requests == 1


@pytest.mark.parametrize(
    ("status", "header", "seconds"),
    [
        (429, "1", 1),
        (429, "+2", 2),  # Go's Atoi takes a sign
        (503, " 7 ", 7),
        (500, "-1", -1),  # the policy waits 0 s for it, as Go's sleep of a negative time
        (429, None, None),
        (429, "1.5", None),
        (429, "soon", None),
        (503, "", None),
        (404, "1", None),
        (200, "1", None),
    ],
)
def test_retry_after_seconds(status: int, header: str | None, seconds: int | None) -> None:
    assert retry_after_seconds(status, header) == seconds


def test_policy_delay() -> None:
    policy = RetryPolicy(max_retries=2, max_delay=10)
    assert policy.delay(status=429, retry_after="3", retries=0) == 3
    assert policy.delay(status=429, retry_after="32", retries=1) == 10
    assert policy.delay(status=500, retry_after="-5", retries=0) == 0
    assert policy.delay(status=429, retry_after="1", retries=2) is None
    assert RetryPolicy(max_retries=0).delay(status=429, retry_after="1", retries=0) is None
