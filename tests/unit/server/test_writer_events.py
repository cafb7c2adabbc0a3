"""Events recorded in the writer process: the real child (`python -m
kubesched.server.writer_child`) fed by `RemoteEventRecorder`, against a local HTTP server
standing in for the API server (the real one: tests/e2e/test_writer_process.py). The child
writes the bodies the in-process recorder writes, keeps the series, and its drops (with the
first 403's RBAC line) reach the scheduler's `kubesched_events_dropped_total`."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp import web

from kubesched.kube.writer_process import WriterProcess
from kubesched.scheduler.event_frames import RemoteEventRecorder
from kubesched.scheduler.event_recorder import EventRecorder, ObjectRef
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.writer_events import ChildEvents
from kubesched.server.writer_setup import CHILD_MODULE, reports_to
from tests.unit.api_fakes import wait_for
from tests.unit.kube.kube_server import PlainConnection, plain_client, serving

POD = ObjectRef("Pod", "ns", "p", "uid-p")
PREEMPTOR = ObjectRef("Pod", "ns", "high", "uid-h")
JSON = "application/json"
FAILED = {"reason": "write_failed"}


@dataclass
class Server:
    url: str = ""
    status: int = 201
    posts: list[dict[str, Any]] = field(default_factory=list)
    hold: asyncio.Event | None = None  # answers wait for it when set

    async def answer(self, request: web.Request) -> web.StreamResponse:
        body = orjson.loads(await request.read())
        if self.hold is not None:
            await self.hold.wait()
        if self.status >= 400:
            return web.json_response({"kind": "Status", "code": self.status}, status=self.status)
        self.posts.append(body)
        return web.json_response(body, status=self.status)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    state = Server()
    async with serving(state.answer) as url:
        state.url = url
        yield state


def _kubeconfig(tmp_path: Path, url: str) -> str:
    path = tmp_path / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
        f"clusters: [{{name: c, cluster: {{server: '{url}'}}}}]\n"
        "users: [{name: u, user: {}}]\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
    )
    return str(path)


@pytest.fixture
async def writer(server: Server, tmp_path: Path) -> AsyncIterator[tuple[WriterProcess, Any]]:
    metrics = SchedulerMetrics()
    settings = {"kubeconfig": _kubeconfig(tmp_path, server.url), "content_type": JSON}
    process = WriterProcess(
        [sys.executable, "-m", CHILD_MODULE], settings, on_report=reports_to(metrics)
    )
    await process.start()
    yield process, metrics
    await process.close(timeout=10)


def _events(recorder: EventRecorder | RemoteEventRecorder) -> None:
    for _ in range(3):  # one Event, then a series
        recorder.record(
            controller="my-scheduler",
            regarding=POD,
            type="Warning",
            reason="FailedScheduling",
            action="Scheduling",
            note="0/3 nodes are available: 3 Insufficient cpu." + "é" * 600,
        )
    recorder.record(
        controller="my-scheduler",
        regarding=POD,
        related=PREEMPTOR,
        type="Normal",
        reason="Preempted",
        action="Preempting",
        note="Preempted by pod uid-h on node n1",
    )


def _comparable(body: dict[str, Any]) -> dict[str, Any]:
    """`body` without what differs between two recorders (the name's random suffix, time)."""
    kept = {k: v for k, v in body.items() if k != "eventTime"}
    kept["metadata"] = {**body["metadata"], "name": body["metadata"]["name"].split(".")[0]}
    return kept


async def test_the_child_writes_what_the_in_process_recorder_writes(
    server: Server, writer: tuple[WriterProcess, SchedulerMetrics]
) -> None:
    process, metrics = writer
    remote = RemoteEventRecorder(process, on_drop=metrics.count_dropped_event)
    _events(remote)
    await remote.drain(timeout=10)
    from_child, server.posts = server.posts, []

    client = plain_client(server.url, content_type=JSON)
    local = EventRecorder(client)
    _events(local)
    await local.drain(timeout=10)
    await client.close()

    assert len(from_child) == 2  # the repeats joined the first one's series
    assert [_comparable(b) for b in from_child] == [_comparable(b) for b in server.posts]
    note = from_child[0]["note"]
    assert note.endswith("...")  # truncated there
    assert len(note.encode()) <= 1024
    labels = {"code": "201", "method": "POST", "host": server.url.removeprefix("http://")}
    assert metrics.registry.get_sample_value("rest_client_requests_total", labels) == 2
    await process.close(timeout=10)  # every event settled: none counted lost
    assert metrics.registry.get_sample_value("kubesched_events_dropped_total", FAILED) == 0


async def test_the_events_a_dead_child_held_are_counted_lost(
    server: Server, writer: tuple[WriterProcess, SchedulerMetrics]
) -> None:
    process, metrics = writer
    server.hold = asyncio.Event()  # the API server never answers
    remote = RemoteEventRecorder(process, on_drop=metrics.count_dropped_event)
    for name in ("a", "b", "c"):
        remote.record(
            controller="s",
            regarding=ObjectRef("Pod", "ns", name),
            type="Normal",
            reason="Scheduled",
            action="Binding",
            note=name,
        )
    await remote.drain(timeout=0.5)  # the child has them (and cannot write them)
    pid = process.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    await wait_for(lambda: process.pid is None, timeout=10)
    assert metrics.registry.get_sample_value("kubesched_events_dropped_total", FAILED) == 3
    server.hold.set()


async def test_drops_in_the_child_are_counted_by_the_scheduler(
    server: Server, writer: tuple[WriterProcess, SchedulerMetrics]
) -> None:
    process, metrics = writer
    server.status = 403
    remote = RemoteEventRecorder(process, on_drop=metrics.count_dropped_event)
    _events(remote)
    await remote.drain(timeout=10)
    # Each 403 leaves no series: the repeats are created (and refused) again.
    dropped = {"reason": "forbidden"}
    counted = metrics.registry.get_sample_value("kubesched_events_dropped_total", dropped)
    assert counted is not None
    assert counted >= 2


async def test_the_child_names_the_rbac_fix_once_and_reports_its_drops(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    server.status = 403
    reports: list[dict[str, Any]] = []
    settings = {"content_type": JSON}
    events = ChildEvents(PlainConnection(server=server.url), settings, reports.append)  # type: ignore[arg-type]
    _events(events.recorder)
    await events.drain()
    assert caplog.text.count("kubesched may not write events; they are dropped") == 1
    assert "grant create and patch on events" in caplog.text
    assert sum(r["x"].get("forbidden", 0) for r in reports) == events.recorder.dropped >= 2
    await events.close()


async def test_events_sent_while_no_child_runs_go_to_the_next(
    server: Server, writer: tuple[WriterProcess, SchedulerMetrics]
) -> None:
    process, metrics = writer
    pid = process.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    await wait_for(lambda: process.pid is None, timeout=10)
    remote = RemoteEventRecorder(process, on_drop=metrics.count_dropped_event)
    _events(remote)
    await wait_for(lambda: process.pid is not None, timeout=10)  # restarted after its backoff
    await remote.drain(timeout=10)
    assert [b["reason"] for b in server.posts] == ["FailedScheduling", "Preempted"]
    assert remote.dropped == 0


async def test_a_malformed_event_frame_is_skipped(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    reports: list[dict[str, Any]] = []
    settings = {"content_type": JSON}
    events = ChildEvents(PlainConnection(server=server.url), settings, reports.append)  # type: ignore[arg-type]
    events.record(["only", "three", "fields"])
    events.record(["c", "Pod", "ns", "p", "u", "v1", "Normal", "Scheduled", "Binding", "n", None])
    events.record(["c", "Pod", "ns", "p", "u", "v1", "Normal", "Scheduled", "Binding", "n", None])
    await events.close()
    assert [b["reason"] for b in server.posts] == ["Scheduled"]  # the repeat joined its series
    assert "malformed event frame; skipped" in caplog.text
    assert [o[:3] for r in reports for o in r["o"]] == [("POST", server.url[7:], "201")]
    assert reports[-1]["s"] == 3  # every frame settled
