"""A local HTTP server for the API client's tests, and a Connection without credentials."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

from aiohttp import web

from kubesched.kube.client import KubeClient
from kubesched.kube.dial import Route

Answer = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def serving(answer: Answer) -> AsyncIterator[str]:
    """An HTTP server on 127.0.0.1 answering every request with `answer`: its URL."""
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


class PlainConnection(SimpleNamespace):
    """`kubesched.kube.connection.Connection` to a plain-HTTP server, without credentials."""

    ssl_context = False

    async def authorization(self) -> str | None:
        return None

    async def unauthorized(self, sent: str | None) -> bool:
        return False

    def route(self) -> Route:
        host, _, port = str(self.server).removeprefix("http://").partition(":")
        return Route(host, int(port))


def plain_client(url: str, **options: Any) -> KubeClient:
    """A KubeClient of `url` (options as KubeClient's)."""
    return KubeClient(PlainConnection(server=url), **options)  # type: ignore[arg-type]
