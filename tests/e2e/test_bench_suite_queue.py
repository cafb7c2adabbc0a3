"""A tiny run of `kubesched bench --suite` over `catalogue_events`' other test cases,
kubesched and kube-scheduler each on its own control plane: an extended resource only one
node has for each pod, unschedulable cloggers (attempted once before the measured phase)
woken by 600 churn pods a second while the low-priority victims must still be scheduled,
and preemptors that evict whole nodes every 200 ms. Every contender must bind every
measured pod and pass the run's checks."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = (
    "SchedulingWithExtendedResource",
    "StarvationIndependent",
    "PreemptionAsync",
)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_resource_starvation_and_preemption_cases_both_pass() -> None:
    run_tiny_suite(CASES)
