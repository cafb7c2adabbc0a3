"""`kubesched bench --trace FILE` (docs/replay.md, "Benchmark a trace") on a fresh local
control plane: a synthetic trace of 5 nodes and 20 pods arriving over one second, kubesched
only; every pod bound, the checks pass, the figures are written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.cli import main
from kubesched_synthtrace.__main__ import main as synthesize


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """The contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_bench_takes_a_trace_as_its_workload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.jsonl.gz"
    args = ["--nodes", "4", "--pods", "20", "--rate", "20", "--delete-every", "0"]
    assert synthesize([*args, "--out", str(trace)]) == 0
    out = tmp_path / "results"
    command = ["bench", "--trace", str(trace), "--contenders", "kubesched", "--out", str(out)]
    assert main([*command, "--stall-timeout", "30"]) == 0
    printed = capsys.readouterr().out
    assert "FAILED" not in printed
    [result] = json.loads((out / "results.json").read_text())["contenders"]
    assert (result["name"], result["failure"], result["bound"]) == ("kubesched", "", 20)
    # created at their recorded times: the last one 0.95 s after the first
    assert result["duration_seconds"] >= 0.9
