"""End-to-end fixtures: one real control plane (etcd, kube-apiserver, kube-scheduler) per
pytest-xdist worker, a fresh namespace per test, and clean-up plus invariants after each.

Fixtures:
    local_cluster   session: the running `kubesched.localcluster.LocalCluster` (its API
                    server with the GenericWorkload gate: native PodGroups are served)
    api             session: `harness.ApiClient` with the admin identity
    namespace       function: a fresh namespace (name), removed after the test
    new_namespace   function: factory `new_namespace(hint="x") -> str` for more namespaces

On the whole local cluster (harness/workload_fixtures.py): `workload_cluster` (module: the
same control plane plus kube-controller-manager and kwok), `workload_scheduler` (module: one
kubesched for `my-scheduler`), `workload_namespace` (function: workloads deleted after).

After every test (autouse): `assert_no_node_overcommitted(api)`, then all Nodes, the test
namespaces and their pods are deleted. When a test fails, the component logs are kept and
their tails are attached to the failure report.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

import pytest

from kubesched.localcluster import LocalCluster, LocalClusterError, ensure_binaries, gates
from kubesched.localcluster.binaries import ensure_scheduler_plugins
from kubesched_conformance.binary import ensure_conformance_binary
from tests.e2e.harness import (
    ApiClient,
    assert_no_node_overcommitted,
    clean_cluster,
    create_namespace,
)

pytest_plugins = [
    "tests.e2e.harness.fixtures",
    "tests.e2e.harness.workload_fixtures",
    "tests.e2e.harness.diff.fixtures",
]

_state: dict[str, object] = {}
TOPOLOGY_GATES = (
    "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true,"
    "DRAWorkloadResourceClaims=true"
)
CONFORMANCE_TEST = "test_conformance_slice.py"
APISERVER_GATES = TOPOLOGY_GATES.removeprefix("--feature-gates=") + ",CompositePodGroup=true"
"""kube-apiserver's gates: TOPOLOGY_GATES', and CompositePodGroup (alpha, its v1alpha3
CompositePodGroups served, a PodGroup's parent kept; test_gang_composite)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Build the binaries (once, cached) before any e2e test runs, outside test timeouts;
    the conformance specs' test binary too when its test is collected (~5 min cold), and
    scheduler-plugins' scheduler and controller when a collected module sets
    `USES_SCHEDULER_PLUGINS = True` (~5 min cold)."""
    if "binaries_error" in _state or not any("e2e" in item.path.parts for item in items):
        return
    _build(config, ensure_binaries, error_key="binaries_error")
    if any(item.path.name == CONFORMANCE_TEST for item in items):
        _build(config, ensure_conformance_binary, error_key="conformance_error")
    if any(
        getattr(getattr(item, "module", None), "USES_SCHEDULER_PLUGINS", False) for item in items
    ):
        _build(config, ensure_scheduler_plugins, error_key="scheduler_plugins_error")


def _build(config: pytest.Config, build: Callable[[], object], *, error_key: str) -> None:
    capture = config.pluginmanager.getplugin("capturemanager")
    try:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                build()
        else:
            build()
    except LocalClusterError as error:
        _state[error_key] = str(error)


@pytest.fixture(scope="session")
def local_cluster() -> Iterator[LocalCluster]:
    """A started control plane with the real kube-scheduler holding its Lease."""
    if "binaries_error" in _state:
        pytest.fail(f"no control-plane binaries: {_state['binaries_error']}", pytrace=False)
    # kube-apiserver serves scheduling.k8s.io/v1beta1 PodGroups (GenericWorkload gate) and
    # keeps their schedulingConstraints (TopologyAwareWorkloadScheduling, alpha: without it
    # the field is dropped on create) and resourceClaims (DRAWorkloadResourceClaims, beta,
    # off by default: the same); kube-scheduler keeps its defaults (test_gang_native,
    # test_gang_topology and test_dra_gang_shared_claim start gated ones beside it); and
    # CompositePodGroups (APISERVER_GATES).
    cluster = LocalCluster(apiserver_args=tuple(gates.apiserver_args(gates.parse(APISERVER_GATES))))
    try:
        cluster.start()
        cluster.start_default_scheduler()
    except LocalClusterError as error:
        cluster.stop()
        pytest.fail(f"{error}\n{error.details}", pytrace=False)
    _state["cluster"] = cluster
    try:
        yield cluster
    finally:
        _state.pop("cluster", None)
        cluster.stop()


@pytest.fixture(scope="session")
def api(local_cluster: LocalCluster) -> ApiClient:
    """Admin API client of the worker's control plane."""
    return ApiClient(
        server=local_cluster.server, token=local_cluster.admin_token, ca_file=local_cluster.ca_file
    )


@pytest.fixture
def new_namespace(api: ApiClient, request: pytest.FixtureRequest) -> Callable[..., str]:
    """Factory of fresh namespaces named after the test; all removed after it."""

    def make(hint: str = "") -> str:
        return create_namespace(api, hint=hint or request.node.name)

    return make


@pytest.fixture
def namespace(new_namespace: Callable[..., str]) -> str:
    """A fresh namespace for this test."""
    return new_namespace()


@pytest.fixture(autouse=True)
def _e2e_isolation(api: ApiClient) -> Iterator[None]:
    """After each test: check no node is overcommitted, then delete what the test made."""
    yield
    try:
        assert_no_node_overcommitted(api)
    finally:
        clean_cluster(api)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """On failure keep the component logs and attach their tails to the report."""
    report: pytest.TestReport = yield
    cluster = _state.get("cluster")
    if report.failed and isinstance(cluster, LocalCluster):
        cluster.keep_logs = True
        title = f"control-plane logs (kept in {cluster.logs_dir})"
        report.sections.append((title, cluster.log_tails(lines=40)))
    return report
