"""`kubesched record`: list and watch what scheduling reads, into a trace (`trace`).

Read-only: GETs (lists, watches, `/version`) and nothing else. One informer per recorded
kind (`kinds.KINDS`, those the API server serves) feeds one writer: the initial lists as LIST
records, SYNCED once every list is read, then each change as ADDED/MODIFIED/DELETED with
its time. A pod seen going from no node to a node is a BOUND decision; the
FailedScheduling, Preempted and Scheduled events that arrive are EVENT records. Recording
ends at `duration`, at `max_bytes` of compressed trace, or when `stop` is set (Ctrl-C,
SIGTERM); the END record then closes the file, so a trace that lacks it was cut short.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kubesched.informers import Reflector
from kubesched.kube.api import WatchApi
from kubesched.kube.errors import Forbidden, NotFound
from kubesched.replay import trace
from kubesched.replay.kinds import KINDS, READ_ANNOTATIONS, RecordedKind, strip

EVENT_REASONS = frozenset({"FailedScheduling", "Preempted", "Scheduled"})
EVENTS = RecordedKind("events", "/api/v1/events")
PROGRESS_PERIOD = 1.0


@dataclass(frozen=True, slots=True)
class Limits:
    """When a recording ends (whichever comes first, or a signal)."""

    duration: float
    max_bytes: int


@dataclass(frozen=True, slots=True)
class Summary:
    """What a recording wrote."""

    records: int
    bytes: int
    seconds: float
    reason: str
    kinds: tuple[str, ...]
    not_served: tuple[str, ...]
    """Kinds the API server does not serve: not recorded."""
    forbidden: tuple[str, ...]
    """Kinds RBAC does not let the recorder list: not recorded."""


class _Sink:
    """One kind's informer events, as trace records."""

    def __init__(self, recording: _Recording, kind: RecordedKind) -> None:
        self._recording, self._kind = recording, kind
        self.listed = False

    def on_add(self, obj: dict[str, Any]) -> None:
        self._recording.object(self._kind, trace.ADDED if self.listed else trace.LIST, obj)

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        self._recording.object(self._kind, trace.MODIFIED, new, old=old)

    def on_delete(self, obj: dict[str, Any]) -> None:
        self._recording.object(self._kind, trace.DELETED, obj)


class _Recording:
    def __init__(self, writer: trace.TraceWriter, clock: Callable[[], float]) -> None:
        self.writer, self._clock, self._started = writer, clock, clock()
        self.synced = False

    def now(self) -> float:
        return round(self._clock() - self._started, 3)

    def object(
        self,
        kind: RecordedKind,
        op: str,
        obj: dict[str, Any],
        *,
        old: dict[str, Any] | None = None,
    ) -> None:
        t = self.now() if self.synced else 0.0
        self.writer.write({"t": t, "op": op, "kind": kind.name, "object": obj})
        if kind.name == "pods" and old is not None:
            self._bound(old, obj, t)

    def _bound(self, old: Mapping[str, Any], new: Mapping[str, Any], t: float) -> None:
        node = (new.get("spec") or {}).get("nodeName")
        if node and not (old.get("spec") or {}).get("nodeName"):
            meta = new.get("metadata") or {}
            self.writer.write(
                {
                    "t": t,
                    "op": trace.BOUND,
                    "pod": f"{meta.get('namespace', '')}/{meta.get('name', '')}",
                    "uid": meta.get("uid", ""),
                    "node": node,
                    "scheduler": (new.get("spec") or {}).get("schedulerName", ""),
                }
            )

    def event(self, obj: Mapping[str, Any]) -> None:
        if not self.synced or obj.get("reason") not in EVENT_REASONS:
            return
        regarding = obj.get("involvedObject") or {}
        self.writer.write(
            {
                "t": self.now(),
                "op": trace.EVENT,
                "reason": obj["reason"],
                "pod": f"{regarding.get('namespace', '')}/{regarding.get('name', '')}",
                "message": str(obj.get("message", ""))[:1000],
            }
        )


class _EventSink:
    def __init__(self, recording: _Recording) -> None:
        self._recording = recording

    def on_add(self, obj: dict[str, Any]) -> None:
        self._recording.event(obj)

    def on_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        del old
        self._recording.event(new)

    def on_delete(self, obj: dict[str, Any]) -> None:
        del obj


