"""A tiny run of `kubesched bench --suite` over `catalogue_volumes`' test cases, kubesched
and kube-scheduler each on its own control plane: every pod mounts its own pre-bound
PersistentVolumeClaim (in-tree AWS EBS volumes; CSI volumes on nodes whose CSINode allows
39), and high-priority pods with volumes preempt. Every contender must bind every measured
pod and pass the run's checks."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = ("SchedulingInTreePVs", "SchedulingCSIPVs", "PreemptionPVs")


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_volume_cases_both_schedulers_pass_their_checks() -> None:
    run_tiny_suite(CASES)
