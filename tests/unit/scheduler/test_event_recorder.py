"""EventRecorder: events.k8s.io/v1 bodies, series aggregation, truncation, drops, errors."""

from __future__ import annotations

import asyncio
import re

import pytest

from kubesched.kube.api import MERGE_PATCH
from kubesched.kube.errors import ApiError, ConnectionFailed, NotFound
from kubesched.scheduler import event_recorder as events_module
from kubesched.scheduler.event_recorder import (
    NOTE_MAX_BYTES,
    EventRecorder,
    ObjectRef,
    truncate_note,
)
from kubesched.scheduler.metrics import SchedulerMetrics
from tests.unit.api_fakes import FakeApi, FakeClock, wait_for

POD = ObjectRef("Pod", "ns", "p", "uid-p")
EVENTS_PATH = "/apis/events.k8s.io/v1/namespaces/ns/events"


def recorder(api: FakeApi, clock: FakeClock, **kwargs: object) -> EventRecorder:
    return EventRecorder(api, clock=clock, hostname="host-1", **kwargs)  # type: ignore[arg-type]


def failed(rec: EventRecorder, note: str = "0/3 nodes are available: 3 Insufficient cpu.") -> None:
    rec.record(
        controller="my-scheduler",
        regarding=POD,
        type="Warning",
        reason="FailedScheduling",
        action="Scheduling",
        note=note,
    )


def failed_key(note: str) -> bytes:
    """The series key of `failed(rec, note)`."""
    record = events_module._Record(
        "my-scheduler", POD, "Warning", "FailedScheduling", "Scheduling", note
    )
    return events_module.series_key(record)


async def test_first_event_is_posted_with_the_full_body() -> None:
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    failed(rec)
    await rec.drain(timeout=1)

    (post,) = api.posts()
    assert post.path == EVENTS_PATH
    body = post.body
    assert body["apiVersion"] == "events.k8s.io/v1"
    assert body["kind"] == "Event"
    assert body["metadata"]["namespace"] == "ns"
    assert re.fullmatch(r"p\.[0-9a-f]{16}", body["metadata"]["name"])
    assert body["reportingController"] == "my-scheduler"
    assert body["reportingInstance"] == "my-scheduler-host-1"
    assert body["regarding"] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "namespace": "ns",
        "name": "p",
        "uid": "uid-p",
    }
    assert body["note"] == "0/3 nodes are available: 3 Insufficient cpu."
    assert body["action"] == "Scheduling"
    assert body["reason"] == "FailedScheduling"
    assert body["type"] == "Warning"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", body["eventTime"])
    assert "series" not in body
    assert rec.written == 1


async def test_cluster_scoped_object_events_go_to_default_namespace() -> None:
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    ref = ObjectRef("Lease", "", "kube-scheduler", api_version="coordination.k8s.io/v1")
    rec.record(
        controller="s", regarding=ref, type="Normal", reason="LeaderElection", action="A", note="n"
    )
    await rec.drain(timeout=1)
    (post,) = api.posts()
    assert post.path == "/apis/events.k8s.io/v1/namespaces/default/events"
    assert post.body["regarding"] == {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "namespace": "",
        "name": "kube-scheduler",
    }


async def test_repeats_become_a_series_patched_at_most_every_30s() -> None:
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    failed(rec)
    await rec.drain(timeout=1)
    name = api.posts()[0].body["metadata"]["name"]

    clock.step(10)
    failed(rec)  # count 2, less than 30 s after the create: no request at all
    await rec.drain(timeout=1)
    assert len(api.calls) == 1

    clock.step(25)  # 35 s after the create
    failed(rec)  # count 3 -> patched
    await rec.drain(timeout=1)
    (patch,) = api.patches()
    assert patch.path == f"{EVENTS_PATH}/{name}"
    assert patch.content_type == MERGE_PATCH
    assert patch.body["series"]["count"] == 3
    assert "lastObservedTime" in patch.body["series"]

    clock.step(20)  # only 20 s since that patch
    failed(rec)
    failed(rec)
    await rec.drain(timeout=1)
    assert len(api.patches()) == 1
    clock.step(10)
    failed(rec)  # count 6, 30 s after the last patch
    await rec.drain(timeout=1)
    assert [p.body["series"]["count"] for p in api.patches()] == [3, 6]
    assert len(api.posts()) == 1


async def test_identical_event_after_6_minutes_is_a_new_event() -> None:
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    failed(rec)
    await rec.drain(timeout=1)
    clock.step(6 * 60 - 1)
    failed(rec)  # still within the window (measured from the last occurrence)
    await rec.drain(timeout=1)
    assert len(api.posts()) == 1
    clock.step(6 * 60)
    failed(rec)
    await rec.drain(timeout=1)
    assert len(api.posts()) == 2


