"""A tiny run of `kubesched bench --suite` over `catalogue_events`' test cases, kubesched
and kube-scheduler each on its own control plane: gated pods that stay pending beside the
measured ones, pods deleted in the background (some held by a finalizer), an extended
resource only one node has for each pod, and preemptors created every 200 ms. Every
contender must bind every measured pod and pass the run's checks."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = (
    "SchedulingWhileGated",
    "SchedulingDeletedPodsWithFinalizers",
    "SchedulingWithExtendedResource",
    "SchedulingGatedPodsWithPodAffinityImpactForThroughput",
    "PreemptionAsync",
)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_event_cases_both_schedulers_pass_their_checks() -> None:
    run_tiny_suite(CASES)
