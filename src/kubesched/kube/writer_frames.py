"""The frames the scheduler and its writer process exchange over the child's stdin/stdout.

A frame is a 4-byte big-endian length, a JSON header of that length, then (answers only)
the API server's raw answer body, whose length the header gives. The scheduler sends:

- a request `{"i": id, "m": method, "p": path, "b": body, "c": content type, "t": timeout,
  "f": fence}`: `f` is the monotonic time (CLOCK_MONOTONIC, shared by every process of
  the host) until which the sender's Lease is known to be renewed; from that frame on the
  writer sends no write once `time.monotonic()` passes it (0: closed now; null: no fence);
- a fence `{"f": fence, "d": id}`: the same, and with `d` an answer once every write that
  started before it has ended (the drain before the Lease is released).

The writer answers `{"i": id, "s": HTTP status, "n": body length, "o": observations}` then the
body; status 0 is a connection failure and -1 a write the fence stopped, with the text in
`"e"`. Observations are the `rest_client_*` samples of the request's attempts (method, host,
code, seconds, retry), replayed by the scheduler into its own metrics.

Frames without a request id are the events' (`kubesched.scheduler.event_frames`): one-way
event frames to the writer, which records them itself, and its reports back (the samples
of its event client in `"o"`, the events it dropped).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import orjson

from kubesched.errors import KubeschedError

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 64 * 1024 * 1024
"""A larger length means a corrupt stream (the API server's own limit is 3 MiB an object)."""
CONNECTION_FAILED = 0
FENCED = -1

Observation = tuple[str, str, str, float, bool]
"""One attempt: method, host, code, seconds, whether it was a retry."""


def mark_retry(observed: list[Observation], method: str, code: str) -> None:
    """Mark the latest attempt of `method` that answered `code` as retried."""
    for index in range(len(observed) - 1, -1, -1):
        sample = observed[index]
        if sample[0] == method and sample[2] == code:
            observed[index] = (*sample[:4], True)
            return


class FrameError(KubeschedError):
    """The byte stream is not a sequence of frames (a corrupt or foreign writer)."""


def encode(header: dict[str, Any], body: bytes = b"") -> bytes:
    """One frame: length, JSON header, then `body` (whose length the header must give)."""
    data = orjson.dumps(header)
    return HEADER.pack(len(data)) + data + body


@dataclass(slots=True)
class FrameReader:
    """Splits a byte stream into (header, body) frames as bytes arrive."""

    _buffer: bytearray = field(default_factory=bytearray)

    def feed(self, data: bytes) -> list[tuple[dict[str, Any], bytes]]:
        """The frames completed by `data`; raises FrameError on a corrupt stream."""
        self._buffer += data
        frames: list[tuple[dict[str, Any], bytes]] = []
        while (frame := self._next()) is not None:
            frames.append(frame)
        return frames

    def _next(self) -> tuple[dict[str, Any], bytes] | None:
        buffer = self._buffer
        if len(buffer) < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(buffer)
        if size > MAX_FRAME_BYTES:
            raise FrameError(f"frame header of {size} bytes")
        end = HEADER.size + size
        if len(buffer) < end:
            return None
        try:
            header = orjson.loads(buffer[HEADER.size : end])
        except orjson.JSONDecodeError as exc:
            raise FrameError(f"frame header is not JSON: {exc}") from exc
        if not isinstance(header, dict):
            raise FrameError("frame header is not a JSON object")
        body_size = header.get("n", 0)
        if not isinstance(body_size, int) or not 0 <= body_size <= MAX_FRAME_BYTES:
            raise FrameError(f"frame body length {body_size!r}")
        if len(buffer) < end + body_size:
            return None
        body = bytes(buffer[end : end + body_size])
        del buffer[: end + body_size]
        return header, body
