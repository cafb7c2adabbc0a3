"""Fixtures of the differential parity tests (registered in tests/e2e/conftest.py).

parity_env    session: the oracle kube-scheduler (`parity-*` profiles, --v=10) and
              kubesched's in-process engine, sharing the worker's control plane
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.api import ApiClient
from harness.diff.engine import Engine
from harness.diff.kslog import start_oracle
from harness.diff.runner import Env
from kubesched.localcluster import LocalCluster


@pytest.fixture(scope="session")
def parity_env(
    local_cluster: LocalCluster,
    api: ApiClient,
    tmp_path_factory: pytest.TempPathFactory,
    pytestconfig: pytest.Config,
) -> Iterator[Env]:
    workdir = tmp_path_factory.mktemp("parity")
    oracle = start_oracle(local_cluster, workdir)
    engine = Engine(kubeconfig=local_cluster.kubeconfig_path, workdir=workdir)
    out_dir = Path(os.environ.get("PARITY_OUT") or pytestconfig.rootpath / "parity-failures")
    try:
        yield Env(api=api, oracle=oracle, engine=engine, out_dir=out_dir)
    finally:
        engine.close()
        oracle.process.stop(grace=5.0)
