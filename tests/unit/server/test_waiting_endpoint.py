"""/debug/waitingpods: the pods held at Permit, with wall-clock since/deadline, behind the
same delegated authn/authz as /metrics."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from kubesched.apis.waitingpods import WAITING_PODS_PATH, decode
from kubesched.framework import WaitingPod, WaitingPods
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.auth import DelegatedAuth
from kubesched.server.serving import HealthServer, ServingOptions
from kubesched.server.waiting_endpoint import waiting_pods_document
from kubesched.testing import make_pod
from tests.unit.server.serving_fakes import ADMIN_TOKEN, VIEWER_TOKEN, FakeReviewer


async def test_the_document_lists_each_waiting_pod_in_wall_clock_time() -> None:
    waiting = WaitingPods()
    pod = make_pod().name("job-0").namespace("ml").uid("u0").scheduler("gang").model()
    held = WaitingPod(pod=pod, plugin_timeouts={"Coscheduling": 30.0}, node_name="n1")
    waiting.add(held)
    # loop time 1000 + whatever; the wall clock is 10 000 s ahead of the loop's.
    offset = 10_000.0
    text = waiting_pods_document(
        waiting,
        leading=lambda: True,
        loop_time=lambda: held.since + 5.0,
        wall_time=lambda: held.since + 5.0 + offset,
    )
    listed = decode(json.loads(text))
    assert listed.leading is True
    assert listed.observed_at == pytest.approx(held.since + 5.0 + offset, abs=0.001)
    [record] = listed.items
    assert (record.key, record.uid, record.node, record.plugins) == (
        "ml/job-0",
        "u0",
        "n1",
        ("Coscheduling",),
    )
    assert record.scheduler_name == "gang"
    assert record.since == pytest.approx(held.since + offset, abs=0.001)
    assert record.deadline - record.since == pytest.approx(30.0, abs=0.002)
    held.reject("Coscheduling", "done")


async def test_a_standby_answers_not_leading_and_empty() -> None:
    listed = decode(json.loads(waiting_pods_document(WaitingPods(), leading=lambda: False)))
    assert (listed.leading, listed.items) == (False, ())


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[HealthServer]:
    reviewer = FakeReviewer()
    reviewer.allowed["admin"].add(WAITING_PODS_PATH)
    health = HealthServer(
        options=ServingOptions(bind_address="127.0.0.1", secure_port=0, cert_dir=tmp_path),
        metrics=SchedulerMetrics(),
        configz=lambda: "{}",
        auth=DelegatedAuth(reviewer),
        waiting_pods=lambda: waiting_pods_document(WaitingPods(), leading=lambda: True),
    )
    await health.start()
    yield health
    await health.stop()


async def get(server: HealthServer, token: str = "") -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    url = f"https://127.0.0.1:{server.port}{WAITING_PODS_PATH}"
    async with (
        aiohttp.ClientSession() as session,
        session.get(url, headers=headers, ssl=False) as response,
    ):
        return response.status, await response.text()


async def test_the_endpoint_needs_a_token_allowed_on_its_path(server: HealthServer) -> None:
    assert (await get(server))[0] == 401
    assert (await get(server, "forged"))[0] == 401
    status, body = await get(server, VIEWER_TOKEN)  # may get /metrics only
    assert status == 403
    assert f'cannot get path "{WAITING_PODS_PATH}"' in body
    status, body = await get(server, ADMIN_TOKEN)
    assert status == 200
    assert json.loads(body)["kind"] == "WaitingPodList"
