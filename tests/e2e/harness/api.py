"""A small synchronous API client for end-to-end tests (stdlib urllib, admin token).

    api = ApiClient(server=cluster.server, token=cluster.admin_token, ca_file=cluster.ca_file)
    api.create(make_node().name("n1").obj())
    pod = api.get("Pod", "p", namespace="ns")
    api.patch("Pod", "p", {"metadata": {"labels": {"a": "b"}}}, namespace="ns")
    api.list("Pod", namespace="ns", label_selector="app=web")
    api.delete("Pod", "p", namespace="ns", grace_period=0)

Kinds are resolved through `KINDS`; anything else can be reached with `request()`.
This client is for tests only: kubesched itself speaks to the API through `kubesched.kube`.
"""

from __future__ import annotations

import builtins
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# kind -> (apiVersion, plural, namespaced)
KINDS: dict[str, tuple[str, str, bool]] = {
    "Pod": ("v1", "pods", True),
    "Node": ("v1", "nodes", False),
    "Namespace": ("v1", "namespaces", False),
    "Event": ("v1", "events", True),
    "ServiceAccount": ("v1", "serviceaccounts", True),
    "ConfigMap": ("v1", "configmaps", True),
    "Secret": ("v1", "secrets", True),
    "Service": ("v1", "services", True),
    "PersistentVolume": ("v1", "persistentvolumes", False),
    "PersistentVolumeClaim": ("v1", "persistentvolumeclaims", True),
    "Lease": ("coordination.k8s.io/v1", "leases", True),
    "PriorityClass": ("scheduling.k8s.io/v1", "priorityclasses", False),
    "ClusterRole": ("rbac.authorization.k8s.io/v1", "clusterroles", False),
    "ClusterRoleBinding": ("rbac.authorization.k8s.io/v1", "clusterrolebindings", False),
    "Role": ("rbac.authorization.k8s.io/v1", "roles", True),
    "RoleBinding": ("rbac.authorization.k8s.io/v1", "rolebindings", True),
    "Deployment": ("apps/v1", "deployments", True),
    "ReplicaSet": ("apps/v1", "replicasets", True),
    "StatefulSet": ("apps/v1", "statefulsets", True),
    "Job": ("batch/v1", "jobs", True),
    "ReplicationController": ("v1", "replicationcontrollers", True),
    "PodDisruptionBudget": ("policy/v1", "poddisruptionbudgets", True),
    "StorageClass": ("storage.k8s.io/v1", "storageclasses", False),
    "CSINode": ("storage.k8s.io/v1", "csinodes", False),
    "CSIDriver": ("storage.k8s.io/v1", "csidrivers", False),
    "CSIStorageCapacity": ("storage.k8s.io/v1", "csistoragecapacities", True),
    "DeviceClass": ("resource.k8s.io/v1", "deviceclasses", False),
    "ResourceSlice": ("resource.k8s.io/v1", "resourceslices", False),
    "ResourceClaim": ("resource.k8s.io/v1", "resourceclaims", True),
}


class ApiError(Exception):
    """A non-2xx answer; `status` is the HTTP code, `body` the decoded Status (or text)."""

    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        message = body.get("message", body) if isinstance(body, dict) else body
        super().__init__(f"{method} {path}: {status} {message}")
        self.status = status
        self.body = body


@dataclass(frozen=True)
class Event:
    """One event, the same fields whichever API (events.k8s.io/v1 or v1) it was read from."""

    reason: str
    note: str
    type: str
    regarding_kind: str
    regarding_name: str
    regarding_namespace: str
    reporting_controller: str
    action: str
    raw: dict[str, Any]


