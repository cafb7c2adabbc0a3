"""No token or credential is ever logged: neither ours (the kubeconfig's bearer token, in
transport errors) nor a caller's (the token sent to /metrics)."""

from __future__ import annotations

import logging
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection
from kubesched.kube.errors import ApiError, ConnectionFailed, Forbidden
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.auth import DelegatedAuth
from kubesched.server.serving import HealthServer, ServingOptions
from tests.unit.server.serving_fakes import ADMIN_TOKEN, NOBODY_TOKEN, FakeReviewer

OUR_TOKEN = "our-very-secret-kubeconfig-token"


class TokenConfiguration:
    """What kubernetes_asyncio's Configuration offers `Connection`: the current token."""

    async def get_api_key_with_prefix(self, name: str) -> str:
        return f"Bearer {OUR_TOKEN}"


@pytest.fixture
async def looping_server() -> AsyncIterator[str]:
    """An HTTP server that redirects forever (aiohttp, which opens watches, raises
    TooManyRedirects, whose repr holds the request headers) and checks it was sent our
    token."""
    seen: list[str] = []

    async def loop(request: web.Request) -> web.StreamResponse:
        seen.append(request.headers.get("Authorization", ""))
        raise web.HTTPFound("/api/v1/pods")

    app = web.Application()
    app.router.add_get("/api/v1/pods", loop)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}"
    assert f"Bearer {OUR_TOKEN}" in seen  # the token really was in the failing request
    await runner.cleanup()


async def test_transport_errors_do_not_carry_our_token(
    looping_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    connection = Connection(looping_server, False, TokenConfiguration())
    client = KubeClient(connection, timeout=5.0)
    try:
        with pytest.raises(ConnectionFailed) as caught:
            async for _ in client.watch("/api/v1/pods", params={}, inactivity_timeout=5.0):
                pass
    finally:
        await client.close()
    error = caught.value
    assert isinstance(error.__cause__, aiohttp.TooManyRedirects)
    assert OUR_TOKEN in repr(error.__cause__)  # what the message must not be built from
    logging.getLogger("test").error("as a caller would log it", exc_info=error)
    for text in (str(error), repr(error), error.message, caplog.text):
        assert OUR_TOKEN not in text


async def test_a_redirect_is_an_answer_not_followed(
    looping_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An ordinary request does not follow a redirect (the token would go along): the 302
    is the answer, an ApiError without the token."""
    caplog.set_level(logging.DEBUG)
    client = KubeClient(Connection(looping_server, False, TokenConfiguration()), timeout=5.0)
    try:
        with pytest.raises(ApiError) as caught:
            await client.get("/api/v1/pods")
    finally:
        await client.close()
    assert caught.value.status == 302
    logging.getLogger("test").error("as a caller would log it", exc_info=caught.value)
    for text in (str(caught.value), repr(caught.value), caplog.text):
        assert OUR_TOKEN not in text


async def test_connection_refused_messages_have_no_token() -> None:
    connection = Connection(
        "https://127.0.0.1:1", ssl.create_default_context(), TokenConfiguration()
    )
    client = KubeClient(connection, timeout=2.0)
    try:
        with pytest.raises(ConnectionFailed) as caught:
            await client.get("/version")
    finally:
        await client.close()
    assert OUR_TOKEN not in str(caught.value)


async def test_callers_tokens_are_never_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    reviewer = FakeReviewer()
    health = HealthServer(
        options=ServingOptions(bind_address="127.0.0.1", secure_port=0, cert_dir=tmp_path),
        metrics=SchedulerMetrics(),
        ready=lambda: True,
        live=lambda: True,
        configz=lambda: "",
        auth=DelegatedAuth(reviewer),
    )
    await health.start()
    tokens = [ADMIN_TOKEN, NOBODY_TOKEN, "forged-token-123456"]
    try:
        async with aiohttp.ClientSession() as session:
            for failure in (
                None,
                ApiError(500, "InternalError", "boom"),
                Forbidden(403, "F", "no"),
            ):
                reviewer.fail_with = failure
                for token in tokens:
                    url = f"https://127.0.0.1:{health.port}/metrics?nocache={failure!s}"
                    headers = {"Authorization": f"Bearer {token}-{failure!s}"}
                    async with session.get(url, headers=headers, ssl=False) as response:
                        await response.read()
    finally:
        await health.stop()
    assert "could not authenticate" in caplog.text  # errors were logged ...
    for token in tokens:
        assert token not in caplog.text  # ... without the token