@pytest.mark.parametrize(
    "change",
    [
        {"note": "other note"},
        {"reason": "Scheduled"},
        {"type": "Normal"},
        {"action": "Binding"},
        {"controller": "other-scheduler"},
        {"regarding": ObjectRef("Pod", "ns", "p", "uid-new")},
    ],
)
async def test_events_differing_in_any_field_are_not_a_series(change: dict[str, object]) -> None:
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    failed(rec)
    fields: dict[str, object] = {
        "controller": "my-scheduler",
        "regarding": POD,
        "type": "Warning",
        "reason": "FailedScheduling",
        "action": "Scheduling",
        "note": "0/3 nodes are available: 3 Insufficient cpu.",
    }
    rec.record(**{**fields, **change})  # type: ignore[arg-type]
    await rec.drain(timeout=1)
    assert len(api.posts()) == 2


def test_truncate_note_keeps_short_notes() -> None:
    assert truncate_note("x" * NOTE_MAX_BYTES) == "x" * NOTE_MAX_BYTES


@pytest.mark.parametrize("char", ["x", "é", "€", "🙂"])
def test_truncate_note_limits_bytes_not_characters(char: str) -> None:
    note = char * 2000
    short = truncate_note(note)
    assert len(short.encode()) <= NOTE_MAX_BYTES
    assert short.endswith("...")
    assert note.startswith(short[:-3])
    assert len(short.encode()) > NOTE_MAX_BYTES - 8  # cut near the limit, not far below


async def test_long_note_is_truncated_in_the_event() -> None:
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    failed(rec, note="n" * 5000)
    await rec.drain(timeout=1)
    note = api.posts()[0].body["note"]
    assert len(note.encode()) == NOTE_MAX_BYTES
    assert note.endswith("...")


async def test_full_queue_drops_and_counts(caplog: pytest.LogCaptureFixture) -> None:
    api, clock = FakeApi(), FakeClock()
    metrics = SchedulerMetrics()
    rec = recorder(api, clock, max_queued=2, on_drop=metrics.count_dropped_event)
    for i in range(5):
        failed(rec, note=f"note {i}")
    assert rec.dropped == 3
    dropped = metrics.registry.get_sample_value(
        "kubesched_events_dropped_total", {"reason": "queue_full"}
    )
    assert dropped == 3
    # Logged once for the interval, not once per event.
    assert caplog.text.count('"events dropped"') == 1
    await rec.drain(timeout=1)
    assert [p.body["note"] for p in api.posts()] == ["note 0", "note 1"]
    clock.step(61)
    failed(rec, note="note 2")
    failed(rec, note="note 3")
    failed(rec, note="note 4")
    assert caplog.text.count('"events dropped"') == 2
    assert "count=3" in caplog.text.splitlines()[-1]  # the two earlier, then the one now


async def test_forbidden_is_explained_once_naming_the_rbac_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    api, clock = FakeApi(), FakeClock()
    api.errors["/events"] = ApiError.from_status(403, {"reason": "Forbidden"})
    rec = recorder(api, clock)
    for i in range(3):
        failed(rec, note=f"note {i}")
        await rec.drain(timeout=1)
    assert rec.dropped == 3
    assert caplog.text.count("kubesched may not write events") == 1
    assert "grant create and patch on events (apiGroup events.k8s.io)" in caplog.text
    assert "kubesched doctor" in caplog.text


@pytest.mark.parametrize(
    "error",
    [
        ApiError.from_status(500, {"reason": "InternalError"}),
        ApiError.from_status(403, {"reason": "Forbidden"}),
        ConnectionFailed("refused"),
    ],
)
async def test_create_errors_are_logged_not_raised(
    error: ApiError, caplog: pytest.LogCaptureFixture
) -> None:
    api, clock = FakeApi(), FakeClock()
    api.fail_next(error)
    rec = recorder(api, clock)
    failed(rec)
    await rec.drain(timeout=1)
    assert rec.written == 0
    assert rec.dropped == 1
    assert "events dropped" in caplog.text
    # Not remembered as a series: the next occurrence tries to create it again.
    failed(rec)
    await rec.drain(timeout=1)
    assert len(api.posts()) == 2
    assert rec.written == 1


async def test_series_patch_errors_are_logged_and_not_found_forgets_the_series(
    caplog: pytest.LogCaptureFixture,
) -> None:
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    failed(rec)
    await rec.drain(timeout=1)
    clock.step(31)
    api.fail_next(ApiError.from_status(500, {}))
    failed(rec)
    await rec.drain(timeout=1)
    assert "could not update event series" in caplog.text
    clock.step(31)
    api.fail_next(NotFound(404, "NotFound", "event expired"))
    failed(rec)
    await rec.drain(timeout=1)
    assert len(api.patches()) == 2
    failed(rec)  # the Event is gone: start a new one
    await rec.drain(timeout=1)
    assert len(api.posts()) == 2


