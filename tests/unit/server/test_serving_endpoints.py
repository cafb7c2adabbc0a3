"""The HTTPS server: health endpoints open to all, /metrics and /configz behind the authorizer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.auth import DelegatedAuth
from kubesched.server.serving import HealthServer, ServingOptions
from tests.unit.server.serving_fakes import ADMIN_TOKEN, NOBODY_TOKEN, VIEWER_TOKEN, FakeReviewer


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[HealthServer]:
    health = HealthServer(
        options=ServingOptions(bind_address="127.0.0.1", secure_port=0, cert_dir=tmp_path),
        metrics=SchedulerMetrics(),
        ready=lambda: True,
        live=lambda: True,
        configz=lambda: "kind: KubeSchedulerConfiguration\n",
        auth=DelegatedAuth(FakeReviewer()),
    )
    await health.start()
    yield health
    await health.stop()


async def fetch(
    server: HealthServer, path: str, token: str | None = None, method: str = "GET"
) -> tuple[int, str, dict[str, str]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method, f"https://127.0.0.1:{server.port}{path}", headers=headers, ssl=False
        ) as response,
    ):
        return response.status, await response.text(), dict(response.headers)


@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
async def test_health_is_open_over_https(server: HealthServer, path: str) -> None:
    status, body, _ = await fetch(server, path)
    assert (status, body) == (200, "ok")


@pytest.mark.parametrize("path", ["/metrics", "/configz", "/unknown"])
async def test_anonymous_is_401(server: HealthServer, path: str) -> None:
    status, _, headers = await fetch(server, path)
    assert status == 401
    assert headers["WWW-Authenticate"].startswith("Bearer")


async def test_forged_token_is_401(server: HealthServer) -> None:
    assert (await fetch(server, "/metrics", "forged"))[0] == 401


async def test_user_without_permission_is_403(server: HealthServer) -> None:
    status, body, _ = await fetch(server, "/metrics", NOBODY_TOKEN)
    assert status == 403
    assert 'cannot get path "/metrics"' in body


async def test_authorized_user_gets_metrics(server: HealthServer) -> None:
    status, body, headers = await fetch(server, "/metrics", VIEWER_TOKEN)
    assert status == 200
    assert "scheduler_preemption_attempts_total 0.0" in body  # unlabelled: served from the start
    assert headers["Content-Type"].startswith("text/plain")


async def test_configz_needs_its_own_permission(server: HealthServer) -> None:
    assert (await fetch(server, "/configz", VIEWER_TOKEN))[0] == 403
    status, body, _ = await fetch(server, "/configz", ADMIN_TOKEN)
    assert (status, body) == (200, "kind: KubeSchedulerConfiguration\n")


async def test_post_is_reviewed_as_create(server: HealthServer) -> None:
    assert (await fetch(server, "/metrics", ADMIN_TOKEN, method="POST"))[0] == 403
