"""The connector of the watch session (aiohttp): plain TCP/TLS as aiohttp makes it, or, with a
proxy or a `tls-server-name`, each connection opened by `kubesched.kube.dial.Route.open`, so
watches take the same way to the API server as every other request."""

from __future__ import annotations

import asyncio

import aiohttp
from aiohttp.client_proto import ResponseHandler
from aiohttp.tracing import Trace

from kubesched.kube.dial import Route


def watch_connector(route: Route, *, limit: int, connect_timeout: float) -> aiohttp.BaseConnector:
    """The connector for `route`, at most `limit` connections."""
    if route.direct:
        return aiohttp.TCPConnector(ssl=route.ssl if route.ssl is not None else False, limit=limit)
    return _RouteConnector(route, limit=limit, connect_timeout=connect_timeout)


class _RouteConnector(aiohttp.BaseConnector):
    """Opens each connection by `route.open` (a proxy's tunnel, TLS with a server name);
    keep-alive, limits and clean-up stay aiohttp's."""

    def __init__(self, route: Route, *, limit: int, connect_timeout: float) -> None:
        super().__init__(limit=limit)
        self._route = route
        self._connect_timeout = connect_timeout

    async def _create_connection(
        self,
        req: aiohttp.ClientRequest,  # noqa: ARG002 - aiohttp's signature; the route is fixed
        traces: list[Trace],  # noqa: ARG002 - no tracing configured
        timeout: aiohttp.ClientTimeout,  # noqa: ARG002 - the client's connect timeout applies
    ) -> ResponseHandler:
        async with asyncio.timeout(self._connect_timeout):
            _, protocol = await self._route.open(self._factory)
        return protocol
