"""The write fence, against a local HTTP server: while the fence says True no write leaves the
client (whatever the method), reads still do; a write that was waiting for the rate
limiter or for a connection when the fence closed is not sent either: the check is made
when the request would be written to the socket, not when the call started."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from kubesched.kube.client import KubeClient
from kubesched.kube.errors import Fenced
from tests.unit.kube.kube_server import plain_client, serving

BINDING = "/api/v1/namespaces/ns/pods/p/binding"


@dataclass
class Server:
    url: str = ""
    seen: list[str] = field(default_factory=list)
    hold: asyncio.Event | None = None  # answers wait for it when set

    async def answer(self, request: web.Request) -> web.StreamResponse:
        self.seen.append(request.method)
        if self.hold is not None:
            await self.hold.wait()
        return web.json_response({"kind": "Status"})


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    state = Server()
    async with serving(state.answer) as url:
        state.url = url
        yield state


class Fence:
    def __init__(self) -> None:
        self.closed = False

    def __call__(self) -> bool:
        return self.closed


def fenced_client(server: Server, fence: Fence, **options: int) -> KubeClient:
    return plain_client(server.url, write_fence=fence, **options)


async def test_no_write_leaves_while_fenced_reads_do(server: Server) -> None:
    fence = Fence()
    client = fenced_client(server, fence)
    await client.post(BINDING, {"kind": "Binding"})
    fence.closed = True
    writes = [
        client.post(BINDING, {"kind": "Binding"}),
        client.put("/api/v1/namespaces/ns/pods/p/status", {}),
        client.patch("/api/v1/namespaces/ns/pods/p/status", {}),
        client.delete("/api/v1/namespaces/ns/pods/p"),
    ]
    for write in writes:
        with pytest.raises(Fenced, match="not sent: the leader lease was not renewed"):
            await write
    await client.get("/api/v1/pods")
    await client.close()
    assert server.seen == ["POST", "GET"]


async def test_a_write_queued_in_the_rate_limiter_is_checked_when_sent(server: Server) -> None:
    fence = Fence()
    client = fenced_client(server, fence, qps=2, burst=1)
    await client.post(BINDING, {"kind": "Binding"})  # takes the only token
    queued = asyncio.create_task(client.post(BINDING, {"kind": "Binding"}))
    await asyncio.sleep(0.1)  # it waits for the next token (0.5 s)
    assert not queued.done()
    fence.closed = True
    with pytest.raises(Fenced):
        await queued
    await client.close()
    assert server.seen == ["POST"]


async def test_a_write_waiting_for_a_connection_is_checked_when_sent(server: Server) -> None:
    fence = Fence()
    server.hold = asyncio.Event()
    client = fenced_client(server, fence, max_connections=1)
    first = asyncio.create_task(client.get("/api/v1/pods"))  # holds the one connection
    await asyncio.sleep(0.1)
    waiting = asyncio.create_task(client.post(BINDING, {"kind": "Binding"}))
    await asyncio.sleep(0.1)
    fence.closed = True
    server.hold.set()
    await first
    with pytest.raises(Fenced):
        await waiting
    fence.closed = False
    await client.post(BINDING, {"kind": "Binding"})  # the connection was not spoiled
    await client.close()
    assert server.seen == ["GET", "POST"]
