"""The watch session (aiohttp) and its connector: plain TCP/TLS as aiohttp makes it, or, with
a proxy or a `tls-server-name`, each connection opened by `kubesched.kube.dial.Route.open`, so
watches take the same way to the API server as every other request (through an HTTP proxy to
an `http://` server, in absolute form with the proxy's credentials, as the request pool)."""

from __future__ import annotations

import asyncio

import aiohttp
from aiohttp.client_proto import ResponseHandler
from aiohttp.tracing import Trace

from kubesched.kube.dial import Route
from kubesched.kube.request_head import USER_AGENT


def watch_session(route: Route, *, limit: int, connect_timeout: float) -> aiohttp.ClientSession:
    """The session for `route`'s watches, at most `limit` connections."""
    headers = {"User-Agent": USER_AGENT}
    connector = watch_connector(route, limit=limit, connect_timeout=connect_timeout)
    if not route.forwarded or route.proxy is None:
        return aiohttp.ClientSession(connector=connector, headers=headers)
    # With a proxy set, aiohttp writes absolute-form targets; the connector (Route.open)
    # opens each connection to the proxy, and the proxy's credentials go in every request.
    authorization = route.proxy.authorization()
    if authorization:
        headers["Proxy-Authorization"] = authorization
    host = f"[{route.proxy.host}]" if ":" in route.proxy.host else route.proxy.host
    proxy = f"{route.proxy.scheme}://{host}:{route.proxy.port}"
    return aiohttp.ClientSession(connector=connector, headers=headers, proxy=proxy)


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
