"""A tiny run of `kubesched bench` (all three contenders), so the benchmark cannot rot, and
the throughput sampler's scheduler_perf rules on fixed readings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.bench import (
    CONTENDERS,
    BenchSettings,
    ClientLimits,
    make_workload,
    run_bench,
    write_outputs,
)
from kubesched.bench.stats import Summary, ThroughputSampler, nearest_rank


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
    assert paths["plot"].stat().st_size > 0
    assert any("bound" in m for m in messages)


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
