"""A tiny run of `kubesched bench` (all three contenders), through `make bench` as a user
types it (with a relative `--out`), so that the benchmark and its make target cannot rot; and
the throughput sampler's scheduler_perf rules on fixed readings."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kubesched.bench import CONTENDERS
from kubesched.bench.many_core import CORES as MODEL_CORES
from kubesched.bench.stats import Summary, ThroughputSampler, nearest_rank
from tests.e2e.harness.make_env import ROOT, run_make

CORES = [str(cores) for cores in MODEL_CORES]


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def make_bench(out: Path) -> subprocess.CompletedProcess[str]:
    """`make bench` of 30 pods on 5 nodes for every contender, its outputs in `out`."""
    args = (
        "--workload basic --nodes 5 --initial-pods 0 --pods 30 --qps 5000 --burst 5000 "
        # Spread over ~2.5 s so that there are 1 s samples.
        "--create-rate 12 --stall-timeout 30 --scheduler-name bench-smoke "
        f"--out {os.path.relpath(out, ROOT)}"
    )
    return run_make(["make", "--no-print-directory", "bench", f"BENCH_ARGS={args}"], timeout=600)


def test_bench_smoke_all_contenders_pass_their_checks(tmp_path: Path) -> None:
    done = make_bench(tmp_path / "bench")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    raw = json.loads((tmp_path / "bench" / "results.json").read_text())
    assert [c["name"] for c in raw["contenders"]] == list(CONTENDERS)
    for contender in raw["contenders"]:
        name = contender["name"]
        assert not contender["failure"], f"{name}: {contender['failure']}"
        assert contender["bound"] == 30
        assert contender["throughput"]["average"] > 0
        assert contender["cpu_seconds"] > 0 or name != "kube-scheduler"
        assert contender["peak_rss_bytes"] > 0
        assert_many_core_model_is_consistent(contender)
    table = (tmp_path / "bench" / "table.md").read_text()
    assert table in done.stdout
    assert "kubesched / kube-scheduler" in table
    assert "FAILED" not in table
    kube = raw["contenders"][1]
    assert kube["scheduler_metrics_problem"] == ""
    assert kube["scheduler_loop_seconds"]["cycles"] >= 30
    assert kube["scheduler_loop_seconds"]["filter"] > 0
    rates = [c["many_core"]["pods_per_second"] for c in raw["contenders"][:2]]
    assert raw["many_core_ratio"] == pytest.approx({c: rates[0][c] / rates[1][c] for c in CORES})
    assert "| kubesched / kube-scheduler |" in table
    assert (tmp_path / "bench" / "throughput.png").stat().st_size > 0
    assert "bound" in done.stderr


def assert_many_core_model_is_consistent(contender: dict[str, Any]) -> None:
    """The model's split adds up to the contender's CPU a pod, and each prediction is the
    smaller of the system's and the serial path's rates, growing with the cores."""
    model = contender["many_core"]
    cpu_ms = contender["cpu_seconds"] / contender["bound"] * 1000
    assert model["serial_ms"] + model["parallel_ms"] == pytest.approx(cpu_ms)
    assert 0 < model["serial_ms"] <= cpu_ms * (1 + 1e-9)
    assert model["system_ms"] > cpu_ms
    rates = [model["pods_per_second"][c] for c in CORES]
    assert rates == sorted(rates)
    for cores, rate in zip(CORES, rates, strict=True):
        assert rate <= int(cores) * 1000 / model["system_ms"] * 1.000001
        assert rate <= 1000 / model["serial_ms"] * 1.000001


def test_sampler_skips_the_first_sample_and_folds_empty_intervals() -> None:
    sampler = ThroughputSampler()
    for now, bound in [(1.0, 0), (2.0, 5), (3.0, 15), (4.0, 15), (5.0, 15), (6.0, 45)]:
        sampler.observe(now, bound)
    # 2.0: first non-zero reading only starts the clock; 4.0 and 5.0 saw nothing new,
    # so 6.0's 30 pods over 3 s count once per interval.
    assert sampler.samples == [10.0, 10.0, 10.0, 10.0]


def test_summary_uses_nearest_rank_percentiles() -> None:
    values = [float(v) for v in range(1, 101)]
    assert nearest_rank(values, 50) == 50.0
    assert nearest_rank(values, 99) == 99.0
    summary = Summary.of([3.0, 1.0, 2.0])
    assert (summary.average, summary.p50, summary.p90, summary.count) == (2.0, 2.0, 3.0, 3)
