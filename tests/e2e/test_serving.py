"""The secure port end to end: health open to all over HTTPS; /metrics and /configz only for
callers the real API server authenticates (TokenReview) and authorizes (SubjectAccessReview);
the scheduling counters move when pods are scheduled.

ClusterRoles and ClusterRoleBindings are cluster-scoped: the test deletes its own.
"""

from __future__ import annotations

import re
import secrets
import ssl
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for

RBAC = "rbac.authorization.k8s.io/v1"


def https_get(port: int, path: str, token: str = "") -> tuple[int, str]:
    """GET over HTTPS (the self-signed certificate is not verified), optionally with a token."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(f"https://127.0.0.1:{port}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def sa_token(api: ApiClient, namespace: str, name: str) -> str:
    api.create(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}},
        namespace=namespace,
    )
    answer = api.request(
        "POST",
        f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
        body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
    )
    token: str = answer["status"]["token"]
    return token


@pytest.fixture
def metrics_reader(api: ApiClient, namespace: str) -> Iterator[str]:
    """A ServiceAccount token allowed `get` on the non-resource URL /metrics only."""
    name = f"metrics-reader-{secrets.token_hex(3)}"
    token = sa_token(api, namespace, "prometheus")
    api.create(
        {
            "apiVersion": RBAC,
            "kind": "ClusterRole",
            "metadata": {"name": name},
            "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}],
        }
    )
    api.create(
        {
            "apiVersion": RBAC,
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "subjects": [{"kind": "ServiceAccount", "name": "prometheus", "namespace": namespace}],
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": name,
            },
        }
    )
    try:
        yield token
    finally:
        api.delete("ClusterRoleBinding", name)
        api.delete("ClusterRole", name)


def attempts(text: str, profile: str) -> float:
    """scheduler_schedule_attempts_total{profile=...,result="scheduled"} (0 when absent)."""
    for line in text.splitlines():
        labels = line.partition("}")[0]
        if (
            line.startswith("scheduler_schedule_attempts_total{")
            and f'profile="{profile}"' in labels
            and 'result="scheduled"' in labels
        ):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_health_is_open_and_metrics_need_an_authorized_token(
    kubesched: Callable[..., Any],
    api: ApiClient,
    local_cluster: LocalCluster,
    namespace: str,
    metrics_reader: str,
) -> None:
    proc = kubesched("--scheduler-name=serving-e2e", "--leader-elect=false")
    for path in ("/readyz", "/healthz", "/livez"):
        assert https_get(proc.port, path) == (200, "ok")  # anyone, no token
    # Anonymous, or a token the API server does not accept: 401.
    assert https_get(proc.port, "/metrics")[0] == 401
    assert https_get(proc.port, "/configz")[0] == 401
    assert https_get(proc.port, "/metrics", "not-a-real-token")[0] == 401
    # A real ServiceAccount without the permission: 403.
    nobody = sa_token(api, namespace, "nobody")
    status, body = https_get(proc.port, "/metrics", nobody)
    assert status == 403
    assert f'User "system:serviceaccount:{namespace}:nobody" cannot get path "/metrics"' in body
    # The admin, and a ServiceAccount bound to nonResourceURLs ["/metrics"] get: 200.
    # (Nothing was scheduled yet: as kube-scheduler's, the attempt counters are not served
    # before their first series; the pending-pods gauge always is.)
    status, body = https_get(proc.port, "/metrics", local_cluster.admin_token)
    assert status == 200
    assert "scheduler_pending_pods{" in body
    assert "scheduler_schedule_attempts_total" not in body
    status, body = https_get(proc.port, "/metrics", metrics_reader)
    assert status == 200
    assert "# TYPE scheduler_pending_pods gauge" in body
    assert https_get(proc.port, "/configz", metrics_reader)[0] == 403  # /metrics only
    status, body = https_get(proc.port, "/configz", local_cluster.admin_token)
    assert status == 200
    assert "serving-e2e" in body
    for token in (nobody, metrics_reader, local_cluster.admin_token):
        assert token not in proc.log()


def test_schedule_attempts_grow_when_pods_are_scheduled(
    kubesched: Callable[..., Any], api: ApiClient, namespace: str, metrics_reader: str
) -> None:
    api.create(make_node().name("serving-node").obj())
    proc = kubesched("--scheduler-name=counting-e2e", "--leader-elect=false")
    before = attempts(https_get(proc.port, "/metrics", metrics_reader)[1], "counting-e2e")
    for i in range(3):
        api.create(make_pod().name(f"p{i}").namespace(namespace).scheduler("counting-e2e").obj())
    for i in range(3):
        wait_for(
            lambda i=i: api.get("Pod", f"p{i}", namespace=namespace),
            until=is_bound,
            message=f"p{i} is bound",
        )
    after = wait_for(
        lambda: attempts(https_get(proc.port, "/metrics", metrics_reader)[1], "counting-e2e"),
        until=lambda value: value >= before + 3,
        message="scheduler_schedule_attempts_total grows by 3",
    )
    assert after == before + 3
    assert re.search(
        r"scheduler_pod_scheduling_attempts_count\S* \d",
        https_get(proc.port, "/metrics", metrics_reader)[1],
    )
