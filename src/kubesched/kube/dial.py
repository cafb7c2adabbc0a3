"""Opening a connection to the API server: directly, or through a proxy, as kubectl does.

A `Route` is decided once per client (`Connection.route`); each new connection of the
request pool (`kubesched.kube.http11`) and of the watch session (`WatchConnector`) is opened
by `Route.open`, and nothing of this runs per request.

- Directly: TCP, then TLS checked against the kubeconfig's `tls-server-name` when it has one
  (sent as SNI and matched with the certificate), else against the server's host.
- Through an `http://` or `https://` proxy: a `CONNECT host:port` tunnel (with
  `Proxy-Authorization: Basic` from the proxy URL's user and password), then TLS to the API
  server inside it. An `https://` proxy is itself reached over TLS verified with the API
  server's trust (its CA, or the system's), as Go's client does. An `http://` API server is
  not tunnelled: its requests go to the proxy in absolute form (`GET http://host:port/...`,
  with `Proxy-Authorization`), as Go's client sends them (`Route.forwarded`;
  `kubesched.kube.request_head` writes them so).
- Through a `socks5://` proxy: SOCKS5 (RFC 1928, with RFC 1929 user/password when the URL
  has them), the API server's name resolved by the proxy, then TLS inside.
"""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from ssl import SSLContext
from typing import TypeVar, cast

from kubesched.kube.http11 import HttpError
from kubesched.kube.proxy import Proxy
from kubesched.kube.request_head import USER_AGENT

P = TypeVar("P", bound=asyncio.BaseProtocol)
MAX_PROXY_HEAD_BYTES = 16 * 1024
_SOCKS_REPLIES = {
    1: "general SOCKS server failure",
    2: "connection not allowed by ruleset",
    3: "network unreachable",
    4: "host unreachable",
    5: "connection refused",
    6: "TTL expired",
    7: "command not supported",
    8: "address type not supported",
}