async def test_run_writes_in_background_and_flushes_series(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(events_module, "SERIES_PATCH_INTERVAL_SECONDS", 0.01)
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    task = asyncio.create_task(rec.run())
    try:
        failed(rec)
        await wait_for(api.posts)
        failed(rec)  # count 2, queued as dirty: the periodic flush patches it
        await wait_for(rec._queue.empty)
        assert not api.patches()
        clock.step(1)
        await wait_for(api.patches)
        assert api.patches()[0].body["series"]["count"] == 2
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()


async def test_drain_is_bounded_by_its_timeout() -> None:
    class SlowApi(FakeApi):
        async def post(self, path, body, *, timeout=None):  # type: ignore[no-untyped-def]
            await asyncio.sleep(10)
            return body

    api, clock = SlowApi(), FakeClock()
    rec = recorder(api, clock)
    failed(rec)
    async with asyncio.timeout(1):
        await rec.drain(timeout=0.01)
    assert rec.written == 0


class _HeldApi(FakeApi):
    """Every POST waits until `release` is set; `in_flight` counts the waiting ones."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.in_flight = 0
        self.most_in_flight = 0

    async def post(self, path, body, *, timeout=None):  # type: ignore[no-untyped-def]
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.release.wait()
            return await super().post(path, body, timeout=timeout)
        finally:
            self.in_flight -= 1


async def test_writes_run_concurrently_up_to_the_limit() -> None:
    # One write at a time would bound the events to one per API round trip: fewer than a
    # busy scheduler binds pods, so the queue would overflow and drop Scheduled events.
    api, clock = _HeldApi(), FakeClock()
    rec = recorder(api, clock)
    total = events_module.MAX_WRITES_IN_FLIGHT + 8
    for index in range(total):
        failed(rec, note=f"note {index}")
    task = asyncio.create_task(rec.run())
    try:
        await wait_for(lambda: api.in_flight == events_module.MAX_WRITES_IN_FLIGHT)
        await asyncio.sleep(0.01)  # no more start while every slot is taken
        assert api.in_flight == events_module.MAX_WRITES_IN_FLIGHT
        assert rec.unwritten == total  # in flight, waiting for a slot, queued
        api.release.set()
        await wait_for(lambda: rec.written == total)
        assert rec.unwritten == 0
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert api.most_in_flight == events_module.MAX_WRITES_IN_FLIGHT
    assert len(api.posts()) == total
    assert rec.dropped == 0


async def test_a_repeat_while_its_create_is_in_flight_joins_the_series() -> None:
    api, clock = _HeldApi(), FakeClock()
    rec = recorder(api, clock)
    task = asyncio.create_task(rec.run())
    try:
        failed(rec)
        await wait_for(lambda: api.in_flight == 1)
        failed(rec)  # the same event before the first is written: counted, not posted
        await wait_for(rec._queue.empty)
        api.release.set()
        await wait_for(lambda: rec.written == 1)
        clock.step(31)
        failed(rec)  # count 3, 31 s after the create: patched
        await wait_for(api.patches)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert len(api.posts()) == 1
    assert api.patches()[0].body["series"]["count"] == 3


async def test_expired_series_are_pruned_each_time_the_map_doubles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A pass over every series per event made a burst of distinct events quadratic (10,000
    # Scheduled events: 10,000 passes over up to 10,000 series).
    monkeypatch.setattr(events_module, "SERIES_PRUNE_AT", 8)
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    for index in range(8):
        failed(rec, note=f"old {index}")
    await rec.drain(timeout=1)
    assert len(rec._series) == 8  # a pass at 8: none expired, the next one at 16
    clock.step(events_module.SERIES_WINDOW_SECONDS + 1)
    for index in range(7):
        failed(rec, note=f"new {index}")
    await rec.drain(timeout=1)
    assert len(rec._series) == 15  # the 8 expired ones wait for the pass at 16
    failed(rec, note="new 7")
    await rec.drain(timeout=1)
    assert set(rec._series) == {failed_key(f"new {index}") for index in range(8)}


async def test_the_periodic_pass_drops_expired_series(monkeypatch: pytest.MonkeyPatch) -> None:
    # Under steady churn (a Scheduled event per pod) the map held 6 to 12 minutes of
    # events when only the doubling pass dropped them; the 30 s pass keeps it to the window.
    monkeypatch.setattr(events_module, "SERIES_PATCH_INTERVAL_SECONDS", 0.01)
    api, clock = FakeApi(), FakeClock()
    rec = recorder(api, clock)
    task = asyncio.create_task(rec.run())
    try:
        for index in range(100):
            failed(rec, note=f"old {index}")
        await wait_for(lambda: rec.written == 100)
        clock.step(events_module.SERIES_WINDOW_SECONDS - 1)
        failed(rec, note="recent")
        await wait_for(lambda: rec.written == 101)
        clock.step(2)  # the old ones expired, the recent one did not
        await wait_for(lambda: len(rec._series) == 1)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert list(rec._series) == [failed_key("recent")]
