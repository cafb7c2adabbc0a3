"""A module's own control plane, for tests that break the API server (restart it, throttle it)
and so cannot share the worker's: started before the module, stopped after it, its logs kept
and their tails printed when a test of the module failed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kubesched.localcluster import LocalCluster, LocalClusterError
from kubesched.localcluster.flags import KubeconfigSpec, kubeconfig
from tests.e2e.harness.api import ApiClient


@contextmanager
def own_cluster(
    request: pytest.FixtureRequest,
    cluster: LocalCluster,
    *,
    then: Callable[[LocalCluster], None] = lambda _cluster: None,
) -> Iterator[LocalCluster]:
    """Start `cluster` (and `then` on it, e.g. kube-scheduler); always stop it."""
    failed_before = request.session.testsfailed
    try:
        cluster.start()
        then(cluster)
    except LocalClusterError as error:
        cluster.stop()
        pytest.fail(f"{error}\n{error.details}", pytrace=False)
    try:
        yield cluster
    finally:
        if request.session.testsfailed > failed_before:
            cluster.keep_logs = True
            print(f"control-plane logs kept in {cluster.logs_dir}\n{cluster.log_tails(lines=30)}")
        # kube-apiserver waits for its watchers on SIGTERM; this cluster is thrown away.
        cluster.stop_apiserver(grace=1.0)
        cluster.stop()


def admin_client(cluster: LocalCluster) -> ApiClient:
    """The admin client of `cluster` (system:masters)."""
    return ApiClient(server=cluster.server, token=cluster.admin_token, ca_file=cluster.ca_file)


def service_account_kubeconfig(
    cluster: LocalCluster, api: ApiClient, namespace: str, path: Path, *, account: str
) -> Path:
    """A kubeconfig with a real token of a new ServiceAccount `account` bound to
    cluster-admin: what the API server sees (flow control, the audit log) is that account,
    not system:masters; RBAC is not what the tests using it are about."""
    api.create(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": account}},
        namespace=namespace,
    )
    api.request(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        body={
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": f"{namespace}-{account}"},
            "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "cluster-admin",
            },
        },
    )
    answer = api.request(
        "POST",
        f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token",
        body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
    )
    spec = KubeconfigSpec(
        server=cluster.server,
        ca_file=cluster.ca_file,
        token=answer["status"]["token"],
        user=account,
    )
    path.write_text(kubeconfig(spec))
    path.chmod(0o600)
    return path


def unready_kube_scheduler_log(cluster: LocalCluster, *, within: float = 20.0) -> str:
    """Start the cluster's kube-scheduler, check that it does not become ready within
    `within` seconds, and return its log (what it did meanwhile)."""
    timeout = cluster.start_timeout
    cluster.start_timeout = within
    try:
        with pytest.raises(LocalClusterError, match="kube-scheduler to become ready"):
            cluster.start_default_scheduler()
    finally:
        cluster.start_timeout = timeout
    return (cluster.logs_dir / "kube-scheduler.log").read_text()
