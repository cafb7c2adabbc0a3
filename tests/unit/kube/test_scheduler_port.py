"""Reading a scheduler's secure port with the kubeconfig's credentials: one line per failure
(bad URL, unreachable, untrusted certificate, 401, 403, 404, not JSON), the JSON otherwise."""

from __future__ import annotations

import json
import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from kubesched.apis.waitingpods import WAITING_PODS_PATH, PermitViewError
from kubesched.kube.connection import Connection
from kubesched.kube.scheduler_port import SchedulerPort, _decoded, get_json
from kubesched.server.certs import ensure_self_signed

TOKEN = "kubeconfig-token"


class TokenConfiguration:
    cert_file = None
    key_file = None

    async def get_api_key_with_prefix(self, name: str) -> str:
        return f"Bearer {TOKEN}"


def connection() -> Connection:
    return Connection("https://api.example:6443", False, TokenConfiguration())


@pytest.fixture
async def scheduler(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    """An HTTPS server with a self-signed certificate; the answer depends on the path."""
    cert, key = ensure_self_signed(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def answer(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.Response(status=401, text="Unauthorized")
        replies: dict[str, Any] = {
            WAITING_PODS_PATH: web.json_response({"kind": "WaitingPodList", "items": []}),
            "/forbidden": web.Response(status=403, text='forbidden: User "u" cannot get path'),
            "/text": web.Response(text="hello"),
        }
        return replies.get(request.path) or web.Response(status=404, text="404: Not Found")

    app = web.Application()
    app.router.add_get("/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"https://127.0.0.1:{port}", cert
    await runner.cleanup()


async def test_the_document_with_the_kubeconfig_token(scheduler: tuple[str, Path]) -> None:
    url, cert = scheduler
    found = await get_json(SchedulerPort(url, ca_file=str(cert)), connection(), WAITING_PODS_PATH)
    assert found == {"kind": "WaitingPodList", "items": []}
    insecure = SchedulerPort(url, insecure=True)
    assert (await get_json(insecure, connection(), WAITING_PODS_PATH))["kind"] == "WaitingPodList"


async def test_an_untrusted_certificate_names_both_fixes(scheduler: tuple[str, Path]) -> None:
    url, _ = scheduler
    with pytest.raises(PermitViewError) as caught:
        await get_json(SchedulerPort(url), connection(), WAITING_PODS_PATH)
    message = str(caught.value)
    assert message.startswith(f"the scheduler at {url} presented a certificate that is not trusted")
    assert "--scheduler-certificate-authority=FILE" in message
    assert "--scheduler-insecure-skip-tls-verify" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/forbidden", 'refused /forbidden (403 forbidden: User "u" cannot get path); grant'),
        (WAITING_PODS_PATH + "x", "answered GET /debug/waitingpodsx with 404"),
        ("/text", "with something that is not JSON"),
    ],
)
async def test_refusals_are_one_line(scheduler: tuple[str, Path], path: str, expected: str) -> None:
    url, _ = scheduler
    with pytest.raises(PermitViewError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        await get_json(SchedulerPort(url, insecure=True), connection(), path)


def test_kube_scheduler_does_not_serve_the_endpoint() -> None:
    port = SchedulerPort("https://127.0.0.1:10259")
    with pytest.raises(
        PermitViewError, match=r"does not serve /debug/waitingpods \(kube-scheduler"
    ):
        _decoded(port, WAITING_PODS_PATH, 404, b"404 page not found")


async def test_a_token_the_scheduler_does_not_accept_is_401(scheduler: tuple[str, Path]) -> None:
    url, _ = scheduler

    class NoToken(TokenConfiguration):
        async def get_api_key_with_prefix(self, name: str) -> str:
            return ""

    anonymous = Connection("https://api.example:6443", False, NoToken())
    with pytest.raises(PermitViewError, match="did not accept the kubeconfig's credentials"):
        await get_json(SchedulerPort(url, insecure=True), anonymous, WAITING_PODS_PATH)


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:10259", "127.0.0.1:10259", "https://", "https://h:x"]
)
async def test_a_bad_url(url: str) -> None:
    with pytest.raises(PermitViewError, match="give the https:// address of kubesched's secure"):
        await get_json(SchedulerPort(url), connection(), WAITING_PODS_PATH)


async def test_nobody_listening() -> None:
    with pytest.raises(PermitViewError) as caught:
        await get_json(SchedulerPort("https://127.0.0.1:1"), connection(), WAITING_PODS_PATH)
    assert str(caught.value).startswith("cannot reach the scheduler at https://127.0.0.1:1 (")
    assert json.dumps(str(caught.value)).count("\\n") == 0
