"""Namespaces per test, and the clean-up that keeps tests on one cluster independent.

Tests on one pytest-xdist worker share its control plane and run one after another. After
each test, `clean_cluster` deletes every Node, every pod in the namespaces the harness
created (and in `default`), then the namespaces themselves. There is no controller-manager
to empty a deleted namespace, so the clean-up deletes the usual namespaced kinds itself and
then finalizes the namespace.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from tests.e2e.harness.api import ApiClient, ApiError

TEST_LABEL = "kubesched.e2e/test"
_NAMESPACED_KINDS = (
    "ServiceAccount",
    "ConfigMap",
    "Secret",
    "Lease",
    "Role",
    "RoleBinding",
    "PodDisruptionBudget",
    "PersistentVolumeClaim",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "Job",
    "ReplicationController",
    "Service",
)


def namespace_name(hint: str) -> str:
    """A fresh DNS-label namespace name derived from `hint` (e.g. the test name)."""
    base = re.sub(r"[^a-z0-9-]+", "-", hint.lower()).strip("-")[:50].strip("-") or "test"
    return f"{base}-{secrets.token_hex(3)}"


def create_namespace(
    api: ApiClient, *, hint: str = "test", labels: dict[str, str] | None = None
) -> str:
    """Create a namespace that `clean_cluster` removes after the test; return its name."""
    name = namespace_name(hint)
    metadata: dict[str, Any] = {"name": name, "labels": {TEST_LABEL: "true", **(labels or {})}}
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata})
    return name


def clean_cluster(api: ApiClient) -> None:
    """Delete all Nodes, all pods of the test namespaces and `default`, and the namespaces."""
    for namespace in api.list("Namespace", label_selector=TEST_LABEL):
        _remove_namespace(api, namespace["metadata"]["name"])
    _delete_pods(api, "default")
    api.delete_all("Node", grace_period=None)


def _delete_pods(api: ApiClient, namespace: str) -> None:
    api.delete_all("Pod", namespace=namespace, grace_period=0)
    for pod in api.list("Pod", namespace=namespace):  # only pods held by finalizers remain
        name = pod["metadata"]["name"]
        api.patch("Pod", name, {"metadata": {"finalizers": None}}, namespace=namespace)
        api.delete("Pod", name, namespace=namespace, grace_period=0)


def _remove_namespace(api: ApiClient, namespace: str) -> None:
    _delete_pods(api, namespace)
    for kind in _NAMESPACED_KINDS:
        api.delete_all(kind, namespace=namespace, grace_period=None)
    api.request("DELETE", f"/apis/events.k8s.io/v1/namespaces/{namespace}/events")
    api.delete("Namespace", namespace)
    current = api.get_or_none("Namespace", namespace)
    if current is None:
        return
    current["spec"]["finalizers"] = []
    try:
        api.request("PUT", f"/api/v1/namespaces/{namespace}/finalize", body=current)
    except ApiError as error:
        if error.status != 404:
            raise
