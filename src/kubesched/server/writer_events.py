"""The writer process's event recorder: the scheduler's `EventRecorder`, fed by the event
frames the scheduler sends (`kubesched.scheduler.event_frames`), writing through a client
of its own (the QPS and burst of the scheduler's event client, no fence: events are not
fenced in process either). Its client's `rest_client_*` samples and the events it drops go
back to the scheduler as reports (`{"o": samples, "x": {reason: count}, "s": settled}`),
those of one turn of the event loop in one frame; `settled` counts the event frames it was
sent that are written, dropped or joined to a series, so that the scheduler can count the
rest as lost if this process dies (`WriterProcess`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from typing import Any

from kubesched.framework.logkv import kv
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection
from kubesched.kube.writer_frames import Observation, mark_retry
from kubesched.scheduler.event_frames import DROPS, EventFrameError, record_arguments
from kubesched.scheduler.event_recorder import EventRecorder

log = logging.getLogger("kubesched.writer")

DRAIN_SECONDS = 5.0
"""How long the events left are written for when the scheduler closes the writer."""
SETTLED_EVERY_SECONDS = 1.0
"""How often the settled count is reported when nothing else was (events joined to a
series send no request, so no sample carries the count)."""


class ChildEvents:
    """Records the events of the frames it is fed; reports through `report`."""

    def __init__(
        self,
        connection: Connection,
        settings: dict[str, Any],
        report: Callable[[dict[str, Any]], None],
    ) -> None:
        self._report = report
        self._samples: list[Observation] = []
        self._drops: Counter[str] = Counter()
        self._received = 0
        self._settled_sent = 0
        self._client = KubeClient(
            connection,
            qps=float(settings.get("event_qps", 50.0)),
            burst=int(settings.get("event_burst", 100)),
            timeout=float(settings.get("timeout", 30.0)),
            content_type=str(settings["content_type"]),
            observe=self._observe,
            observe_retry=self._observe_retry,
        )
        self.recorder = EventRecorder(self._client, on_drop=self._dropped)
        loop = asyncio.get_running_loop()
        self._runner = loop.create_task(self.recorder.run())
        self._ticker = loop.create_task(self._report_settled())

    def record(self, fields: Any) -> None:
        """One event frame's fields; a malformed one is logged and skipped."""
        self._received += 1
        try:
            arguments = record_arguments(fields)
        except EventFrameError as exc:
            log.error("malformed event frame; skipped", extra=kv(err=exc))  # noqa: TRY400
            return
        self.recorder.record(**arguments)

    async def drain(self, timeout: float = DRAIN_SECONDS) -> None:
        """Write what was recorded so far, then send the report."""
        await self.recorder.drain(timeout)
        self._flush()

    async def close(self) -> None:
        """Write what is left, stop the recorder, close the client, send the last report."""
        await self.recorder.drain(DRAIN_SECONDS)
        for task in (self._runner, self._ticker):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._client.close()
        self._flush()

    def _observe(self, method: str, host: str, code: str, seconds: float) -> None:
        self._pending()
        self._samples.append((method, host, code, seconds, False))

    def _observe_retry(self, method: str, host: str, code: str) -> None:  # noqa: ARG002
        mark_retry(self._samples, method, code)

    def _dropped(self, reason: str) -> None:
        self._pending()
        self._drops[reason] += 1

    def _pending(self) -> None:
        if not self._samples and not self._drops:
            asyncio.get_running_loop().call_soon(self._flush)

    async def _report_settled(self) -> None:
        while True:
            await asyncio.sleep(SETTLED_EVERY_SECONDS)
            self._flush()

    def _flush(self) -> None:
        settled = self._received - self.recorder.unwritten
        if not self._samples and not self._drops and settled == self._settled_sent:
            return
        report: dict[str, Any] = {"o": self._samples, DROPS: dict(self._drops), "s": settled}
        self._samples, self._drops, self._settled_sent = [], Counter(), settled
        self._report(report)
