"""A tiny run of `kubesched bench --suite` over scheduler_perf's EventHandlingPodUpdate
(`catalogue_event_handling`), kubesched and kube-scheduler each on its own control plane:
pods held back by an unschedulable node, a taint, blocker pods' labels and memory, and a
scheduling gate, let through by updates (a toleration added, the blockers' labels dropped,
their requests resized down, the gate lifted) with barriers between the stages. Every
contender must bind every measured pod and pass the run's checks. The other four cases
of the family run the same script ops (`bench.script`, unit-tested) and are measured by
`kubesched bench --suite --cases ...` (docs/performance.md)."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = ("EventHandlingPodUpdate",)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_pod_update_event_case_both_schedulers_pass() -> None:
    rows = run_tiny_suite(CASES)
    assert rows[0].settings.workload.pods == 60
