"""The trace format `kubesched record` writes and `kubesched replay` reads.

A trace is a gzip file of JSON lines (docs/replay.md describes every field):

    {"format": "kubesched-trace", "version": 1, "kubesched": "...", "started": "...",
     "server": "v1.37.2", "kinds": ["nodes", "pods", ...]}                  the header
    {"t": 0.0, "op": "LIST", "kind": "nodes", "object": {...}}              the initial list
    {"t": 0.0, "op": "SYNCED"}                                              every list read
    {"t": 3.2, "op": "ADDED" | "MODIFIED" | "DELETED", "kind": ..., "object": {...}}
    {"t": 3.4, "op": "BOUND", "pod": "ns/name", "uid": "...", "node": "..."}
    {"t": 3.5, "op": "EVENT", "reason": "FailedScheduling", "pod": "ns/name", "message": "..."}
    {"t": 600.0, "op": "END", "reason": "duration" | "max-bytes" | "signal"}

`t` is seconds since the recording started. A trace without its END line (the recorder
was killed, the file cut short) is refused, as is one written by a newer format version:
`TraceError` carries one line naming the problem and the fix.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from kubesched.errors import FatalError

FORMAT = "kubesched-trace"
VERSION = 1
"""The format version this kubesched writes and the newest it reads."""

LIST, SYNCED, END = "LIST", "SYNCED", "END"
ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"
BOUND, EVENT = "BOUND", "EVENT"
OBJECT_OPS = frozenset({LIST, ADDED, MODIFIED, DELETED})
OPS = OBJECT_OPS | {SYNCED, END, BOUND, EVENT}


class TraceError(FatalError):
    """A trace that cannot be read: corrupt, truncated, or of a newer format version."""


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of a trace."""

    version: int
    kubesched: str
    started: str
    """When the recording started (RFC 3339, UTC)."""
    server: str
    """The API server's gitVersion."""
    kinds: tuple[str, ...]
    """The resources recorded (`nodes`, `pods`, `apps/replicasets`, ...)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": self.version,
            "kubesched": self.kubesched,
            "started": self.started,
            "server": self.server,
            "kinds": list(self.kinds),
        }


@dataclass(frozen=True, slots=True)
class Trace:
    """A trace read and checked once; its records are read again, one at a time, by
    `records()`, so a large trace is never held in memory whole."""

    path: Path
    header: Header
    end_reason: str
    duration: float
    """`t` of the END record: how long the recording ran."""
    count: int
    """Records between the header and END."""
    bound: Mapping[str, str]
    """uid -> the node of the pod's first BOUND record (the recorded decisions)."""

    def records(self) -> Iterator[Mapping[str, Any]]:
        """Every record after the header and before END, in order (checked again as it is
        read: `TraceError` if the file changed meanwhile)."""
        lines = _lines(self.path)
        next(lines, None)
        for number, line in enumerate(lines, start=2):
            record = _record(self.path, number, line)
            if record["op"] == END:
                return
            yield record


class TraceWriter:
    """Writes a trace line by line; `size` is the compressed bytes written so far."""

    def __init__(self, path: Path, header: Header) -> None:
        self._raw: IO[bytes] = path.open("wb")
        self._gzip = gzip.GzipFile(fileobj=self._raw, mode="wb", compresslevel=6)
        self.records = 0
        self._line(header.as_json())

    @property
    def size(self) -> int:
        """Compressed bytes on disk so far (what the compressor still holds not counted)."""
        return self._raw.tell()

    def flush(self) -> None:
        """Push what the compressor holds to the file (a sync point: `size` is then exact,
        and a reader gets every record up to here)."""
        self._gzip.flush()
        self._raw.flush()

    def write(self, record: Mapping[str, Any]) -> None:
        self.records += 1
        self._line(record)

    def close(self, *, t: float, reason: str) -> None:
        """Write the END record and close the file: the trace is complete."""
        self._line({"t": round(t, 3), "op": END, "reason": reason})
        self._gzip.close()
        self._raw.close()

    def _line(self, record: Mapping[str, Any]) -> None:
        self._gzip.write(orjson.dumps(record) + b"\n")


