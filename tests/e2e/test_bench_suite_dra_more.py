"""A tiny run of `kubesched bench --suite` over test cases of scheduler_perf's DRA
subfolders (`catalogue_dra_more`, upstream's `fast` variants), kubesched and kube-scheduler,
each case with its feature gates on in kube-apiserver, kube-controller-manager and both
schedulers, so that those paths of the benchmark cannot rot.

By default two cases (about 20 s each): ExtendedResource (the claims the schedulers make for
extended resources, checked) and SharedPodGroupResourceClaimTemplate (each PodGroup's claim
made from a template by kube-controller-manager, shared by its members and reserved for the
PodGroup, checked). `BENCH_DRA_MORE=all` runs every case of `catalogue_dra_more`, about
140 s."""

from __future__ import annotations

import os

import pytest

from kubesched.bench.catalogue_dra_more import DRA_MORE_CASES
from tests.e2e.harness.tiny_suite import run_tiny_suite

DEFAULT = ("ExtendedResource", "SharedPodGroupResourceClaimTemplate")
ALL = tuple(name for name, *_ in DRA_MORE_CASES)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_tiny_suite_of_the_dra_subfolder_cases_both_schedulers_pass_their_checks() -> None:
    run_tiny_suite(ALL if os.environ.get("BENCH_DRA_MORE") == "all" else DEFAULT)