@dataclass(frozen=True, slots=True)
class Readable:
    """Which kinds the recorder can list."""

    kinds: list[RecordedKind]
    not_served: list[str]
    forbidden: list[str]


async def readable_kinds(api: WatchApi) -> Readable:
    """The kinds to record, and those the API server does not serve or RBAC forbids; nodes,
    pods and namespaces must be readable (their error is raised)."""
    found = Readable([], [], [])
    for kind in KINDS:
        try:
            await api.get(kind.path, params={"limit": "1"})
        except (NotFound, Forbidden) as exc:
            if kind.required:
                raise
            (found.forbidden if isinstance(exc, Forbidden) else found.not_served).append(kind.name)
            continue
        found.kinds.append(kind)
    return found


async def record(
    api: WatchApi,
    out: Path,
    *,
    limits: Limits,
    stop: asyncio.Event,
    progress: Callable[[str], None],
    annotations: frozenset[str] = READ_ANNOTATIONS,
    version: str = "",
    clock: Callable[[], float] = time.monotonic,
) -> Summary:
    """Record until `limits` or `stop`; the trace at `out` is complete when this returns."""
    readable = await readable_kinds(api)
    kinds = readable.kinds
    server = str((await api.get("/version")).get("gitVersion", ""))
    header = trace.Header(
        version=trace.VERSION,
        kubesched=version,
        started=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        server=server,
        kinds=tuple(kind.name for kind in kinds),
    )
    recording = _Recording(trace.TraceWriter(out, header), clock)
    informers = []
    for kind in kinds:
        sink = _Sink(recording, kind)
        informers.append((_reflector(api, kind, sink, annotations), sink))
    events = _reflector(api, EVENTS, _EventSink(recording), annotations)
    tasks = [asyncio.create_task(r.run()) for r in (events, *(r for r, _ in informers))]
    try:
        reason = await _until_done(recording, informers, limits, stop, progress)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    seconds = recording.now()
    size, records = recording.writer.size, recording.writer.records
    recording.writer.close(t=seconds, reason=reason)
    return Summary(
        records,
        size,
        seconds,
        reason,
        header.kinds,
        not_served=tuple(readable.not_served),
        forbidden=tuple(readable.forbidden),
    )


def _reflector(
    api: WatchApi, kind: RecordedKind, handler: _Sink | _EventSink, annotations: frozenset[str]
) -> Reflector[dict[str, Any]]:
    def decode(obj: dict[str, Any]) -> dict[str, Any]:
        return obj if kind is EVENTS else strip(kind, obj, annotations=annotations)

    return Reflector(
        api,
        path=kind.path,
        decode=decode,
        key=_key,
        version=lambda obj: str((obj.get("metadata") or {}).get("resourceVersion", "")),
        handler=handler,
        field_selector=kind.field_selector,
    )


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


async def _until_done(
    recording: _Recording,
    informers: list[tuple[Reflector[dict[str, Any]], _Sink]],
    limits: Limits,
    stop: asyncio.Event,
    progress: Callable[[str], None],
) -> str:
    """Wait for the lists and mark SYNCED, then report progress until a limit or `stop`;
    what ended the recording."""
    if not await _synced(recording, informers, stop):
        return "signal"
    while True:
        recording.writer.flush()
        progress(_progress_line(recording, limits))
        if stop.is_set():
            return "signal"
        if recording.now() >= limits.duration:
            return "duration"
        if recording.writer.size >= limits.max_bytes:
            return "max-bytes"
        left = limits.duration - recording.now()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=min(PROGRESS_PERIOD, max(left, 0.01)))


async def _synced(
    recording: _Recording,
    informers: list[tuple[Reflector[dict[str, Any]], _Sink]],
    stop: asyncio.Event,
) -> bool:
    """Once every informer has listed, write SYNCED (later objects are changes); False
    when stopped before."""
    while not all(reflector.synced.is_set() for reflector, _ in informers):
        if stop.is_set():
            return False
        await asyncio.sleep(0.05)
    for _, sink in informers:
        sink.listed = True
    recording.synced = True
    recording.writer.write({"t": 0.0, "op": trace.SYNCED})
    return True


def _progress_line(recording: _Recording, limits: Limits) -> str:
    return (
        f"recording {recording.now():.0f}s of {limits.duration:.0f}s:"
        f" {recording.writer.records} records, {recording.writer.size / 1024:.1f} KiB"
        f" of {limits.max_bytes / 1024:.0f} KiB"
    )
