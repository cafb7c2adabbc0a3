"""Opening API connections (kubesched.kube.dial.Route): through real HTTP CONNECT, TLS CONNECT
and SOCKS5 proxies to a local TLS server, on asyncio's loop and on uvloop (what `kubesched
run` uses), for the request pool and the watch session; TLS checked against tls-server-name;
and each way a proxy can fail, named in one line."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

import aiohttp
import pytest
import uvloop

from kubesched.kube.dial import Route
from kubesched.kube.http11 import HttpError, Pool
from kubesched.kube.proxy import Proxy
from kubesched.kube.request_head import RequestHead
from kubesched.kube.watch_connector import watch_connector, watch_session
from kubesched.kube.watchlines import watch_lines
from kubesched.localcluster.pki import Pki, write_pki
from tests.e2e.harness.proxies import TunnelProxy

T = TypeVar("T")
NAME = "api.only-the-proxy-knows.test"
LOOPS = ["asyncio", "uvloop"]
GET = b"GET /ok HTTP/1.1\r\nHost: api\r\n\r\n"


def run(loop: str, main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    factory = uvloop.new_event_loop if loop == "uvloop" else asyncio.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main())


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A CA and a serving certificate for localhost and 127.0.0.1 only."""
    return write_pki(tmp_path_factory.mktemp("pki"))


def serving_context(pki: Pki) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.serving_cert, pki.serving_key)
    return context


def client_context(pki: Pki) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(pki.ca_cert))


REQUESTS: list[bytes] = []  # the head of every request the API stand-ins were sent


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """`/ok`: a short answer; `/watch`: three chunked event lines, then the end."""
    try:
        while head := await reader.readuntil(b"\r\n\r\n"):
            REQUESTS.append(head)
            if b"/watch " in head.split(b"\r\n", 1)[0]:
                writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                for number in range(3):
                    line = b'{"type":"ADDED","n":%d}\n' % number
                    writer.write(b"%x\r\n%s\r\n" % (len(line), line))
                writer.write(b"0\r\n\r\n")
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
    except (asyncio.IncompleteReadError, OSError):
        writer.close()


@pytest.fixture(scope="module")
def api_port(pki: Pki) -> Iterator[int]:
    """The port of a TLS API stand-in on 127.0.0.1, served by a thread of its own."""
    yield from _serving(serving_context(pki))


@pytest.fixture(scope="module")
def plain_port() -> Iterator[int]:
    """The port of a plain-HTTP API stand-in on 127.0.0.1."""
    yield from _serving(None)


def _serving(tls: ssl.SSLContext | None) -> Iterator[int]:
    loop = asyncio.new_event_loop()
    started = threading.Event()
    port: list[int] = []
    stop = loop.create_future()

    async def serve() -> None:
        server = await asyncio.start_server(_answer, "127.0.0.1", 0, ssl=tls)
        port.append(server.sockets[0].getsockname()[1])
        started.set()
        await stop
        server.close()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert started.wait(10)
    yield port[0]
    loop.call_soon_threadsafe(stop.set_result, None)
    thread.join(10)
    loop.close()


