"""A tiny run of `kubesched bench --suite` over two test cases of `catalogue_more`
(labelled namespaces; upstream's own scheduler config) and one of `catalogue_podgroups`
(PodGroups, feature gates on in kube-apiserver and both schedulers, the gang checks),
kubesched and kube-scheduler, so that those paths of the benchmark cannot rot (the other
cases' objects: unit tests)."""

from __future__ import annotations

import pytest

from tests.e2e.harness.tiny_suite import run_tiny_suite

CASES = (
    "SchedulingRequiredPodAffinityWithNSSelector",
    "HostPortConflict",
    "TopologyAwareScheduling",
)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_other_cases_both_schedulers_pass_their_checks() -> None:
    run_tiny_suite(CASES)
