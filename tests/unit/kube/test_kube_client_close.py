"""A request that meets a closed client (shutdown) fails as an ordinary ConnectionFailed,
never with a transport's error and never by opening a new connection pool."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.kube.client import KubeClient
from kubesched.kube.dial import Route
from kubesched.kube.errors import ConnectionFailed


class SlowAuth:
    """A connection whose token arrives only when the test says so."""

    server = "http://127.0.0.1:9"
    ssl_context = False

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def authorization(self) -> str | None:
        await self.release.wait()
        return "Bearer t"

    async def unauthorized(self, sent: str | None) -> bool:
        return False

    def route(self) -> Route:
        return Route("127.0.0.1", 9)


async def test_request_in_progress_when_the_client_closes() -> None:
    connection = SlowAuth()
    client = KubeClient(connection)  # type: ignore[arg-type]
    client._ensure_pool()  # a connection pool exists, as after earlier requests
    pending: asyncio.Task[Any] = asyncio.create_task(client.get("/api/v1/pods"))
    await asyncio.sleep(0)
    await client.close()
    connection.release.set()
    with pytest.raises(ConnectionFailed, match="the API client is closed"):
        await pending
    assert client._pool is None


async def test_request_after_close() -> None:
    client = KubeClient(SlowAuth())  # type: ignore[arg-type]
    await client.close()
    with pytest.raises(ConnectionFailed, match="shutting down"):
        await client.post("/api/v1/namespaces/ns/pods/p/binding", {})
