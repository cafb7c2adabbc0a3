"""A short slice of Kubernetes' own test/e2e/scheduling specs (v1.37.2, unchanged), run by
their test binary against a local cluster with kubesched as `default-scheduler` and no
kube-scheduler, through `make conformance` as a user types it (with a relative `--out`:
one once made every spec skip, the specs' binary runs inside the cluster folder);
`make conformance` without arguments runs them all (docs/development.md).

The test binary is built at collection (conftest.py) into the binary cache like the
control-plane binaries: about 5 minutes on 2 cores with a cold Go build cache, about 1 minute
when the control plane was built first, nothing once cached.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kubesched.localcluster.binaries import cached
from kubesched_conformance import report
from kubesched_conformance.binary import BINARY, conformance_module
from kubesched_conformance.cluster import KUBESCHED
from tests.e2e.harness.make_env import ROOT, run_make

SLICE = (
    "validates that NodeSelector is respected if matching",
    "validates that NodeSelector is respected if not matching",
    "validates that taints-tolerations is respected if matching",
    "validates resource limits of pods that are allowed to run",
    "validates that required NodeAffinity setting is respected if matching",
    "LimitRange should create a LimitRange with defaults",
    "validates basic preemption works",
    "validates lower priority pod preemption by critical pod",
)
"""Fast specs that pass with kube-scheduler and with kubesched, 6 of them Conformance. The two
preemption specs run back to back only because the suite set-up waits for the namespaces of
earlier specs to be deleted (docs/development.md, "Kubernetes' own scheduling specs")."""


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """The specs run on their own cluster: the shared one is not needed."""
    return


def test_a_slice_of_the_scheduling_specs_passes_with_kubesched(tmp_path: Path) -> None:
    if cached(conformance_module(), [BINARY]) is None:
        pytest.fail("the conformance test binary was not built (see the collection's output)")
    focus = "|".join(re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", text) for text in SLICE)
    out = os.path.relpath(tmp_path / "results", ROOT)
    args = f"--runs=defaults --focus='{focus}' --out={out}"

    done = run_make(
        ["make", "--no-print-directory", "conformance", f"CONFORMANCE_ARGS={args}"], timeout=600
    )

    summary = tmp_path / "results" / KUBESCHED / "summary.json"
    assert summary.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    results = report.read_summary(summary)
    ran = [spec for spec in results if spec.state != report.NOT_RUN]
    details = [f"{spec.text}: {spec.state} {spec.message}" for spec in ran]
    assert len(ran) == len(SLICE), details
    assert all(spec.state == report.PASSED for spec in ran), (
        details,
        (tmp_path / "results" / KUBESCHED / "ginkgo.log").read_text()[-4000:],
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    not_run = len(results) - len(SLICE)
    assert f"kubesched: {len(SLICE)} passed, 0 failed, 0 skipped, {not_run} not run in " in (
        done.stdout
    )
