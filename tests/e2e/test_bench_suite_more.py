"""A tiny run of `kubesched bench --suite` over two test cases of `catalogue_more`
(labelled namespaces; upstream's own scheduler config), kubesched and kube-scheduler, so
that those paths of the benchmark cannot rot (the other cases' objects: unit tests)."""

from __future__ import annotations

import pytest

from kubesched.bench import BenchSettings, ClientLimits
from kubesched.bench.catalogue import catalogue_workload
from kubesched.bench.suite import run_suite

CASES = (
    "SchedulingRequiredPodAffinityWithNSSelector",
    "HostPortConflict",
)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_other_cases_both_schedulers_pass_their_checks() -> None:
    base = BenchSettings(
        workload=catalogue_workload(CASES[0], "5"),
        limits=ClientLimits(scheduler_name="bench-suite", qps=5000, burst=5000),
        stall_timeout=60.0,
    )
    rows = run_suite(
        CASES,
        size="5",
        base=base,
        contenders=("kubesched", "kube-scheduler"),
        progress=lambda _message: None,
    )
    assert [row.settings.workload.name for row in rows] == list(CASES)
    for row in rows:
        for result in row.results:
            assert not result.failure, (
                f"{row.settings.workload.name} {result.name}: {result.failure}"
            )
            assert result.bound == row.settings.workload.pods
