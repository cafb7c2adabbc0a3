"""The ServiceMonitor scrapes with a ServiceAccount token of its own: `authorization` naming
a token Secret (not the deprecated bearerTokenFile), and an account allowed /metrics only."""

from __future__ import annotations

from typing import Any

from tests.unit.manifests.manifests_helpers import Build, of_kind, one

NAMESPACE = "kubesched-system"


def _named(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [obj for obj in of_kind(objects, kind) if obj["metadata"]["name"] == name]
    assert len(found) == 1, (kind, name)
    return found[0]


def test_no_service_monitor_no_metrics_reader(build: Build) -> None:
    objects = build()
    assert not of_kind(objects, "ServiceMonitor")
    assert not of_kind(objects, "Secret")
    assert [obj["metadata"]["name"] for obj in of_kind(objects, "ServiceAccount")] == ["kubesched"]


def test_the_endpoint_presents_the_token_secret_by_authorization(build: Build) -> None:
    endpoint = one(build(service_monitor=True), "ServiceMonitor")["spec"]["endpoints"][0]

    assert "bearerTokenFile" not in endpoint
    assert "bearerTokenSecret" not in endpoint
    assert endpoint["authorization"] == {
        "type": "Bearer",
        "credentials": {"name": "kubesched-metrics-reader-token", "key": "token"},
    }
    assert (endpoint["scheme"], endpoint["path"], endpoint["interval"]) == (
        "https",
        "/metrics",
        "30s",
    )


def test_the_token_secret_belongs_to_the_metrics_reader(build: Build) -> None:
    objects = build(service_monitor=True)
    secret = one(objects, "Secret")
    account = _named(objects, "ServiceAccount", "kubesched-metrics-reader")

    assert secret["type"] == "kubernetes.io/service-account-token"
    assert secret["metadata"]["namespace"] == NAMESPACE
    assert secret["metadata"]["annotations"] == {
        "kubernetes.io/service-account.name": "kubesched-metrics-reader"
    }
    assert account["automountServiceAccountToken"] is False
    kinds = [obj["kind"] for obj in objects]
    assert kinds.index("ServiceAccount", kinds.index("Service")) < kinds.index("Secret")


def test_the_metrics_reader_may_get_metrics_and_nothing_else(build: Build) -> None:
    objects = build(service_monitor=True)
    name = f"kubesched:{NAMESPACE}:kubesched:metrics-reader"
    role = _named(objects, "ClusterRole", name)
    binding = _named(objects, "ClusterRoleBinding", name)

    assert role["rules"] == [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": name,
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "kubesched-metrics-reader", "namespace": NAMESPACE}
    ]
    scheduler = one(objects, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"]
    assert scheduler == "kubesched"  # the scheduler never runs as the metrics reader
