"""A tiny run of `kubesched bench --suite` over `catalogue_events`' gated and deleted-pod
test cases, kubesched and kube-scheduler each on its own control plane: gated pods that stay
pending beside the measured ones (the run waits until each was seen by the scheduler), pods
deleted in the background, some held by a finalizer. Every contender must bind every
measured pod and pass the run's checks (the other cases: `test_bench_suite_queue`)."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = (
    "SchedulingWhileGated",
    "SchedulingDeletedPodsWithFinalizers",
    "SchedulingGatedPodsWithPodAffinityImpactForThroughput",
)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_gated_and_deleted_pod_cases_both_schedulers_pass() -> None:
    run_tiny_suite(CASES)
