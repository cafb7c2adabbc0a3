"""A tiny `kubesched bench --suite` run for the e2e tests of the benchmark's catalogue."""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.bench import BenchSettings, ClientLimits
from kubesched.bench.catalogue import catalogue_workload
from kubesched.bench.suite import SuiteRow, run_suite


def run_tiny_suite(cases: Sequence[str], *, flags: tuple[str, ...] = ()) -> list[SuiteRow]:
    """`cases` at `--size 5`, kubesched and kube-scheduler (each on its own control plane);
    fails unless every contender bound every measured pod and passed its checks."""
    base = BenchSettings(
        workload=catalogue_workload(cases[0], "5"),
        limits=ClientLimits(scheduler_name="bench-suite", qps=5000, burst=5000),
        stall_timeout=60.0,
        scheduler_flags=flags,
    )
    rows = run_suite(
        cases,
        size="5",
        base=base,
        contenders=("kubesched", "kube-scheduler"),
        progress=lambda _message: None,
    )
    assert [row.settings.workload.name for row in rows] == list(cases)
    for row in rows:
        for result in row.results:
            assert not result.failure, (
                f"{row.settings.workload.name} {result.name}: {result.failure}"
            )
            assert result.bound == row.settings.workload.pods
    return rows
