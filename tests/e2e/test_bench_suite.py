"""A tiny run of `kubesched bench --suite` (upstream's 5-node variants of a few test cases
of the scheduler_perf catalogue, kubesched and kube-scheduler), so that the catalogue,
its churn and its preemption workload cannot rot. The null binder runs in
test_bench_smoke.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.bench.suite import write_suite
from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = (
    "SchedulingPodAffinity",
    "PreemptionBasic",
    "Unschedulable",
    "SchedulingWithMixedChurn",
)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


# kube-scheduler v1.37.2 can leave a preemptor in its unschedulable pool until the leftover
# flush (kubernetes/kubernetes#141694: a second, redundant async preemption finds its victim
# gone and no event wakes the pod); by default that is 5 minutes. Both schedulers get a
# 5 s limit, so such a pod is retried at the next 30 s flush, well inside the stall timeout.
UNSCHEDULABLE_LIMIT = "--pod-max-in-unschedulable-pods-duration=5s"


def test_tiny_suite_both_schedulers_pass_their_checks(tmp_path: Path) -> None:
    rows = run_tiny_suite(CASES, flags=(UNSCHEDULABLE_LIMIT,))
    paths = write_suite(rows, tmp_path, command="kubesched bench --suite --size 5")
    table = paths["table"].read_text()
    assert table.count("| passed |") == len(CASES)
    raw = json.loads(paths["json"].read_text())
    assert len(raw["workloads"]) == len(CASES)
    # The many-core model: kube-scheduler's loop read from its /metrics in every test case.
    assert table.count("| kubesched / kube-scheduler |") == len(CASES)
    for workload in raw["workloads"]:
        kube = next(c for c in workload["contenders"] if c["name"] == "kube-scheduler")
        assert kube["scheduler_metrics_problem"] == ""
        assert kube["many_core"]["workers"] == 16
        assert set(workload["many_core_ratio"]) == {"8", "16", "32"}
    assert paths["plot"].stat().st_size > 0
