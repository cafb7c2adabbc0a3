"""Fixtures for tests on the whole local cluster: kube-controller-manager and kwok join the
worker's control plane for one test module, and one kubesched serves the module.

    def test_x(workload_cluster, workload_scheduler, workload_namespace, api): ...

kube-controller-manager and kwok run with fast node-health timings (a node whose Lease is
not renewed is NotReady within ~8 s) and are stopped at the end of the module, so the other
modules keep their plain control plane. After each test the overcommit oracle runs, then the
namespace's workloads are deleted with their pods before the harness' clean-up runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kubesched.localcluster import LocalCluster, LocalClusterError
from kubesched.localcluster.controller_manager import NodeHealthTimings
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched
from tests.e2e.harness.oracle import assert_no_node_overcommitted
from tests.e2e.harness.workloads import delete_workloads

WORKLOAD_SCHEDULER = "my-scheduler"


@pytest.fixture(scope="module")
def workload_cluster(local_cluster: LocalCluster) -> Iterator[LocalCluster]:
    """The worker's control plane with kube-controller-manager and kwok running."""
    before = local_cluster.node_health
    local_cluster.node_health = NodeHealthTimings.fast()
    try:
        local_cluster.start_controller_manager()
        local_cluster.start_kwok()
    except LocalClusterError as error:
        _stop(local_cluster, before)
        pytest.fail(f"{error}\n{error.details}", pytrace=False)
    try:
        yield local_cluster
    finally:
        _stop(local_cluster, before)


def _stop(cluster: LocalCluster, timings: NodeHealthTimings) -> None:
    cluster.stop_kwok()
    cluster.stop_controller_manager()
    cluster.node_health = timings


@pytest.fixture(scope="module")
def workload_scheduler(
    workload_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KubeschedProcess]:
    """One kubesched (`schedulerName: my-scheduler`) for the module's tests."""
    workdir: Path = tmp_path_factory.mktemp("workloads")
    proc = start_kubesched(
        workload_cluster.kubeconfig_path,
        f"--scheduler-name={WORKLOAD_SCHEDULER}",
        "--leader-elect=false",
        workdir=workdir,
        name="workloads",
    )
    try:
        proc.wait_ready()
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def workload_namespace(
    workload_scheduler: KubeschedProcess,
    api: ApiClient,
    namespace: str,
    request: pytest.FixtureRequest,
) -> Iterator[str]:
    """A fresh namespace; after the test, no node may be overcommitted (checked here, while
    the pods still exist), then its workloads and their pods are deleted."""
    request.node.kubesched_processes = [workload_scheduler]
    yield namespace
    try:
        assert_no_node_overcommitted(api)
    finally:
        delete_workloads(api, namespace)