@dataclass(frozen=True, slots=True)
class Route:
    """How to reach one API server: its host and port, TLS, and the proxy if any."""

    host: str
    port: int
    ssl: SSLContext | None = None
    """None for an `http://` server."""
    tls_server_name: str | None = None
    """The kubeconfig's `tls-server-name`: the name TLS sends and checks instead of `host`."""
    proxy: Proxy | None = None
    proxy_ssl: SSLContext | None = None
    """The trust an `https://` proxy is checked with when the server is `http://` (the
    kubeconfig's CA, client certificate and insecure-skip-tls-verify, as Go's client uses
    them for the proxy too); an `https://` server's `ssl` serves otherwise."""

    @property
    def direct(self) -> bool:
        """Neither a proxy nor a TLS server name: a plain connection to `host:port`."""
        return self.proxy is None and not self.tls_server_name

    @property
    def forwarded(self) -> bool:
        """An `http://` server through an HTTP(S) proxy: each connection goes to the proxy,
        which is sent the requests in absolute form."""
        return self.ssl is None and self.proxy is not None and not self.proxy.socks

    @property
    def target(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    async def open(self, factory: Callable[[], P]) -> tuple[asyncio.BaseTransport, P]:
        """A new connection to the API server, with `factory()`'s protocol on it."""
        loop = asyncio.get_running_loop()
        name = (self.tls_server_name or self.host) if self.ssl is not None else None
        if self.proxy is None:
            try:
                return await loop.create_connection(
                    factory, self.host, self.port, ssl=self.ssl, server_hostname=name
                )
            except OSError as exc:  # the host in the message: a name, a refusal, TLS
                raise HttpError(f"cannot connect to {self.target}: {exc}") from exc
        if self.forwarded:
            return await self._to_proxy(self.proxy, factory)
        transport = await self._tunnel(self.proxy)
        protocol = factory()
        try:
            transport = await self._inside(transport, protocol, name)
        except BaseException:
            transport.abort()
            raise
        protocol.connection_made(transport)
        return transport, protocol

    async def _inside(
        self, transport: asyncio.Transport, protocol: asyncio.BaseProtocol, name: str | None
    ) -> asyncio.Transport:
        """The tunnel's transport handed to `protocol`, with TLS to the API server inside."""
        if self.ssl is None:
            transport.set_protocol(protocol)
            return transport
        loop = asyncio.get_running_loop()
        try:
            secured = await loop.start_tls(transport, protocol, self.ssl, server_hostname=name)
        except OSError as exc:
            proxy = self.proxy.display() if self.proxy else ""
            raise HttpError(f"TLS with {self.target} through the proxy {proxy}: {exc}") from exc
        # Typed Optional; asyncio and uvloop return the new transport or raise.
        return cast("asyncio.Transport", secured)

    async def _to_proxy(
        self, proxy: Proxy, factory: Callable[[], P]
    ) -> tuple[asyncio.BaseTransport, P]:
        """A connection to the proxy itself (over TLS for an `https://` one)."""
        proxy_tls: ssl.SSLContext | None = None
        if proxy.scheme == "https":
            proxy_tls = self.ssl or self.proxy_ssl or ssl.create_default_context()
        try:
            return await asyncio.get_running_loop().create_connection(
                factory,
                proxy.host,
                proxy.port,
                ssl=proxy_tls,
                server_hostname=proxy.host if proxy_tls is not None else None,
            )
        except OSError as exc:
            raise HttpError(f"cannot reach the proxy {proxy.display()}: {exc}") from exc

    async def _tunnel(self, proxy: Proxy) -> asyncio.Transport:
        """A connection to the proxy, through which bytes now go to the API server."""
        base, talk = await self._to_proxy(proxy, _Talk)
        transport = cast("asyncio.Transport", base)
        try:
            if proxy.socks:
                await _socks5(talk, proxy, self.host, self.port)
            else:
                await _connect(talk, proxy, self.target)
            talk.finish()
        except BaseException:
            transport.abort()
            raise
        return transport


class _Talk(asyncio.Protocol):
    """The conversation with a proxy before the tunnel is open: bytes in, bytes out."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._wake: asyncio.Future[None] | None = None
        self._ended = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        self._notify()

    def eof_received(self) -> bool:
        self._ended = True
        self._notify()
        return False

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: ARG002 - its reason: _more says closed
        self._ended = True
        self._notify()

    def _notify(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def write(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)

    async def _more(self, proxy: Proxy) -> None:
        if self._ended:
            raise HttpError(f"the proxy {proxy.display()} closed the connection")
        self._wake = asyncio.get_running_loop().create_future()
        await self._wake

    async def read(self, size: int, proxy: Proxy) -> bytes:
        while len(self._buffer) < size:
            await self._more(proxy)
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    async def read_head(self, proxy: Proxy) -> bytes:
        while (end := self._buffer.find(b"\r\n\r\n")) < 0:
            if len(self._buffer) > MAX_PROXY_HEAD_BYTES:
                raise HttpError(f"the proxy {proxy.display()} answered with an endless head")
            await self._more(proxy)
        head = bytes(self._buffer[:end])
        del self._buffer[: end + 4]
        return head

    def finish(self) -> None:
        """The tunnel is open: nothing may be left over (the API server speaks second)."""
        if self._buffer:
            raise HttpError("the proxy sent bytes of its own after opening the tunnel")


async def _connect(talk: _Talk, proxy: Proxy, target: str) -> None:
    lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}", f"User-Agent: {USER_AGENT}"]
    authorization = proxy.authorization()
    if authorization:
        lines.append(f"Proxy-Authorization: {authorization}")
    talk.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    status_line = (await talk.read_head(proxy)).split(b"\r\n", 1)[0].decode("latin-1")
    version, _, status = status_line.partition(" ")
    if not version.startswith("HTTP/1.") or not status[:3].isdigit():
        raise HttpError(f"the proxy {proxy.display()} is not an HTTP proxy: {status_line[:80]!r}")
    if status[:3] != "200":  # as Go's client: any other status, even a 2xx, is a refusal
        raise HttpError(f"the proxy {proxy.display()} refused CONNECT {target}: {status}")


async def _socks5(talk: _Talk, proxy: Proxy, host: str, port: int) -> None:
    methods = b"\x00\x02" if proxy.username is not None else b"\x00"
    talk.write(b"\x05" + bytes([len(methods)]) + methods)
    version, method = await talk.read(2, proxy)
    if version != 5:
        raise HttpError(f"the proxy {proxy.display()} is not a SOCKS5 proxy")
    if method == 2 and proxy.username is not None:
        await _socks5_login(talk, proxy)
    elif method != 0:
        raise HttpError(
            f"the SOCKS5 proxy {proxy.display()} accepts none of the ways to log in offered "
            "(none, or the user and password of its URL)"
        )
    talk.write(b"\x05\x01\x00" + _socks_address(host) + port.to_bytes(2, "big"))
    _, reply, _, kind = await talk.read(4, proxy)
    if reply != 0:
        reason = _SOCKS_REPLIES.get(reply, f"reply {reply}")
        raise HttpError(f"the SOCKS5 proxy {proxy.display()} cannot reach {host}:{port}: {reason}")
    if kind == 3:
        length = (await talk.read(1, proxy))[0]
    elif kind in (1, 4):
        length = 4 if kind == 1 else 16
    else:
        raise HttpError(f"the SOCKS5 proxy {proxy.display()} answered an unknown address type")
    await talk.read(length + 2, proxy)  # the address it bound, which no one needs


async def _socks5_login(talk: _Talk, proxy: Proxy) -> None:
    user = (proxy.username or "").encode()
    password = (proxy.password or "").encode()
    if not user or len(user) > 255 or len(password) > 255:
        raise HttpError(
            f"the SOCKS5 proxy {proxy.display()}: its URL's user name must be 1 to 255 bytes "
            "and its password at most 255"
        )
    talk.write(b"\x01" + bytes([len(user)]) + user + bytes([len(password)]) + password)
    _, status = await talk.read(2, proxy)
    if status != 0:
        raise HttpError(f"the SOCKS5 proxy {proxy.display()} refused the user and password")


def _socks_address(host: str) -> bytes:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        name = host.encode("idna")
        if len(name) > 255:
            raise HttpError(f"host name {host[:40]}... is too long for SOCKS5") from None
        return b"\x03" + bytes([len(name)]) + name
    return (b"\x01" if address.version == 4 else b"\x04") + address.packed
