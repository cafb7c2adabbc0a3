"""A tiny run of `kubesched bench --suite` over the scheduler_perf cases outside
`workload_preemption/` and `podgroup/` whose pods join native PodGroups, kubesched and
kube-scheduler each on its own control plane (GenericWorkload on): priority-9999999 pods that
evict whole nodes of low-priority gangs with `disruptionMode: all` (every member of a
victim's gang goes too), and unschedulable cloggers in one gang (attempted once before the
measured phase) woken by 600 churn pods a second while the victims must still be scheduled.
Every contender must bind every measured pod and pass the run's checks."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = ("PreemptionPodGroupDisruptionMode", "StarvationPodGroup")


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_disruption_mode_and_starvation_gangs_both_pass() -> None:
    run_tiny_suite(CASES)
