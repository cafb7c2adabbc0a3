"""Fixtures of the differential parity tests (registered in tests/e2e/conftest.py).

parity_env    session: the oracle kube-scheduler (`parity-*` profiles, --v=10) and
              kubesched's in-process engine, sharing the worker's control plane
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubesched.localcluster import LocalCluster
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.diff.compare import Tally
from tests.e2e.harness.diff.engine import Engine
from tests.e2e.harness.diff.kslog import start_oracle
from tests.e2e.harness.diff.runner import Env
from tests.e2e.harness.diff.twin import start_twin

TOTALS = Tally()
"""Every comparison of the session (printed at the end: the campaign's totals)."""
_SEEDS: list[int] = []


def seeds_from_env(variable: str, fixed: tuple[int, ...]) -> list[int]:
    """The seeds `variable` names ("1-200", "3,9,27" or a mix), else `fixed`."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return list(fixed)
    chosen: list[int] = []
    for part in raw.split(","):
        low, _, high = part.strip().partition("-")
        chosen.extend(range(int(low), int(high or low) + 1))
    return chosen


def record(tally: Tally, *, seed: int | None = None) -> None:
    """Add one test's tally to the session's totals."""
    TOTALS.merge(tally)
    if seed is not None:
        _SEEDS.append(seed)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not TOTALS.checks:
        return
    seeds = f"seeds {min(_SEEDS)}..{max(_SEEDS)} ({len(_SEEDS)})" if _SEEDS else "cases"
    terminalreporter.write_sep("=", "differential parity against kube-scheduler v1.37.2")
    terminalreporter.write_line(f"{seeds}: {len(TOTALS.mismatches)} mismatches")
    terminalreporter.write_line(f"checks (matched/total): {TOTALS.summary()}")


@pytest.fixture(scope="session")
def parity_env(
    local_cluster: LocalCluster,
    api: ApiClient,
    tmp_path_factory: pytest.TempPathFactory,
    pytestconfig: pytest.Config,
) -> Iterator[Env]:
    workdir = tmp_path_factory.mktemp("parity")
    oracle = start_oracle(local_cluster, workdir)
    twin = start_twin(local_cluster, workdir)
    engine = Engine(kubeconfig=local_cluster.kubeconfig_path, workdir=workdir)
    out_dir = Path(os.environ.get("PARITY_OUT") or pytestconfig.rootpath / "parity-failures")
    try:
        yield Env(
            api=api,
            oracle=oracle,
            engine=engine,
            out_dir=out_dir,
            twin=True,
            twin_log=twin.log_path,
        )
    finally:
        engine.close()
        twin.stop()
        oracle.process.stop(grace=5.0)
