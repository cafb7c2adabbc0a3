"""The extender HTTP client: JSON POSTs to `<urlPrefix>/<verb>`, upstream's error texts,
the timeout, and TLS as upstream's `makeTransport` sets it (a local HTTPS server whose
certificate the local control plane's PKI helper signs)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp import web

from kubesched.apis.extenders import Extender, ExtenderTLSConfig
from kubesched.kube.extender_http import (
    ExtenderCallError,
    ExtenderClient,
    ExtenderSetupError,
    extender_ssl_context,
)
from kubesched.localcluster.pki import write_pki
from tests.e2e.harness.client_certs import client_certificate
from tests.unit.kube.kube_server import Answer, serving


async def echo(request: web.Request) -> web.Response:
    body = orjson.loads(await request.read())
    answer = {"path": request.path, "type": request.content_type, "body": body}
    return web.Response(body=orjson.dumps(answer), content_type="application/json")


async def test_posts_json_to_the_verb_under_the_prefix() -> None:
    async with serving(echo) as url:
        client = ExtenderClient(Extender(url_prefix=f"{url}/scheduler/"))
        try:
            answer = await client.post("filter", {"Pod": {"metadata": {"name": "p"}}})
        finally:
            await client.close()
    assert answer == {
        "path": "/scheduler/filter",
        "type": "application/json",
        "body": {"Pod": {"metadata": {"name": "p"}}},
    }


async def test_an_answer_other_than_200_is_upstreams_error() -> None:
    async def refuse(_request: web.Request) -> web.Response:
        return web.Response(status=503, text="busy")

    async with serving(refuse) as url:
        client = ExtenderClient(Extender(url_prefix=url))
        with pytest.raises(ExtenderCallError) as caught:
            await client.post("prioritize", {})
        await client.close()
    assert str(caught.value) == (
        f"failed prioritize with extender at URL {url}/prioritize, code 503"
    )


async def test_the_http_timeout_bounds_a_call() -> None:
    async def slow(_request: web.Request) -> web.Response:
        await asyncio.sleep(1)
        return web.Response(text="{}")

    async with serving(slow) as url:
        client = ExtenderClient(Extender(url_prefix=url, http_timeout=0.2))
        with pytest.raises(ExtenderCallError, match=r"context deadline exceeded"):
            await client.post("filter", {})
        await client.close()


async def test_an_unreachable_extender_reads_as_gos_error() -> None:
    client = ExtenderClient(Extender(url_prefix="http://127.0.0.1:9"))
    with pytest.raises(ExtenderCallError) as caught:
        await client.post("bind", {})
    await client.close()
    assert str(caught.value) == (
        'Post "http://127.0.0.1:9/bind": dial tcp 127.0.0.1:9: connect: connection refused'
    )


async def test_an_answer_that_is_no_json_is_an_error() -> None:
    async def garbage(_request: web.Request) -> web.Response:
        return web.Response(text="<html>")

    async with serving(garbage) as url:
        client = ExtenderClient(Extender(url_prefix=url))
        with pytest.raises(ExtenderCallError, match=r"decoding the answer of"):
            await client.post("filter", {})
        await client.close()


@asynccontextmanager
async def serving_tls(
    answer: Answer, certificate: Path, key: Path, *, client_ca: bytes = b""
) -> AsyncIterator[str]:
    """HTTPS on 127.0.0.1; with `client_ca`, callers must show a certificate it signed."""
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    if client_ca:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(cadata=client_ca.decode())
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"https://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_https_verified_with_the_ca_of_the_tls_config(tmp_path: Path) -> None:
    pki = write_pki(tmp_path)
    async with serving_tls(echo, pki.serving_cert, pki.serving_key) as url:
        by_file = Extender(
            url_prefix=url,
            enable_https=True,
            tls_config=ExtenderTLSConfig(ca_file=str(pki.ca_cert)),
        )
        by_data = Extender(
            url_prefix=url,
            enable_https=True,
            tls_config=ExtenderTLSConfig(ca_data=pki.ca_cert.read_bytes(), server_name="localhost"),
        )
        for extender in (by_file, by_data):
            client = ExtenderClient(extender)
            answer: Any = await client.post("filter", {"x": 1})
            await client.close()
            assert answer["body"] == {"x": 1}
        unverified = ExtenderClient(Extender(url_prefix=url))  # system CAs only: refused
        with pytest.raises(ExtenderCallError, match="certificate"):
            await unverified.post("filter", {})
        await unverified.close()
        no_ca = ExtenderClient(Extender(url_prefix=url, enable_https=True))  # upstream: insecure
        assert (await no_ca.post("filter", {}))["path"] == "/filter"
        await no_ca.close()


def test_tls_settings_as_upstreams_make_transport(tmp_path: Path) -> None:
    assert extender_ssl_context(Extender(url_prefix="https://e")) is None
    insecure = extender_ssl_context(Extender(url_prefix="https://e", enable_https=True))
    assert insecure is not None
    assert insecure.verify_mode == ssl.CERT_NONE
    pki = write_pki(tmp_path)
    both = ExtenderTLSConfig(insecure=True, ca_file=str(pki.ca_cert))
    with pytest.raises(ExtenderSetupError, match="with the insecure flag is not allowed"):
        extender_ssl_context(Extender(url_prefix="https://e", tls_config=both))
    missing = ExtenderTLSConfig(ca_file=str(tmp_path / "none.pem"))
    with pytest.raises(ExtenderSetupError, match=r"^extender https://e: cannot load"):
        extender_ssl_context(Extender(url_prefix="https://e", tls_config=missing))
    client_cert = ExtenderTLSConfig(
        cert_data=pki.serving_cert.read_bytes(), key_data=pki.serving_key.read_bytes()
    )
    assert extender_ssl_context(Extender(url_prefix="https://e", tls_config=client_cert))


async def test_calls_go_through_the_environments_http_proxy_as_gos() -> None:
    seen: list[str] = []

    async def proxy(request: web.Request) -> web.Response:
        seen.append(str(request.url))
        return web.Response(text='{"through": "proxy"}')

    async with serving(proxy) as proxy_url:
        environ = {"HTTP_PROXY": proxy_url, "NO_PROXY": "skipped.example"}
        client = ExtenderClient(Extender(url_prefix="http://extender.example/x"), environ=environ)
        assert await client.post("filter", {}) == {"through": "proxy"}
        await client.close()
        direct = ExtenderClient(Extender(url_prefix="http://skipped.example/x"), environ=environ)
        assert direct.proxy is None
        loopback = ExtenderClient(Extender(url_prefix="http://127.0.0.1:1/x"), environ=environ)
        assert loopback.proxy is None  # Go never proxies loopback
    assert seen == ["http://extender.example/x/filter"]


def test_a_socks_proxy_is_refused_in_one_line() -> None:
    environ = {"HTTPS_PROXY": "socks5://127.0.0.1:1080"}
    with pytest.raises(ExtenderSetupError, match=r"through the SOCKS proxy socks5://127"):
        ExtenderClient(Extender(url_prefix="https://extender.example"), environ=environ)


async def test_a_client_certificate_from_data_passes_mutual_tls(tmp_path: Path) -> None:
    pki = write_pki(tmp_path)
    client = client_certificate()
    async with serving_tls(echo, pki.serving_cert, pki.serving_key, client_ca=client.ca) as url:
        tls = ExtenderTLSConfig(
            ca_data=pki.ca_cert.read_bytes(), cert_data=client.cert, key_data=client.key
        )
        with_cert = ExtenderClient(Extender(url_prefix=url, tls_config=tls))
        assert (await with_cert.post("filter", {"a": 1}))["body"] == {"a": 1}
        await with_cert.close()
        without = ExtenderClient(
            Extender(url_prefix=url, tls_config=ExtenderTLSConfig(ca_data=tls.ca_data))
        )
        with pytest.raises(ExtenderCallError):
            await without.post("filter", {})
        await without.close()
