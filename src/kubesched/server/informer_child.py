"""The informer process's main: `python -m kubesched.server.informer_child`, started by the
scheduler (`kubesched.informers.process`), never by a user.

It reads one settings frame from stdin (the kubeconfig/master the scheduler connected
with, the client's QPS and burst, the log settings, and each informer's path, field selector
and kind), then lists and watches each with a `StreamingReflector` (the Reflector's paging,
bookmarks, resume, 410 relist and backoff; a malformed object is skipped), decodes the JSON
and parses the objects into the slim model structs, and writes them as delta frames
(`kubesched.informers.deltas`) on stdout, those queued within `COALESCE_SECONDS` in one write,
with each informer's health every second. SIGINT/SIGTERM are left to the scheduler; the
child exits when its stdin closes (the scheduler stopped or died).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from typing import Any

from kubesched.framework.logkv import kv
from kubesched.informers.deltas import HEALTH, Delta, DeltaError, DeltaReader, DeltaWriter
from kubesched.informers.stream import StreamingReflector
from kubesched.kube.child_pipe import COALESCE_SECONDS
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.model import Node, Pod
from kubesched.server import eventloop
from kubesched.server.logs import setup_logging

log = logging.getLogger("kubesched.informer")

HEALTH_EVERY_SECONDS = 1.0
DECODERS: dict[str, tuple[Callable[[dict[str, Any]], Any], Callable[[Any], str]]] = {
    "pods": (Pod.from_json, lambda pod: pod.key),
    "nodes": (Node.from_json, lambda node: node.name),
}
"""Kind -> (decode, key) of the informers the child can run."""


class _Sender:
    """Queues deltas; those of one turn of the event loop go out in one frame."""

    def __init__(self, out: asyncio.WriteTransport) -> None:
        self._out = out
        self._queued: list[Delta] = []
        self._writer = DeltaWriter()

    def emitter(self, index: int) -> Callable[[str, Any], None]:
        def emit(op: str, payload: Any) -> None:
            self.send((index, op, payload))

        return emit

    def send(self, delta: Delta) -> None:
        self._queued.append(delta)
        if len(self._queued) == 1:
            asyncio.get_running_loop().call_later(COALESCE_SECONDS, self._flush)

    def _flush(self) -> None:
        deltas, self._queued = self._queued, []
        if deltas and not self._out.is_closing():
            self._out.write(self._writer.encode(deltas))


class _Input(asyncio.Protocol):
    """The settings frame, then the end of stdin."""

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self._frames = DeltaReader()
        self.settings: asyncio.Future[dict[str, Any]] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def data_received(self, data: bytes) -> None:
        try:
            frames = self._frames.feed(data)
        except DeltaError as exc:
            log.error("corrupt settings stream; exiting", extra=kv(err=exc))  # noqa: TRY400
            self.eof_received()
            return
        for deltas in frames:
            for _, op, payload in deltas:
                if op == "settings" and not self.settings.done():
                    self.settings.set_result(dict(payload))

    def eof_received(self) -> bool | None:
        if not self.closed.done():
            self.closed.set_result(None)
        return None

    def connection_lost(self, _exc: Exception | None) -> None:
        self.eof_received()


async def _informers(settings: dict[str, Any], sender: _Sender) -> None:
    setup_logging(
        verbosity=int(settings.get("verbosity", 0)),
        logging_format=str(settings.get("logging_format", "text")),
    )
    connection = await load_connection(
        kubeconfig=str(settings.get("kubeconfig", "")), master=str(settings.get("master", ""))
    )
    client = KubeClient(
        connection, qps=float(settings.get("qps", 50.0)), burst=int(settings.get("burst", 100))
    )
    reflectors: list[StreamingReflector[Any]] = []
    for index, spec in enumerate(settings["informers"]):
        decode, key = DECODERS[spec["kind"]]
        reflectors.append(
            StreamingReflector(
                client,
                path=spec["path"],
                decode=decode,
                key=key,
                version=lambda obj: obj.resource_version,
                field_selector=spec.get("selector", ""),
                emit=sender.emitter(index),
            )
        )
    tasks = [asyncio.create_task(r.run(), name=f"{r.path} informer") for r in reflectors]
    try:
        while True:
            for index, reflector in enumerate(reflectors):
                h = reflector.health()
                sender.send((index, HEALTH, (h.synced, h.stalled, h.error, h.failing_for)))
            await asyncio.sleep(HEALTH_EVERY_SECONDS)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await client.close()


async def _serve() -> int:
    loop = asyncio.get_running_loop()
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout.buffer)
    _, reader = await loop.connect_read_pipe(_Input, sys.stdin.buffer)
    waits: set[asyncio.Future[Any]] = {reader.settings, reader.closed}
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    if not reader.settings.done():
        return 0
    work = asyncio.create_task(_informers(reader.settings.result(), _Sender(out)))
    await asyncio.wait({work, reader.closed}, return_when=asyncio.FIRST_COMPLETED)
    if work.done():
        work.result()  # a start-up failure (no connection): raised, the exit code says it
    work.cancel()
    await asyncio.gather(work, return_exceptions=True)
    out.close()
    return 0


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        return eventloop.run(_serve())
    except Exception as exc:  # a start-up failure: one line, the scheduler restarts it
        print(f"kubesched informer process: {exc}", file=sys.stderr)  # noqa: T201
        return 1


if __name__ == "__main__":
    sys.exit(main())
