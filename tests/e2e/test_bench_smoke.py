"""A tiny run of `kubesched bench` (all three contenders), so the benchmark cannot rot, and
the throughput sampler's scheduler_perf rules on fixed readings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.bench import (
    CONTENDERS,
    BenchSettings,
    ClientLimits,
    make_workload,
    run_bench,
    write_outputs,
)
from kubesched.bench.many_core import CORES as MODEL_CORES
from kubesched.bench.stats import Summary, ThroughputSampler, nearest_rank

CORES = [str(cores) for cores in MODEL_CORES]


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_bench_smoke_all_contenders_pass_their_checks(tmp_path: Path) -> None:
    settings = BenchSettings(
        workload=make_workload("basic", nodes=5, initial_pods=0, pods=30),
        limits=ClientLimits(scheduler_name="bench-smoke", qps=5000, burst=5000),
        create_rate=12.0,  # spread over ~2.5 s so that there are 1 s samples
        stall_timeout=30.0,
    )
    messages: list[str] = []
    results, machine = run_bench(settings, contenders=CONTENDERS, progress=messages.append)
    assert [r.name for r in results] == list(CONTENDERS)
    for result in results:
        assert not result.failure, f"{result.name}: {result.failure}"
        assert result.bound == 30
        assert result.throughput.average > 0
        assert result.cpu_seconds > 0 or result.name != "kube-scheduler"
        assert result.peak_rss_bytes > 0
    paths = write_outputs(results, settings, machine, tmp_path)
    table = paths["table"].read_text()
    assert "kubesched / kube-scheduler" in table
    assert "FAILED" not in table
    raw = json.loads(paths["json"].read_text())
    assert len(raw["contenders"]) == 3
    for contender in raw["contenders"]:
        assert_many_core_model_is_consistent(contender)
    kube = raw["contenders"][1]
    assert kube["scheduler_metrics_problem"] == ""
    assert kube["scheduler_loop_seconds"]["cycles"] >= 30
    assert kube["scheduler_loop_seconds"]["filter"] > 0
    rates = [c["many_core"]["pods_per_second"] for c in raw["contenders"][:2]]
    assert raw["many_core_ratio"] == pytest.approx({c: rates[0][c] / rates[1][c] for c in CORES})
    assert "| kubesched / kube-scheduler |" in table
    assert paths["plot"].stat().st_size > 0
    assert any("bound" in m for m in messages)


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
