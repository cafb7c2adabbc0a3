"""The trace format: what is written reads back; a corrupt, truncated or newer trace is
refused with one line naming the problem and the fix."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from kubesched.replay import trace
from kubesched.replay.trace import TraceError, read_trace
from tests.unit.replay.traces import HEADER, at, listed, nodes, write


def _complete(tmp_path: Path) -> Path:
    records = [
        listed("nodes", nodes(1)[0]),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.5, trace.MODIFIED, "nodes", nodes(1)[0]),
        {"t": 2.0, "op": trace.BOUND, "pod": "a/p", "uid": "u", "node": "node-0"},
    ]
    return write(tmp_path / "t.jsonl.gz", records, end=9.25)


def _gzip_lines(path: Path, lines: list[object]) -> Path:
    with gzip.open(path, "wb") as stream:
        for line in lines:
            stream.write(orjson.dumps(line) + b"\n")
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_what_is_written_reads_back(tmp_path: Path) -> None:
    read = read_trace(_complete(tmp_path))
    assert read.header == HEADER
    records = list(read.records())
    assert [record["op"] for record in records] == ["LIST", "SYNCED", "MODIFIED", "BOUND"]
    assert records[2]["t"] == 1.5
    assert records[0]["object"]["metadata"]["name"] == "node-0"
    assert (read.end_reason, read.duration, read.count) == ("duration", 9.25, 4)
    assert read.bound == {"u": "node-0"}


def test_a_trace_without_its_end_record_is_truncated(tmp_path: Path) -> None:
    path = _gzip_lines(tmp_path / "t.gz", [HEADER.as_json(), {"t": 0.0, "op": "SYNCED"}])
    assert "truncated (no END record" in _refusal(path)


def test_a_file_cut_short_is_truncated(tmp_path: Path) -> None:
    path = _complete(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 20])
    assert "truncated" in _refusal(path)


def test_a_file_that_is_not_gzip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"format": "kubesched-trace"}\n')
    assert "not a kubesched trace (not gzip data" in _refusal(path)


def test_a_garbled_line_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "t.gz"
    with gzip.open(path, "wb") as stream:
        stream.write(orjson.dumps(HEADER.as_json()) + b"\n{not json\n")
    assert "line 2 is not JSON" in _refusal(path)


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ({"t": 1.0, "op": "EXPLODED"}, "unknown op 'EXPLODED'"),
        ({"t": -1.0, "op": "SYNCED"}, "time -1.0 is not a non-negative number"),
        ({"t": 1.0, "op": "ADDED", "kind": "pods"}, "a ADDED record needs a kind and an object"),
        ({"t": 1.0, "op": "BOUND", "pod": "a/p"}, "a BOUND record needs pod, uid and node"),
        ([1, 2], "not a JSON object"),
    ],
)
def test_a_malformed_record_is_corrupt(tmp_path: Path, record: object, problem: str) -> None:
    path = _gzip_lines(tmp_path / "t.gz", [HEADER.as_json(), record])
    assert f"line 2: {problem}: the trace is corrupt" in _refusal(path)


def test_a_newer_format_version_is_refused_with_the_fix(tmp_path: Path) -> None:
    header = {**HEADER.as_json(), "version": trace.VERSION + 1}
    path = _gzip_lines(tmp_path / "t.gz", [header, {"t": 0.0, "op": "END"}])
    message = _refusal(path)
    assert f"format version {trace.VERSION + 1} is newer" in message
    assert "upgrade kubesched" in message


def test_another_format_is_not_a_trace(tmp_path: Path) -> None:
    path = _gzip_lines(tmp_path / "t.gz", [{"format": "something-else", "version": 1}])
    assert "not a kubesched trace" in _refusal(path)


def test_an_empty_or_missing_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.gz"
    with gzip.open(empty, "wb"):
        pass
    assert "the trace is empty" in _refusal(empty)
    assert "no such trace file" in _refusal(tmp_path / "missing.gz")


def test_records_are_read_again_and_checked_again(tmp_path: Path) -> None:
    read = read_trace(_complete(tmp_path))
    assert len(list(read.records())) == len(list(read.records())) == read.count
    read.path.write_bytes(b"not gzip any more")
    with pytest.raises(TraceError, match="not a kubesched trace"):
        list(read.records())