class ApiClient:
    """Create, get, list, patch and delete API objects; raise `ApiError` on failure."""

    def __init__(self, *, server: str, token: str, ca_file: Path, timeout: float = 30.0) -> None:
        self.server = server.rstrip("/")
        self.timeout = timeout
        self._token = token
        self._ssl = ssl.create_default_context(cafile=str(ca_file))

    # -- raw -------------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> Any:
        """Send one request; return the decoded JSON answer (None when empty)."""
        url = self.server + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self._token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self._ssl) as reply:
                raw = reply.read()
        except urllib.error.HTTPError as error:
            raise ApiError(method, path, error.code, _decode(error.read())) from None
        return _decode(raw) if raw else None

    # -- by kind ---------------------------------------------------------------------------
    def path(self, kind: str, *, namespace: str | None = None, name: str | None = None) -> str:
        """The URL path of a kind's collection, or of one object when `name` is given."""
        if kind not in KINDS:
            raise KeyError(f"unknown kind {kind!r}: add it to harness.api.KINDS")
        api_version, plural, namespaced = KINDS[kind]
        prefix = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        if namespaced and namespace:
            prefix += f"/namespaces/{namespace}"
        elif namespaced and name:
            raise ValueError(f"{kind} {name!r} needs a namespace")
        return f"{prefix}/{plural}" + (f"/{name}" if name else "")

    def create(self, obj: dict[str, Any], *, namespace: str | None = None) -> dict[str, Any]:
        """Create `obj` (its kind and metadata.namespace, or `namespace`, say where)."""
        obj = dict(obj)
        metadata = dict(obj.get("metadata", {}))
        metadata.pop("uid", None)
        if namespace:
            metadata["namespace"] = namespace
        obj["metadata"] = metadata
        path = self.path(obj["kind"], namespace=metadata.get("namespace"))
        created: dict[str, Any] = self.request("POST", path, body=obj)
        return created

    def get(self, kind: str, name: str, *, namespace: str | None = None) -> dict[str, Any]:
        """One object; raises ApiError (status 404) when absent."""
        found: dict[str, Any] = self.request("GET", self.path(kind, namespace=namespace, name=name))
        return found

    def get_or_none(
        self, kind: str, name: str, *, namespace: str | None = None
    ) -> dict[str, Any] | None:
        """One object, or None when absent."""
        try:
            return self.get(kind, name, namespace=namespace)
        except ApiError as error:
            if error.status == 404:
                return None
            raise

    def list(
        self,
        kind: str,
        *,
        namespace: str | None = None,
        label_selector: str = "",
        field_selector: str = "",
    ) -> list[dict[str, Any]]:
        """All objects of a kind (in `namespace`, or in all namespaces when None)."""
        query = {"labelSelector": label_selector, "fieldSelector": field_selector}
        answer = self.request(
            "GET", self.path(kind, namespace=namespace), query={k: v for k, v in query.items() if v}
        )
        items: list[dict[str, Any]] = answer.get("items", [])
        return items

    def patch(
        self,
        kind: str,
        name: str,
        patch: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> dict[str, Any]:
        """Patch an object (`merge`, `strategic` or `json` patch), or its `subresource`."""
        types = {
            "merge": "application/merge-patch+json",
            "strategic": "application/strategic-merge-patch+json",
            "json": "application/json-patch+json",
        }
        path = self.path(kind, namespace=namespace, name=name) + (
            f"/{subresource}" if subresource else ""
        )
        patched: dict[str, Any] = self.request(
            "PATCH", path, body=patch, content_type=types[patch_type]
        )
        return patched

    def delete(
        self,
        kind: str,
        name: str,
        *,
        namespace: str | None = None,
        grace_period: int | None = None,
        missing_ok: bool = True,
    ) -> None:
        """Delete an object; `grace_period=0` removes a bound pod at once (there is no kubelet)."""
        body = None if grace_period is None else {"gracePeriodSeconds": grace_period}
        try:
            self.request("DELETE", self.path(kind, namespace=namespace, name=name), body=body)
        except ApiError as error:
            if not (missing_ok and error.status == 404):
                raise

    def delete_all(
        self, kind: str, *, namespace: str | None = None, grace_period: int | None = 0
    ) -> None:
        """Delete every object of a kind (in `namespace`) with one deletecollection call."""
        query = {} if grace_period is None else {"gracePeriodSeconds": str(grace_period)}
        self.request("DELETE", self.path(kind, namespace=namespace), query=query)

    # -- conveniences ----------------------------------------------------------------------
    def bind(self, pod: dict[str, Any], node: str) -> None:
        """Bind a pod to a node through the `binding` subresource, as a scheduler does."""
        meta = pod["metadata"]
        body = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": meta["name"], "uid": meta.get("uid")},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }
        self.request(
            "POST",
            self.path("Pod", namespace=meta["namespace"], name=meta["name"]) + "/binding",
            body=body,
        )

    def events(
        self, namespace: str, *, regarding: str | None = None, reason: str | None = None
    ) -> builtins.list[Event]:
        """Events of a namespace from events.k8s.io/v1, optionally about one object and of
        one reason, oldest first."""
        answer = self.request("GET", f"/apis/events.k8s.io/v1/namespaces/{namespace}/events")
        found = [_from_events_v1(item) for item in answer.get("items", [])]
        return _filter(found, regarding=regarding, reason=reason)

    def core_events(
        self, namespace: str, *, regarding: str | None = None, reason: str | None = None
    ) -> builtins.list[Event]:
        """The same events read through core/v1 (`kubectl get events`' view)."""
        found = [_from_core_v1(item) for item in self.list("Event", namespace=namespace)]
        return _filter(found, regarding=regarding, reason=reason)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")


def _from_events_v1(item: dict[str, Any]) -> Event:
    regarding = item.get("regarding", {})
    return Event(
        reason=item.get("reason", ""),
        note=item.get("note", ""),
        type=item.get("type", ""),
        regarding_kind=regarding.get("kind", ""),
        regarding_name=regarding.get("name", ""),
        regarding_namespace=regarding.get("namespace", ""),
        reporting_controller=item.get("reportingController", ""),
        action=item.get("action", ""),
        raw=item,
    )


def _from_core_v1(item: dict[str, Any]) -> Event:
    involved = item.get("involvedObject", {})
    reporter = item.get("reportingComponent") or item.get("source", {}).get("component", "")
    return Event(
        reason=item.get("reason", ""),
        note=item.get("message", ""),
        type=item.get("type", ""),
        regarding_kind=involved.get("kind", ""),
        regarding_name=involved.get("name", ""),
        regarding_namespace=involved.get("namespace", ""),
        reporting_controller=reporter,
        action=item.get("action", ""),
        raw=item,
    )


def _filter(events: list[Event], *, regarding: str | None, reason: str | None) -> list[Event]:
    chosen = [
        e
        for e in events
        if (regarding is None or e.regarding_name == regarding)
        and (reason is None or e.reason == reason)
    ]
    return sorted(chosen, key=lambda e: e.raw.get("metadata", {}).get("creationTimestamp", ""))
