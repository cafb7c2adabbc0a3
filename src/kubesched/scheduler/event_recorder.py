"""events.k8s.io/v1 recorder, as kube-scheduler's event broadcaster.

* Events are queued and written by a background task, up to `MAX_WRITES_IN_FLIGHT` at
  once; recording never blocks scheduling.
* `reportingController` is the profile's scheduler name, so `kubectl get events` shows which
  scheduler placed a pod; `reportingInstance` is `<controller>-<hostname>`.
* An event identical to one recorded in the last 6 minutes (same object, reason, action,
  type and note) becomes a series: its `series.count` is patched, at most once every 30 s
  per series, instead of a new Event per retry (an unschedulable pod does not flood). The
  series are kept 6 to 6.5 minutes after their last event (dropped by the 30 s pass).
* Notes are truncated to the API's 1 kB limit; when the queue is full, events are dropped
  rather than growing memory. Every event lost (queue full, write failed, 403) is counted
  through `on_drop` (the `kubesched_events_dropped_total` metric) and summarised in the log
  at most once a minute; the first 403 names the RBAC fix.
* The recorder is meant to get its own API client (as kube-scheduler's event client), so
  events neither wait behind bindings nor slow them down.
* `Recorder` is what the scheduler's parts record through: this class in process, or
  `kubesched.scheduler.event_frames.RemoteEventRecorder`, which sends each event to the
  writer process, where this class runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import socket
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import orjson

from kubesched.framework.logkv import kv
from kubesched.kube.api import MERGE_PATCH, KubeApi
from kubesched.kube.errors import ApiError, Forbidden, NotFound
from kubesched.model import Pod
from kubesched.scheduler.event_drops import FORBIDDEN, QUEUE_FULL, WRITE_FAILED, DropReport

log = logging.getLogger(__name__)

NOTE_MAX_BYTES = 1024
SERIES_WINDOW_SECONDS = 6 * 60
SERIES_PATCH_INTERVAL_SECONDS = 30.0
SERIES_PRUNE_AT = 4096
"""Series kept before the expired ones are looked for."""
MAX_WRITES_IN_FLIGHT = 32
"""Event writes at once (kube-scheduler: a goroutine per event, bounded by its client's QPS)."""


def micro_time(moment: datetime | None = None) -> str:
    """RFC 3339 with microseconds in UTC, the API's MicroTime format."""
    return (moment or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def truncate_note(note: str) -> str:
    encoded = note.encode()
    if len(encoded) <= NOTE_MAX_BYTES:
        return note
    return encoded[: NOTE_MAX_BYTES - 3].decode(errors="ignore") + "..."


@dataclass(frozen=True, slots=True)
class ObjectRef:
    kind: str
    namespace: str
    name: str
    uid: str = ""
    api_version: str = "v1"

    @classmethod
    def of_pod(cls, pod: Pod) -> ObjectRef:
        """The reference to `pod` that every pod event carries."""
        return cls("Pod", pod.namespace, pod.name, pod.uid)

    def as_json(self) -> dict[str, str]:
        ref = {"kind": self.kind, "namespace": self.namespace, "name": self.name}
        ref["apiVersion"] = self.api_version
        if self.uid:
            ref["uid"] = self.uid
        return ref


def series_key(record: _Record) -> bytes:
    """What makes two events one series (the controller, the object, type, reason, action
    and note) as a 128-bit digest: the series map keeps 16 bytes per event instead of the
    fields, of which the note and the object's name and UID are most of the size (with a
    Scheduled event per pod, the map holds one series per pod placed in the last 6 min)."""
    ref = record.regarding
    fields = (
        record.controller,
        ref.kind,
        ref.namespace,
        ref.name,
        ref.uid,
        ref.api_version,
        record.type,
        record.reason,
        record.action,
        record.note,
    )
    return hashlib.blake2b(orjson.dumps(fields), digest_size=16).digest()


@dataclass(slots=True)
class _Series:
    name: str
    namespace: str
    count: int = 1
    last_patched: float = field(default_factory=time.monotonic)
    last_seen: float = field(default_factory=time.monotonic)
    dirty: bool = False


@dataclass(frozen=True, slots=True)
class _Record:
    controller: str
    regarding: ObjectRef
    type: str
    reason: str
    action: str
    note: str
    related: ObjectRef | None = None


class Recorder(Protocol):
    """Where the scheduler's parts record events (`EventRecorder.record`'s arguments)."""

    def record(
        self,
        *,
        controller: str,
        regarding: ObjectRef,
        type: str,  # noqa: A002 - the Event field's name
        reason: str,
        action: str,
        note: str,
        related: ObjectRef | None = None,
    ) -> None: ...

    async def run(self) -> None:
        """Whatever writes the events, until cancelled."""

    async def drain(self, timeout: float) -> None:
        """Write what is recorded before a clean shutdown (bounded by `timeout`)."""


class EventRecorder:
    """Records events for every profile; `record()` is cheap and never raises."""

    def __init__(
        self,
        api: KubeApi,
        *,
        max_queued: int = 5000,
        clock: Callable[[], float] = time.monotonic,
        hostname: str | None = None,
        on_drop: Callable[[str], None] | None = None,
    ) -> None:
        self._api = api
        self._queue: asyncio.Queue[_Record] = asyncio.Queue(maxsize=max_queued)
        self._series: dict[bytes, _Series] = {}
        self._clock = clock
        self._hostname = hostname or socket.gethostname()
        self._drops = DropReport(on_drop=on_drop, clock=clock)
        self._prune_at = SERIES_PRUNE_AT
        self._slots = asyncio.Semaphore(MAX_WRITES_IN_FLIGHT)
        self._writing: set[asyncio.Task[None]] = set()
        self._in_hand = 0
        """Records out of the queue, neither written nor dropped yet."""
        self.written = 0

    @property
    def dropped(self) -> int:
        """Events lost so far, for any reason."""
        return self._drops.total

    @property
    def unwritten(self) -> int:
        """Events recorded and neither written nor dropped yet: queued, waiting for a write
        slot, or being created."""
        return self._queue.qsize() + self._in_hand

    def record(
        self,
        *,
        controller: str,
        regarding: ObjectRef,
        type: str,  # noqa: A002 - the Event field's name
        reason: str,
        action: str,
        note: str,
        related: ObjectRef | None = None,
    ) -> None:
        """Queue one event; `related` names a second object (the preemptor of a victim)."""
        record = _Record(controller, regarding, type, reason, action, truncate_note(note), related)
        try:
            self._queue.put_nowait(record)
        except asyncio.QueueFull:
            self._drops.dropped(QUEUE_FULL)

    async def run(self) -> None:
        """Write queued events until cancelled; series patches are flushed periodically.

        Up to `MAX_WRITES_IN_FLIGHT` writes run at once, as kube-scheduler's broadcaster
        writes each event from its own goroutine: one write at a time would bound the
        events to one per API round trip, fewer than a busy scheduler binds pods, and the
        queue would overflow."""
        flusher = asyncio.create_task(self._flush_series_forever())
        try:
            while True:
                record = await self._queue.get()
                await self._spawn(record)
        finally:
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher

    async def drain(self, timeout: float) -> None:
        """Write what is queued and wait for the writes in flight, for a clean shutdown
        (bounded by `timeout`)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while not self._queue.empty():
                    await self._spawn(self._queue.get_nowait())
                if self._writing:
                    await asyncio.wait(set(self._writing))

    async def _spawn(self, record: _Record) -> None:
        """Start the request `record` needs, if any, once a write slot is free."""
        self._in_hand += 1  # out of the queue, not settled yet
        try:
            await self._slots.acquire()
        finally:
            self._in_hand -= 1
        try:
            write = self._request_for(record)
        except Exception:
            self._slots.release()
            log.exception("could not write event", extra=kv(reason=record.reason))
            return
        if write is None:
            self._slots.release()
            return
        task = asyncio.create_task(self._guarded(write, record.reason))
        self._writing.add(task)
        task.add_done_callback(self._writing.discard)

    async def _guarded(self, write: Coroutine[Any, Any, None], reason: str) -> None:
        try:
            await write
        except Exception:  # one bad event must not stop the writer
            log.exception("could not write event", extra=kv(reason=reason))
        finally:
            self._slots.release()

    def _request_for(self, record: _Record) -> Coroutine[Any, Any, None] | None:
        """Count `record` into its series (decided now, before any request, as upstream's
        event cache): the create of a new Event, a series patch that is due, or nothing."""
        key = series_key(record)
        now = self._clock()
        series = self._series.get(key)
        if series is not None and now - series.last_seen < SERIES_WINDOW_SECONDS:
            series.count += 1
            series.last_seen = now
            series.dirty = True
            if now - series.last_patched >= SERIES_PATCH_INTERVAL_SECONDS:
                return self._patch_series(key, series)
            return None
        ref = record.regarding
        series = _Series(
            f"{ref.name}.{secrets.token_hex(8)}",
            sys.intern(ref.namespace or "default"),
            last_patched=now,
            last_seen=now,
        )
        self._series[key] = series
        self._forget_old_series()
        self._in_hand += 1
        return self._create(key, record, series)

    async def _create(self, key: bytes, record: _Record, series: _Series) -> None:
        try:
            await self._post_event(key, record, series)
        finally:
            self._in_hand -= 1

    async def _post_event(self, key: bytes, record: _Record, series: _Series) -> None:
        ref = record.regarding
        body = {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": series.name, "namespace": series.namespace},
            "eventTime": micro_time(),
            "reportingController": record.controller,
            "reportingInstance": f"{record.controller}-{self._hostname}",
            "action": record.action,
            "reason": record.reason,
            "regarding": ref.as_json(),
            "note": record.note,
            "type": record.type,
        }
        if record.related is not None:
            body["related"] = record.related.as_json()
        try:
            await self._api.post(
                f"/apis/events.k8s.io/v1/namespaces/{series.namespace}/events", body
            )
        except ApiError as exc:
            if self._series.get(key) is series:  # not written: the next one creates it again
                del self._series[key]
            if isinstance(exc, Forbidden):
                self._drops.dropped(FORBIDDEN, err=str(exc))
            else:
                log.debug("could not write event", extra=kv(reason=record.reason, err=exc))
                self._drops.dropped(WRITE_FAILED)
            return
        self.written += 1

    def _patch_series(self, key: bytes, series: _Series) -> Coroutine[Any, Any, None]:
        """The series patch, marked done now (so no second one starts meanwhile)."""
        series.last_patched = self._clock()
        series.dirty = False
        patch = {"series": {"count": series.count, "lastObservedTime": micro_time()}}
        return self._send_patch(key, series, patch)

    async def _send_patch(self, key: bytes, series: _Series, patch: dict[str, Any]) -> None:
        path = f"/apis/events.k8s.io/v1/namespaces/{series.namespace}/events/{series.name}"
        try:
            await self._api.patch(path, patch, content_type=MERGE_PATCH)
        except NotFound:
            if self._series.get(key) is series:
                del self._series[key]
        except ApiError as exc:
            log.warning("could not update event series", extra=kv(event=series.name, err=exc))

    async def _flush_series_forever(self) -> None:
        """Every `SERIES_PATCH_INTERVAL_SECONDS`: the due series patches, and the series
        not seen for `SERIES_WINDOW_SECONDS` dropped (the pass walks them all anyway), so
        the map holds the window's events and at most one interval more."""
        while True:
            await asyncio.sleep(SERIES_PATCH_INTERVAL_SECONDS)
            self._drops.flush()
            now = self._clock()
            for key, series in list(self._series.items()):
                if series.dirty and now - series.last_patched >= SERIES_PATCH_INTERVAL_SECONDS:
                    await self._patch_series(key, series)
            self._drop_expired_series(self._clock())

    def _forget_old_series(self) -> None:
        """Drop the series not seen for `SERIES_WINDOW_SECONDS`, once the map has doubled
        since the last pass (from `SERIES_PRUNE_AT`): amortized O(1) per event, where a pass
        per event cost O(series) each, O(events^2) in a burst of distinct events."""
        if len(self._series) < self._prune_at:
            return
        self._drop_expired_series(self._clock())

    def _drop_expired_series(self, now: float) -> None:
        for key in [
            k for k, s in self._series.items() if now - s.last_seen >= SERIES_WINDOW_SECONDS
        ]:
            del self._series[key]
        self._prune_at = max(SERIES_PRUNE_AT, 2 * len(self._series))