def proxied(port: int, pki: Pki, proxy: Proxy) -> Route:
    return Route(NAME, port, ssl=client_context(pki), tls_server_name="localhost", proxy=proxy)


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("kind", ["http", "https", "socks5"])
def test_the_pool_and_the_watch_session_go_through_the_proxy(
    loop: str, kind: str, pki: Pki, api_port: int
) -> None:
    tls = serving_context(pki) if kind == "https" else None
    scheme = "socks5" if kind == "socks5" else kind
    hosts = {NAME: "127.0.0.1"}
    with TunnelProxy(
        "socks5" if kind == "socks5" else "http", hosts=hosts, credentials=("u", "p"), tls=tls
    ) as server:
        proxy = Proxy(scheme, "127.0.0.1", server.port, "u", "p", source="test")
        route = proxied(api_port, pki, proxy)

        async def main() -> tuple[int, bytes, list[bytes]]:
            pool = Pool(route, limit=2, connect_timeout=5.0)
            answer = await pool.request("GET", GET, timeout=5.0)
            await pool.close()
            connector = watch_connector(route, limit=2, connect_timeout=5.0)
            async with (
                aiohttp.ClientSession(connector=connector) as session,
                session.get(f"https://{NAME}:{api_port}/watch") as response,
            ):
                lines = [line async for line in watch_lines(response.content, 5.0)]
            return answer.status, answer.body, lines

        status, body, lines = run(loop, main)
    assert (status, body) == (200, b"ok")
    assert lines == [b'{"type":"ADDED","n":%d}\n' % n for n in range(3)]
    assert server.tunnels == [f"{NAME}:{api_port}"] * 2


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("kind", ["http", "https"])
def test_an_http_server_is_reached_through_an_http_proxy_in_absolute_form(
    loop: str, kind: str, pki: Pki, plain_port: int
) -> None:
    tls = serving_context(pki) if kind == "https" else None
    with TunnelProxy(hosts={NAME: "127.0.0.1"}, credentials=("u", "p"), tls=tls) as server:
        proxy = Proxy(kind, "127.0.0.1", server.port, "u", "p", source="test")
        # An https proxy is checked with the kubeconfig's trust even for an http:// server.
        route = Route(NAME, plain_port, proxy=proxy, proxy_ssl=client_context(pki))
        head = RequestHead(f"http://{NAME}:{plain_port}", forward_to=proxy)
        payload = head.payload("GET", head.target("/ok", None), {}, None)
        REQUESTS.clear()

        async def main() -> tuple[int, bytes, list[bytes]]:
            pool = Pool(route, limit=2, connect_timeout=5.0)
            answer = await pool.request("GET", payload, timeout=5.0)
            await pool.close()
            async with (
                watch_session(route, limit=2, connect_timeout=5.0) as session,
                session.get(f"http://{NAME}:{plain_port}/watch") as response,
            ):
                lines = [line async for line in watch_lines(response.content, 5.0)]
            return answer.status, answer.body, lines

        status, body, lines = run(loop, main)
    assert (status, body, len(lines)) == (200, b"ok", 3)
    assert server.forwarded == [f"{NAME}:{plain_port}"] * 2
    assert server.tunnels == []
    first_lines = [request.split(b"\r\n", 1)[0] for request in REQUESTS]
    origin = f"http://{NAME}:{plain_port}".encode()
    assert first_lines == [
        b"GET " + origin + b"/ok HTTP/1.1",
        b"GET " + origin + b"/watch HTTP/1.1",
    ]
    assert all(b"\r\nProxy-Authorization: Basic dTpw\r\n" in request for request in REQUESTS)


@pytest.mark.parametrize("loop", LOOPS)
def test_tls_server_name_checks_the_certificate_against_it(
    loop: str, pki: Pki, api_port: int
) -> None:
    async def get(route: Route) -> int:
        pool = Pool(route, limit=1, connect_timeout=5.0)
        try:
            return (await pool.request("GET", GET, timeout=5.0)).status
        finally:
            await pool.close()

    # 0.0.0.0 reaches 127.0.0.1 on Linux, but the certificate does not name it.
    outside = Route("0.0.0.0", api_port, ssl=client_context(pki))
    with pytest.raises(HttpError, match=r"cannot connect to 0\.0\.0\.0:\d+: .*certificate"):
        run(loop, lambda: get(outside))
    named = Route("0.0.0.0", api_port, ssl=client_context(pki), tls_server_name="localhost")
    assert run(loop, lambda: get(named)) == 200
    wrong = Route("127.0.0.1", api_port, ssl=client_context(pki), tls_server_name="elsewhere")
    with pytest.raises(HttpError, match="elsewhere"):
        run(loop, lambda: get(wrong))


Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _through_script(
    script: Script, proxy: Proxy, host: str = NAME, received: bytearray | None = None
) -> bytes:
    """Open a Route through a scripted proxy (to an https server through an HTTP proxy, so
    that it tunnels; to an http one through SOCKS5); returns what the proxy received."""
    if received is None:
        received = bytearray()
    record = received  # the handler's closure sees a bytearray, never None
    handled = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        class Recording:
            async def read(self, size: int) -> bytes:
                data = await reader.read(size)
                record.extend(data)
                return data

            async def readexactly(self, size: int) -> bytes:
                data = await reader.readexactly(size)
                record.extend(data)
                return data

            async def readuntil(self, separator: bytes) -> bytes:
                data = await reader.readuntil(separator)
                record.extend(data)
                return data

        try:
            await script(Recording(), writer)  # type: ignore[arg-type]
            await writer.drain()
            await reader.read()  # until the client has closed its end
        finally:
            writer.close()
            handled.set()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    via = Proxy(proxy.scheme, "127.0.0.1", port, proxy.username, proxy.password, "HTTPS_PROXY")
    tls = None if proxy.socks else ssl.create_default_context()
    route = Route(host, 443, ssl=tls, proxy=via)
    try:
        transport, _ = await route.open(asyncio.Protocol)
        transport.close()
    finally:
        async with asyncio.timeout(5):
            await handled.wait()
        server.close()
        await server.wait_closed()
    return bytes(record)


