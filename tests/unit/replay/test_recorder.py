"""`record` over a scripted API: lists, then changes with their times, bindings, events,
and the END record when a limit or a signal stops it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.kube.errors import Forbidden, NotFound
from kubesched.replay import read_trace, trace
from kubesched.replay.recorder import Limits, record
from kubesched.testing.builders import make_node, make_pod
from tests.unit.api_fakes import wait_for


class PathApi:
    """Answers lists from `objects` by path (NotFound for a path it does not serve) and
    plays `changes` on each path's watch, then idles."""

    def __init__(
        self, objects: dict[str, list[dict[str, Any]]], changes: dict[str, list[dict[str, Any]]]
    ) -> None:
        self.objects, self.changes = objects, changes
        self.forbidden: set[str] = set()
        self.methods: list[str] = []
        self.gate = asyncio.Event()

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        del params, timeout
        self.methods.append("GET")
        if path == "/version":
            return {"gitVersion": "v1.37.2"}
        if path in self.forbidden:
            raise Forbidden(403, "Forbidden", "cannot list", path=path)
        if path not in self.objects:
            raise NotFound(
                404, "NotFound", "the server could not find the requested resource", path=path
            )
        return {"items": self.objects[path], "metadata": {"resourceVersion": "10"}}

    async def watch(
        self, path: str, *, params: dict[str, str], inactivity_timeout: float
    ) -> AsyncIterator[dict[str, Any]]:
        del params, inactivity_timeout
        await self.gate.wait()
        for event in self.changes.get(path, []):
            yield event
        await asyncio.Event().wait()

    async def post(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        raise AssertionError("record never writes")

    put = post

    async def patch(self, *args: object, **kwargs: object) -> dict[str, Any]:
        raise AssertionError("record never writes")

    async def delete(self, *args: object, **kwargs: object) -> dict[str, Any]:
        raise AssertionError("record never writes")


def _api() -> PathApi:
    pod = make_pod().name("p").namespace("w").req(cpu="1").obj()
    pod["metadata"]["resourceVersion"] = "5"
    pod["spec"]["containers"][0]["env"] = [{"name": "SECRET", "value": "x"}]
    bound = {**pod, "metadata": {**pod["metadata"], "resourceVersion": "11"}}
    bound["spec"] = {**pod["spec"], "nodeName": "n1"}
    event = {
        "metadata": {"name": "e", "namespace": "w", "resourceVersion": "12"},
        "reason": "FailedScheduling",
        "involvedObject": {"namespace": "w", "name": "q"},
        "message": "0/1 nodes are available: 1 Insufficient cpu.",
    }
    return PathApi(
        objects={
            "/api/v1/nodes": [make_node().name("n1").obj()],
            "/api/v1/pods": [pod],
            "/api/v1/namespaces": [{"metadata": {"name": "w", "resourceVersion": "1"}}],
            "/api/v1/events": [],
        },
        changes={
            "/api/v1/pods": [{"type": "MODIFIED", "object": bound}],
            "/api/v1/events": [{"type": "ADDED", "object": event}],
        },
    )


async def _record(api: PathApi, out: Path, stop: asyncio.Event, limits: Limits) -> list[str]:
    lines: list[str] = []
    task = asyncio.create_task(
        record(api, out, limits=limits, stop=stop, progress=lines.append, version="test")
    )
    await wait_for(lambda: lines, timeout=5.0)  # progress comes once SYNCED is written
    api.gate.set()
    await asyncio.sleep(0.3)  # the watch events reach the writer
    stop.set()
    summary = await task
    assert summary.reason == "signal"
    return lines


async def test_a_recording_holds_lists_changes_bindings_and_events(tmp_path: Path) -> None:
    api, out = _api(), tmp_path / "t.jsonl.gz"
    lines = await _record(api, out, asyncio.Event(), Limits(duration=60, max_bytes=2**20))
    recorded = read_trace(out)
    assert recorded.header.server == "v1.37.2"
    assert recorded.header.kinds == ("nodes", "pods", "namespaces")
    records = list(recorded.records())
    ops = [(r["op"], r.get("kind", "")) for r in records]
    assert ops[:4] == [("LIST", "nodes"), ("LIST", "pods"), ("LIST", "namespaces"), ("SYNCED", "")]
    assert ("MODIFIED", "pods") in ops
    bound = next(r for r in records if r["op"] == trace.BOUND)
    assert (bound["pod"], bound["node"]) == ("w/p", "n1")
    event = next(r for r in records if r["op"] == trace.EVENT)
    assert (event["reason"], event["pod"]) == ("FailedScheduling", "w/q")
    assert recorded.end_reason == "signal"
    assert "SECRET" not in out.read_bytes().decode("latin-1")  # gzip, but check the text too
    assert "SECRET" not in str(records)
    assert set(api.methods) == {"GET"}
    assert lines
    assert lines[0].startswith("recording ")


async def test_the_duration_ends_a_recording(tmp_path: Path) -> None:
    api, out = _api(), tmp_path / "t.jsonl.gz"
    api.gate.set()
    summary = await record(
        api,
        out,
        limits=Limits(duration=0.3, max_bytes=2**20),
        stop=asyncio.Event(),
        progress=lambda line: None,
    )
    assert summary.reason == "duration"
    assert read_trace(out).end_reason == "duration"


async def test_a_kind_not_served_is_skipped_but_pods_are_required(tmp_path: Path) -> None:
    api = _api()
    api.gate.set()
    summary = await record(
        api,
        tmp_path / "t.jsonl.gz",
        limits=Limits(duration=0.1, max_bytes=2**20),
        stop=asyncio.Event(),
        progress=lambda line: None,
    )
    assert "apps/replicasets" in summary.not_served
    assert summary.forbidden == ()
    del api.objects["/api/v1/pods"]
    with pytest.raises(NotFound):
        await record(
            api,
            tmp_path / "u.jsonl.gz",
            limits=Limits(duration=0.1, max_bytes=2**20),
            stop=asyncio.Event(),
            progress=lambda line: None,
        )


async def test_a_forbidden_kind_is_named_apart_from_those_not_served(tmp_path: Path) -> None:
    api = _api()
    api.gate.set()
    api.objects["/api/v1/services"] = []
    api.forbidden.add("/api/v1/services")
    summary = await record(
        api,
        tmp_path / "t.jsonl.gz",
        limits=Limits(duration=0.1, max_bytes=2**20),
        stop=asyncio.Event(),
        progress=lambda line: None,
    )
    assert summary.forbidden == ("services",)
    assert "services" not in summary.not_served
    assert "services" not in read_trace(tmp_path / "t.jsonl.gz").header.kinds
