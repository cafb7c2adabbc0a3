"""Events recorded in the writer process (`KUBESCHED_WRITER_PROCESS=on`).

`RemoteEventRecorder` is the scheduler's `Recorder` then: `record()` sends the event's
fields as one frame (`kubesched.kube.writer_frames`) and does nothing else, so the
scheduling thread neither builds Event bodies nor keeps series nor waits for writes. The
writer process feeds each frame to its own `EventRecorder` (series, truncation, drops, the
RBAC line and the log summaries all happen there) and reports its drops back; the
scheduler counts them in `kubesched_events_dropped_total` (`count_reported_drops`).

Frames, scheduler to writer:

- `{"v": [controller, kind, namespace, name, uid, apiVersion, type, reason, action, note,
  related]}`: one event; `related` is null or `[kind, namespace, name, uid, apiVersion]`;
- `{"vd": id}`: write what the events sent so far asked for, then answer `{"i": id}`.

The writer's reports (no request id) carry `"x": {reason: count}`, the events it dropped,
and `"s"`, how many event frames it has settled (written, dropped or joined to a series),
beside its client's `rest_client_*` samples (`"o"`). The events a writer that died had
not settled are counted as failed writes (`"lost"`, from `WriterProcess`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.kube.writer_process import WriterProcess
from kubesched.scheduler.event_drops import QUEUE_FULL, WRITE_FAILED, DropReport
from kubesched.scheduler.event_recorder import ObjectRef

EVENT = "v"
DRAIN = "vd"
DROPS = "x"
_FIELDS = 11


class EventFrameError(KubeschedError):
    """An event frame whose fields are not what `event_fields` makes."""


def _ref_fields(ref: ObjectRef) -> list[str]:
    return [ref.kind, ref.namespace, ref.name, ref.uid, ref.api_version]


def _ref(fields: Any) -> ObjectRef:
    if (
        not isinstance(fields, list)
        or len(fields) != 5
        or not all(isinstance(f, str) for f in fields)
    ):
        raise EventFrameError(f"object reference {fields!r}")
    return ObjectRef(*fields)


def event_fields(
    *,
    controller: str,
    regarding: ObjectRef,
    type: str,  # noqa: A002 - the Event field's name
    reason: str,
    action: str,
    note: str,
    related: ObjectRef | None = None,
) -> list[Any]:
    """The frame's fields for `EventRecorder.record`'s arguments."""
    other = None if related is None else _ref_fields(related)
    return [controller, *_ref_fields(regarding), type, reason, action, note, other]


def record_arguments(fields: Any) -> dict[str, Any]:
    """`EventRecorder.record`'s arguments from a frame's fields; EventFrameError if they
    are not an event's."""
    if not isinstance(fields, list) or len(fields) != _FIELDS:
        raise EventFrameError(f"event fields {fields!r}")
    texts = [fields[0], *fields[6:10]]
    if not all(isinstance(text, str) for text in texts):
        raise EventFrameError(f"event fields {fields!r}")
    controller, type_, reason, action, note = texts
    related = fields[10]
    return {
        "controller": controller,
        "regarding": _ref(fields[1:6]),
        "type": type_,
        "reason": reason,
        "action": action,
        "note": note,
        "related": None if related is None else _ref(related),
    }


class RemoteEventRecorder:
    """The scheduler's side of events recorded in the writer process."""

    def __init__(
        self, writer: WriterProcess, *, on_drop: Callable[[str], None] | None = None
    ) -> None:
        self._writer = writer
        self._drops = DropReport(on_drop=on_drop)

    @property
    def dropped(self) -> int:
        """Events lost on this side: no writer process ran and too many were waiting."""
        return self._drops.total

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
        """Send the event to the writer process (kept for the next one while none runs)."""
        fields = event_fields(
            controller=controller,
            regarding=regarding,
            type=type,
            reason=reason,
            action=action,
            note=note,
            related=related,
        )
        if not self._writer.notify({EVENT: fields}):
            self._drops.dropped(QUEUE_FULL)

    async def run(self) -> None:
        """Nothing runs here: the writer process writes."""

    async def drain(self, timeout: float) -> None:
        """Wait until the writer process has written the events sent so far."""
        await self._writer.drain_notices(DRAIN, timeout)


def count_reported_drops(report: Mapping[str, Any], on_drop: Callable[[str], None]) -> None:
    """Count the drops of a writer's report (`{"x": {reason: count}}`) through `on_drop`;
    the events a writer that died had not settled (`{"lost": count}`) as failed writes."""
    drops = report.get(DROPS)
    if isinstance(drops, dict):
        for reason, count in drops.items():
            if isinstance(reason, str) and isinstance(count, int):
                for _ in range(count):
                    on_drop(reason)
    lost = report.get("lost")
    if isinstance(lost, int):
        for _ in range(lost):
            on_drop(WRITE_FAILED)