def answering(*replies: bytes, close: bool = False) -> Script:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for reply in replies:
            await reader.read(4096)
            writer.write(reply)
        if close:
            writer.close()

    return script


HTTP = Proxy("http", "", 0, "ops", "pw")
SOCKS = Proxy("socks5", "", 0)


@pytest.mark.parametrize(
    ("proxy", "script", "message"),
    [
        (
            HTTP,
            answering(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n"),
            r"the proxy http://127\.0\.0\.1:\d+ \(HTTPS_PROXY\) refused CONNECT "
            + NAME.replace(".", r"\.")
            + r":443: 407 Proxy Authentication Required",
        ),
        (HTTP, answering(b"HTTP/1.1 204 No Content\r\n\r\n"), "refused CONNECT .*: 204"),
        (HTTP, answering(b"SSH-2.0-OpenSSH_9.2\r\n\r\n"), "is not an HTTP proxy"),
        (HTTP, answering(close=True), "closed the connection"),
        (HTTP, answering(b"HTTP/1.1 200 OK\r\n\r\nhello"), "sent bytes of its own"),
        (SOCKS, answering(b"\x04\x00"), "is not a SOCKS5 proxy"),
        (SOCKS, answering(b"\x05\xff"), "accepts none of the ways to log in"),
        (
            SOCKS,
            answering(b"\x05\x00", b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00"),
            "cannot reach " + NAME.replace(".", r"\.") + ":443: connection refused",
        ),
    ],
)
async def test_a_failing_proxy_is_named_in_one_line(
    proxy: Proxy, script: Script, message: str
) -> None:
    with pytest.raises(HttpError, match=message) as failed:
        await _through_script(script, proxy)
    assert "\n" not in str(failed.value)
    assert "pw" not in str(failed.value)


async def test_the_connect_request_names_the_target_and_the_credentials() -> None:
    # The tunnel opens, then TLS inside fails: the script hangs up after its answer.
    ok = answering(b"HTTP/1.1 200 Connection established\r\n\r\n", close=True)
    received = bytearray()
    with pytest.raises(HttpError, match=r"TLS with \[fd00::1\]:443 through the proxy http://"):
        await _through_script(ok, HTTP, host="fd00::1", received=received)
    sent = bytes(received)
    assert sent.startswith(b"CONNECT [fd00::1]:443 HTTP/1.1\r\nHost: [fd00::1]:443\r\n")
    assert b"\r\nProxy-Authorization: Basic b3BzOnB3\r\n" in sent


@pytest.mark.parametrize(
    ("host", "address"),
    [
        (NAME, b"\x03" + bytes([len(NAME)]) + NAME.encode()),  # resolved by the proxy
        ("10.0.0.1", b"\x01\x0a\x00\x00\x01"),
        ("fd00::1", b"\x04" + b"\xfd" + b"\x00" * 14 + b"\x01"),
    ],
)
async def test_the_socks5_request_carries_the_name_or_the_address(
    host: str, address: bytes
) -> None:
    granted = answering(b"\x05\x00", b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")
    sent = await _through_script(granted, SOCKS, host=host)
    assert sent == b"\x05\x01\x00" + b"\x05\x01\x00" + address + (443).to_bytes(2, "big")


async def test_an_unreachable_proxy_is_named() -> None:
    route = Route(NAME, 443, proxy=Proxy("http", "127.0.0.1", 9, source="HTTPS_PROXY"))
    with pytest.raises(
        HttpError, match=r"cannot reach the proxy http://127\.0\.0\.1:9 \(HTTPS_PROXY\)"
    ):
        await route.open(asyncio.Protocol)
