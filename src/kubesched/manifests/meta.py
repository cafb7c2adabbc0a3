"""Labels and metadata shared by every generated object."""

from __future__ import annotations

from typing import Any

from kubesched.manifests.options import Names

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_API = f"{RBAC_GROUP}/v1"
APP_NAME = "kubesched"
MANAGED_BY = "kubesched-manifests"
COMPONENT = "scheduler"


def selector_labels(names: Names) -> dict[str, str]:
    """The Deployment's selector: immutable, so only the app and the instance name."""
    return {"app.kubernetes.io/name": APP_NAME, "app.kubernetes.io/instance": names.name}


def labels(names: Names) -> dict[str, str]:
    """The recommended `app.kubernetes.io/*` labels of every object."""
    return {
        **selector_labels(names),
        "app.kubernetes.io/component": COMPONENT,
        "app.kubernetes.io/managed-by": MANAGED_BY,
    }


def metadata(name: str, names: Names, *, namespace: str | None = None) -> dict[str, Any]:
    """`metadata` of an object; cluster-scoped when `namespace` is None."""
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    meta["labels"] = labels(names)
    return meta


def service_account_subject(names: Names) -> dict[str, str]:
    """The RBAC subject of kubesched's ServiceAccount."""
    return {"kind": "ServiceAccount", "name": names.name, "namespace": names.namespace}