def read_trace(path: Path) -> Trace:
    """Read and check a whole trace (every line, in one pass that keeps only the recorded
    bindings); `TraceError` (one line) when it cannot be replayed."""
    lines = _lines(path)
    header = _header(path, next(lines, None))
    bound: dict[str, str] = {}
    count = 0
    for number, line in enumerate(lines, start=2):
        record = _record(path, number, line)
        if record["op"] == END:
            reason, t = str(record.get("reason", "")), float(record["t"])
            return Trace(path, header, reason, t, count, bound)
        if record["op"] == BOUND:
            bound.setdefault(str(record["uid"]), str(record["node"]))
        count += 1
    raise TraceError(
        f"{path}: the trace is truncated (no END record after line {count + 1}): "
        "the recording did not end cleanly; record again and stop it with Ctrl-C or SIGTERM"
    )


def _lines(path: Path) -> Iterator[bytes]:
    try:
        with gzip.open(path, "rb") as stream:
            yield from stream
    except FileNotFoundError:
        raise TraceError(
            f"{path}: no such trace file; give the file `kubesched record --out` wrote"
        ) from None
    except IsADirectoryError:
        raise TraceError(f"{path}: is a folder, not a trace file") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise TraceError(
            f"{path}: not a kubesched trace (not gzip data: {exc});"
            " give a file `kubesched record` wrote"
        ) from None
    except EOFError:
        raise TraceError(
            f"{path}: the trace is truncated (its compressed data ends early): the file was cut"
            " short; copy it again or record again"
        ) from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot read the trace: {exc.strerror or exc}") from None


def _parse(path: Path, number: int, line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        raise TraceError(
            f"{path}: line {number} is not JSON: the trace is corrupt; record it again"
        ) from None


def _header(path: Path, line: bytes | None) -> Header:
    if line is None:
        raise TraceError(f"{path}: the trace is empty; record one with `kubesched record`")
    raw = _parse(path, 1, line)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise TraceError(
            f"{path}: not a kubesched trace (its first line names no format {FORMAT!r});"
            " give a file `kubesched record` wrote"
        )
    version = raw.get("version")
    if not isinstance(version, int) or version < 1:
        raise TraceError(f"{path}: the header's version {version!r} is not a positive integer")
    if version > VERSION:
        raise TraceError(
            f"{path}: trace format version {version} is newer than this kubesched reads"
            f" (up to {VERSION}); upgrade kubesched to replay it"
        )
    kinds = raw.get("kinds")
    if not isinstance(kinds, list) or not all(isinstance(kind, str) for kind in kinds):
        raise TraceError(f"{path}: the header's kinds must be a list of resource names")
    return Header(
        version=version,
        kubesched=str(raw.get("kubesched", "")),
        started=str(raw.get("started", "")),
        server=str(raw.get("server", "")),
        kinds=tuple(kinds),
    )


def _record(path: Path, number: int, line: bytes) -> Mapping[str, Any]:
    raw = _parse(path, number, line)
    problem = _problem(raw)
    if problem:
        raise TraceError(f"{path}: line {number}: {problem}: the trace is corrupt; record it again")
    record: Mapping[str, Any] = raw
    return record


def _problem(raw: Any) -> str:
    """What is wrong with one record, or ""."""
    if not isinstance(raw, dict):
        return "not a JSON object"
    op = raw.get("op")
    if op not in OPS:
        return f"unknown op {op!r}"
    t = raw.get("t")
    if not isinstance(t, int | float) or isinstance(t, bool) or t < 0:
        return f"time {t!r} is not a non-negative number"
    if op in OBJECT_OPS:
        if not isinstance(raw.get("kind"), str) or not isinstance(raw.get("object"), dict):
            return f"a {op} record needs a kind and an object"
    elif op == BOUND and not all(isinstance(raw.get(k), str) for k in ("pod", "uid", "node")):
        return "a BOUND record needs pod, uid and node"
    return ""
