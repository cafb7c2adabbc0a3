"""The make targets README.md and docs/ show, run as a user types them, with their smallest
arguments, from the repository's root: `make cycle-cost` and `make parity`; and a tool that
fails ends in one line, never a traceback (`make conformance` too).

Elsewhere: `make conformance` with a relative `--out` (test_conformance_slice.py, its slice of
specs), `make bench` with a relative `--out` (test_bench_smoke.py, all three contenders),
`make demo` (test_demo.py), `make dist` (test_readme_commands.py), `make image` (test_image.py,
test_image_plugins.py, test_image_plugin_deps.py), `make image-push` (test_image_registry.py,
once crane is cached), `make older-apiserver` (its test, once that kube-apiserver is cached),
`make test` (this suite), `make chart` (what it writes is compared with charts/kubesched by
tests/unit/manifests/test_chart_drift.py; running it here would rewrite the committed chart).
Not here: `make soak` (a minute of churn on 300 nodes at
the least, MINUTES >= 1), `make lock` and `make image-lock` (they re-pin from the package
index and Debian's mirror), `make venv` and `make binaries` (every test needs them first).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.harness.make_env import run_make

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each target starts what it needs (its own control plane, if any)."""
    return


def make(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`make ARGS` in the repository's root, as a user types it."""
    return run_make(["make", "--no-print-directory", *args], timeout=timeout)


def relative(path: Path) -> str:
    """`path` relative to the root: the tools must cope with relative paths, as a user's."""
    return os.path.relpath(path, ROOT)


def test_make_conformance_without_results_ends_in_one_line(tmp_path: Path) -> None:
    """A focus the test binary refuses (not a regular expression): no report, one line."""
    args = f"--runs=defaults --focus='(' --out={relative(tmp_path / 'results')}"
    result = make("conformance", f"CONFORMANCE_ARGS={args}")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    tool_line, make_line = result.stderr.strip().splitlines()  # the tool's, then make's
    assert tool_line.startswith("kubesched-conformance: the test binary wrote no report ("), (
        tool_line
    )
    assert make_line.startswith("make: *** [Makefile:"), make_line


def test_make_cycle_cost() -> None:
    result = make("cycle-cost", "CYCLE_ARGS=--nodes 20 --initial-pods 5 --pods 8")
    assert result.returncode == 0, result.stderr
    assert "pod_default: 20 nodes, 5 initial pods, 6 measured pods: " in result.stdout


def test_make_cycle_cost_with_a_bad_value_ends_in_one_line() -> None:
    result = make("cycle-cost", "CYCLE_ARGS=--nodes 0")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "argument --nodes: must be 1 or more, got 0" in result.stderr


def test_make_parity_with_one_seed() -> None:
    """The target's wiring: each SEEDS variable reaches its test and all four files run.
    The fixed seeds cover the comparisons in `make test`, so these seeds are cheap ones
    (parity 31: 8 pods; queueing 32: 7 changes, the fewest of seeds 1-50; quota 23: a fixed
    seed, 10 pods; topology 9: 3 gangs of 9 members)."""
    seeds = ("SEEDS=31", "QUEUEING_SEEDS=32", "QUOTA_SEEDS=23", "TOPOLOGY_SEEDS=9")
    result = make("parity", *seeds, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "4 passed" in result.stdout
