"""Real proxies on 127.0.0.1 for the tests of kubectl's proxy settings: an HTTP CONNECT proxy
(plain or over TLS) and a SOCKS5 proxy, each in a thread of its own, relaying bytes to the
address asked for and recording every tunnel it opened.

with TunnelProxy("http", hosts={"api.proxied.test": "127.0.0.1"}) as proxy:
    ...  # HTTPS_PROXY=proxy.url
    assert proxy.tunnels == ["api.proxied.test:6443", ...]

A request in absolute form (what clients send an HTTP proxy for an `http://` server) is
forwarded, and its server recorded in `forwarded`.

`hosts` is the proxy's own name resolution (a name the test machine cannot resolve reaches
the API server only through the proxy); `credentials` makes it ask for a user and password
(407 / SOCKS5 user-password login); `tls` serves the CONNECT proxy over TLS (`https://`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import ssl
import threading
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit


class TunnelProxy:
    def __init__(
        self,
        kind: str = "http",
        *,
        hosts: dict[str, str] | None = None,
        credentials: tuple[str, str] | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.kind = kind
        self.hosts = hosts or {}
        self.credentials = credentials
        self.tls = tls
        self.tunnels: list[str] = []  # "host:port" of each tunnel opened
        self.forwarded: list[str] = []  # "host:port" of each connection forwarded to
        self.refused: list[str] = []  # what was refused, and why
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._stop: asyncio.Future[None] | None = None
        self._writers: set[asyncio.StreamWriter] = set()  # both ends of every connection

    @property
    def url(self) -> str:
        scheme = {"http": "https" if self.tls else "http", "socks5": "socks5"}[self.kind]
        user = ""
        if self.credentials:
            user = f"{self.credentials[0]}:{self.credentials[1]}@"
        return f"{scheme}://{user}127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the test proxy did not start")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set_result, None)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())
        self._loop.close()

    async def _main(self) -> None:
        self._stop = self._loop.create_future()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self.tls)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop
        server.close()
        # The tunnels still open end with the proxy: their relays see the end and return.
        for writer in list(self._writers):
            writer.transport.abort()
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        if tasks:
            await asyncio.wait(tasks, timeout=5)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        opened = None
        try:
            opened = await (
                self._socks5(reader, writer)
                if self.kind == "socks5"
                else self._connect(reader, writer)
            )
            if opened is not None:
                await _relay(reader, writer, *opened)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            for end in (writer, opened[1] if opened else None):
                if end is not None:
                    self._writers.discard(end)
                    end.close()

    async def _open(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        self.tunnels.append(f"{host}:{port}")
        reader, writer = await asyncio.open_connection(self.hosts.get(host, host), port)
        self._writers.add(writer)
        return reader, writer

    async def _connect(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        raw = await reader.readuntil(b"\r\n\r\n")
        head = raw.decode("latin-1").split("\r\n")
        method, target, _ = head[0].split(" ", 2)
        headers = dict(line.split(": ", 1) for line in head[1:] if ": " in line)
        if self.credentials:
            expected = "Basic " + base64.b64encode(":".join(self.credentials).encode()).decode()
            if headers.get("Proxy-Authorization") != expected:
                self.refused.append(f"{method} {target}: no or wrong Proxy-Authorization")
                writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
                return None
        if method != "CONNECT":
            return await self._forward(raw, target, writer)
        host, _, port = target.rpartition(":")
        try:
            opened = await self._open(host.strip("[]"), int(port))
        except OSError:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")
            return None
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        return opened

    async def _forward(
        self, raw: bytes, target: str, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """A request in absolute form (`GET http://host:port/path`): sent on to that server
        as it came, and the connection relayed from then on (one server per connection)."""
        address = urlsplit(target)
        if address.scheme != "http" or not address.hostname:
            self.refused.append(f"{target}: not an absolute http:// URL")
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            return None
        self.forwarded.append(f"{address.hostname}:{address.port or 80}")
        upstream = await asyncio.open_connection(
            self.hosts.get(address.hostname, address.hostname), address.port or 80
        )
        self._writers.add(upstream[1])
        upstream[1].write(raw)
        return upstream

    async def _socks5(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        _, count = await reader.readexactly(2)
        methods = await reader.readexactly(count)
        wanted = 2 if self.credentials else 0
        if wanted not in methods:
            writer.write(b"\x05\xff")
            self.refused.append("no acceptable login method")
            return None
        writer.write(bytes([5, wanted]))
        if self.credentials and not await self._socks5_login(reader, writer):
            return None
        _, _, _, kind = await reader.readexactly(4)  # version, CONNECT, reserved, type
        if kind == 3:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        else:
            host = str(ipaddress.ip_address(await reader.readexactly(4 if kind == 1 else 16)))
        port = int.from_bytes(await reader.readexactly(2), "big")
        try:
            opened = await self._open(host, port)
        except OSError:
            writer.write(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00")
            return None
        writer.write(b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")
        return opened

    async def _socks5_login(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        _, size = await reader.readexactly(2)
        user = (await reader.readexactly(size)).decode()
        password = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        if (user, password) != self.credentials:
            writer.write(b"\x01\x01")
            self.refused.append("wrong user or password")
            return False
        writer.write(b"\x01\x00")
        return True


async def _relay(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream_writer: asyncio.StreamWriter,
) -> None:
    async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        with contextlib.suppress(OSError):
            sink.close()

    await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))
