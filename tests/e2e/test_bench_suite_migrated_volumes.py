"""A tiny run of `kubesched bench --suite` over scheduler_perf's SchedulingMigratedInTreePVs,
kubesched and kube-scheduler each on its own control plane: every pod mounts its own
pre-bound in-tree AWS EBS volume, on nodes whose CSINode says that plugin is migrated to
`ebs.csi.aws.com` (39 volumes a node). Every contender must bind every measured pod and pass
the run's checks."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_migrated_in_tree_volumes_both_schedulers_pass_their_checks() -> None:
    run_tiny_suite(("SchedulingMigratedInTreePVs",))
