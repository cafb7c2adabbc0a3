"""`python -m kubesched_synthtrace` (docs/replay.md, "Speed"): a synthetic trace of N nodes
and M pods arriving over time, with deletions, a node added and one drained, that
`kubesched replay` reads; run here at a tiny size."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import orjson
import pytest

from kubesched.config import load_config
from kubesched.replay import read_trace, replay_trace, trace
from kubesched_synthtrace.__main__ import main

ARGS = ["--nodes", "6", "--pods", "40", "--rate", "10", "--lifetime", "5"]


def _write(tmp_path: Path, name: str = "t.jsonl.gz") -> Path:
    out = tmp_path / name
    assert main([*ARGS, "--out", str(out)]) == 0
    return out


def _ops(path: Path) -> Counter[tuple[str, str]]:
    recorded = read_trace(path)
    return Counter((str(r["op"]), str(r.get("kind", ""))) for r in recorded.records())


def test_the_trace_holds_the_nodes_the_pods_and_the_churn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path)
    assert capsys.readouterr().out == f"{path}: 6 nodes, 40 pods over 33.9 s\n"
    recorded = read_trace(path)
    assert (recorded.duration, recorded.end_reason, recorded.bound) == (33.9, "duration", {})
    assert _ops(path) == {
        (trace.LIST, "namespaces"): 1,
        (trace.LIST, "nodes"): 6,
        (trace.SYNCED, ""): 1,
        (trace.ADDED, "pods"): 40,
        (trace.DELETED, "pods"): 4,  # every tenth pod, 5 s after it came
        (trace.ADDED, "nodes"): 1,  # at a third of the arrivals
        (trace.MODIFIED, "nodes"): 1,  # node-0 cordoned at two thirds ...
        (trace.DELETED, "nodes"): 1,  # ... and deleted 10 s later
    }
    times = [float(r["t"]) for r in recorded.records()]
    assert times == sorted(times)


def test_the_same_arguments_write_the_same_trace(tmp_path: Path) -> None:
    first, second = _write(tmp_path, "a.jsonl.gz"), _write(tmp_path, "b.jsonl.gz")
    assert gzip.decompress(first.read_bytes()) == gzip.decompress(second.read_bytes())


def test_the_replay_schedules_every_pod_and_keeps_a_timeline(tmp_path: Path) -> None:
    recorded = read_trace(_write(tmp_path))
    [report] = replay_trace(recorded, [("default", load_config([]).config)])
    assert (len(report.outcomes), report.scheduled) == (40, 40)
    samples = report.result.timeline.samples
    assert samples[-1].t == 33.9
    assert samples[-1].pending == 0
    assert 0 < samples[-1].utilization["cpu"] < 1
    # node-0 takes pods until it is cordoned at t=2.6, none after; node-added (t=1.3) takes
    # some.
    on_node_0 = [o.bound_at for o in report.outcomes if o.node == "node-0"]
    assert on_node_0
    assert all(t is not None and t < 2.6 for t in on_node_0)
    assert any(o.node == "node-added" for o in report.outcomes)
    assert report.as_json()["timeline"][-1]["t"] == 33.9
    assert orjson.dumps(report.as_json())


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--nodes", "0"], "argument --nodes: must be 1 or more, got 0"),
        (["--rate", "0"], "argument --rate: must be more than 0, got 0"),
        (["--out", "/nonexistent/x/t.jsonl.gz"], "argument --out: the folder of"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(
    args: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*ARGS, "--out", "t.jsonl.gz", *args])
    assert exit_info.value.code == 2
    assert line in capsys.readouterr().err.splitlines()[-1]
