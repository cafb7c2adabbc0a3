"""Events sent to the writer process as frames (`kubesched.scheduler.event_frames`): the
fields survive the frame stream unchanged, malformed fields are refused, the scheduler's
side only sends (and counts what it cannot keep), and the reports' drops reach
`kubesched_events_dropped_total`."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.kube.writer_frames import FrameReader, encode
from kubesched.scheduler.event_frames import (
    DRAIN,
    EVENT,
    EventFrameError,
    RemoteEventRecorder,
    count_reported_drops,
    event_fields,
    record_arguments,
)
from kubesched.scheduler.event_recorder import ObjectRef
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.writer_setup import reports_to

POD = ObjectRef("Pod", "ns", "p", "uid-p")
PREEMPTOR = ObjectRef("Pod", "ns", "high", "uid-h")
LEASE = ObjectRef("Lease", "kube-system", "l", api_version="coordination.k8s.io/v1")

EVENTS: list[dict[str, Any]] = [
    {
        "controller": "my-scheduler",
        "regarding": POD,
        "type": "Warning",
        "reason": "FailedScheduling",
        "action": "Scheduling",
        "note": "0/3 nodes are available: 3 Insufficient cpu. é" + "x" * 2000,
        "related": None,
    },
    {
        "controller": "my-scheduler",
        "regarding": POD,
        "type": "Normal",
        "reason": "Preempted",
        "action": "Preempting",
        "note": "Preempted by pod uid-h on node n1",
        "related": PREEMPTOR,
    },
    {
        "controller": "s",
        "regarding": LEASE,
        "type": "Normal",
        "reason": "LeaderElection",
        "action": "LeaderElection",
        "note": "h became leader",
        "related": None,
    },
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: str(e["reason"]))
def test_an_event_crosses_the_frame_stream_unchanged(event: dict[str, Any]) -> None:
    stream = encode({EVENT: event_fields(**event)})
    ((header, body),) = FrameReader().feed(stream)
    assert body == b""
    assert record_arguments(header[EVENT]) == event


@pytest.mark.parametrize(
    "fields",
    [
        None,
        [],
        ["c", "Pod", "ns", "p", "u", "v1", "Normal", "R", "A", "note"],
        ["c", "Pod", "ns", "p", "u", "v1", "Normal", "R", "A", 7, None],
        [1, "Pod", "ns", "p", "u", "v1", "Normal", "R", "A", "n", None],
        ["c", "Pod", "ns", "p", None, "v1", "Normal", "R", "A", "n", None],
        ["c", "Pod", "ns", "p", "u", "v1", "Normal", "R", "A", "n", ["Pod", "ns"]],
        ["c", "Pod", "ns", "p", "u", "v1", "Normal", "R", "A", "n", "related"],
    ],
)
def test_malformed_event_fields_are_refused(fields: Any) -> None:
    with pytest.raises(EventFrameError):
        record_arguments(fields)


class FakeWriter:
    """`WriterProcess.notify` and `drain_notices`, keeping what they were given."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.sent: list[dict[str, Any]] = []
        self.drains: list[tuple[str, float]] = []

    def notify(self, header: dict[str, Any]) -> bool:
        if len(self.sent) >= self.room:
            return False
        self.sent.append(header)
        return True

    async def drain_notices(self, key: str, timeout: float) -> bool:
        self.drains.append((key, timeout))
        return True


async def test_the_remote_recorder_sends_one_frame_an_event_and_counts_what_it_cannot() -> None:
    writer, reasons = FakeWriter(room=2), list[str]()
    recorder = RemoteEventRecorder(writer, on_drop=reasons.append)  # type: ignore[arg-type]
    for event in EVENTS:
        recorder.record(**event)
    assert [record_arguments(h[EVENT]) for h in writer.sent] == EVENTS[:2]
    assert reasons == ["queue_full"]
    assert recorder.dropped == 1
    await recorder.drain(timeout=3)
    assert writer.drains == [(DRAIN, 3)]


def test_reported_drops_and_samples_reach_the_scheduler_metrics() -> None:
    metrics = SchedulerMetrics()
    report = {
        "o": [["POST", "h:6443", "403", 0.01, False], ["POST", "h:6443", "201", 0.02, True]],
        "x": {"forbidden": 2, "write_failed": 1},
    }
    reports_to(metrics)(report)
    reports_to(metrics)({"lost": 3})  # a writer died holding three
    value = metrics.registry.get_sample_value
    assert value("kubesched_events_dropped_total", {"reason": "forbidden"}) == 2
    assert value("kubesched_events_dropped_total", {"reason": "write_failed"}) == 4
    labels = {"code": "403", "host": "h:6443", "method": "POST"}
    assert value("rest_client_requests_total", labels) == 1
    labels = {"code": "201", "host": "h:6443", "verb": "POST"}
    assert value("rest_client_request_retries_total", labels) == 1


def test_a_report_without_drops_counts_none() -> None:
    counted: list[str] = []
    count_reported_drops({"o": []}, counted.append)
    count_reported_drops({"x": {"forbidden": "2"}}, counted.append)
    assert counted == []
