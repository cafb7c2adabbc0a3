"""An in-memory API server for doctor's checks: Leases, pods, ServiceAccounts and an RBAC
evaluator with RBAC's own rule semantics (including how `resourceNames` meets `create`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from kubesched.doctor import Target
from kubesched.doctor.context import Context
from kubesched.kube.errors import ApiError, NotFound

NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
LEASES_API = "/apis/coordination.k8s.io/v1"


def stamp(seconds_ago: float) -> str:
    moment = NOW - timedelta(seconds=seconds_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def lease(
    namespace: str,
    name: str,
    *,
    holder: str = "holder-1",
    renewed_ago: float | None = 1.0,
    duration: int = 15,
    names: str | None = None,
    transitions: int = 0,
) -> dict[str, Any]:
    """A Lease; `names` set makes it a kubesched Lease (label + annotation)."""
    metadata: dict[str, Any] = {"namespace": namespace, "name": name}
    if names is not None:
        metadata["labels"] = {"kubesched.io/lease": "scheduler"}
        metadata["annotations"] = {"kubesched.io/scheduler-names": names}
    spec: dict[str, Any] = {
        "holderIdentity": holder,
        "leaseDurationSeconds": duration,
        "leaseTransitions": transitions,
    }
    if renewed_ago is not None:
        spec["renewTime"] = stamp(renewed_ago)
    return {"metadata": metadata, "spec": spec}


def pod(namespace: str, name: str, scheduler: str | None = None, node: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeName": node} if node else {}
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    return {
        "metadata": {"namespace": namespace, "name": name},
        "spec": spec,
        "status": {"phase": "Pending"},
    }


@dataclass(frozen=True)
class Rule:
    """One RBAC PolicyRule (resources may name a subresource: `pods/binding`)."""

    verbs: tuple[str, ...]
    resources: tuple[str, ...]
    groups: tuple[str, ...] = ("",)
    names: tuple[str, ...] = ()
    namespace: str = ""  # "" : a ClusterRole bound cluster-wide; else a Role in that namespace

    def allows(self, attrs: dict[str, str]) -> bool:
        resource = attrs["resource"] + (
            f"/{attrs['subresource']}" if attrs.get("subresource") else ""
        )
        if self.namespace and attrs.get("namespace") != self.namespace:
            return False
        if self.names and attrs.get("name", "") not in self.names:
            return False  # RBAC: a rule with resourceNames never matches a request without a name
        return (
            attrs["verb"] in self.verbs
            and attrs.get("group", "") in self.groups
            and resource in self.resources
        )


def leader_election_guide_rules(lease_name: str = "my-custom-scheduler") -> list[Rule]:
    """The ClusterRole of the guide on leader-election conflicts."""
    return [
        Rule(("get", "create", "update"), ("leases",), ("coordination.k8s.io",), (lease_name,)),
        Rule(("get", "list", "watch"), ("pods", "nodes", "services", "endpoints")),
        Rule(("create", "update"), ("pods/binding", "pods/status")),
    ]


def correct_rules(namespace: str, lease_name: str, *, metrics_auth: bool = True) -> list[Rule]:
    """What `kubesched manifests` grants: create without resourceNames, get/update by name."""
    rules = [
        Rule(("list", "watch"), ("pods", "nodes", "namespaces")),
        Rule(("list", "watch"), ("services", "replicationcontrollers")),
        Rule(("list", "watch"), ("replicasets", "statefulsets"), ("apps",)),
        Rule(("create",), ("pods/binding",)),
        Rule(("patch", "update"), ("pods/status",)),
        Rule(("create", "patch", "update"), ("events",), ("", "events.k8s.io")),
        Rule(("create",), ("leases",), ("coordination.k8s.io",), namespace=namespace),
        Rule(
            ("get", "update"),
            ("leases",),
            ("coordination.k8s.io",),
            (lease_name,),
            namespace=namespace,
        ),
    ]
    if metrics_auth:
        rules += [
            Rule(("create",), ("tokenreviews",), ("authentication.k8s.io",)),
            Rule(("create",), ("subjectaccessreviews",), ("authorization.k8s.io",)),
        ]
    return rules


@dataclass
class FakeCluster:
    """Implements KubeApi for what doctor reads and reviews."""

    version: str = "v1.37.2"
    me: str = "kubernetes-admin"
    leases: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    pods: list[dict[str, Any]] = field(default_factory=list)
    service_accounts: set[tuple[str, str]] = field(default_factory=set)
    rules: dict[str, list[Rule]] = field(default_factory=dict)  # user -> rules
    errors: dict[str, ApiError] = field(default_factory=dict)  # path prefix -> error
    posts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    gets: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def add(self, obj: dict[str, Any]) -> None:
        meta = obj["metadata"]
        self.leases[(meta["namespace"], meta["name"])] = obj

    def grant(self, user: str, rules: list[Rule]) -> None:
        self.rules[user] = rules

    def _fail(self, path: str) -> None:
        for prefix, error in self.errors.items():
            if path.startswith(prefix):
                raise error

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        self.gets.append((path, dict(params or {})))
        self._fail(path)
        if path == "/version":
            return {"gitVersion": self.version}
        if path == "/api/v1/pods":
            return {"items": [p for p in self.pods if not p["spec"].get("nodeName")]}
        if path.startswith("/api/v1/namespaces/") and "/serviceaccounts/" in path:
            parts = path.split("/")
            if (parts[4], parts[6]) in self.service_accounts:
                return {"metadata": {"namespace": parts[4], "name": parts[6]}}
            raise NotFound(404, "NotFound", "serviceaccount not found")
        return self._get_lease(path, params or {})

    def _get_lease(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        parts = path.removeprefix(LEASES_API).strip("/").split("/")
        selector = params.get("labelSelector")
        labelled = [
            obj
            for obj in self.leases.values()
            if not selector
            or (obj["metadata"].get("labels") or {}).get("kubesched.io/lease") == "scheduler"
        ]
        if parts == ["leases"]:
            return {"items": labelled, "metadata": {}}
        if len(parts) == 3:
            return {"items": [o for o in labelled if o["metadata"]["namespace"] == parts[1]]}
        if len(parts) == 4 and (parts[1], parts[3]) in self.leases:
            return self.leases[(parts[1], parts[3])]
        raise NotFound(404, "NotFound", f"{path} not found")

    async def post(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        self.posts.append((path, body))
        self._fail(path)
        if path.endswith("/selfsubjectreviews"):
            return {"status": {"userInfo": {"username": self.me}}}
        if path.endswith("accessreviews"):
            spec = body["spec"]
            user = spec.get("user", self.me)
            attrs = spec["resourceAttributes"]
            allowed = any(rule.allows(attrs) for rule in self.rules.get(user, []))
            return {"status": {"allowed": allowed}}
        raise AssertionError(f"unexpected POST {path}")

    async def put(self, path: str, body: dict[str, Any], **_: Any) -> dict[str, Any]:
        raise AssertionError("doctor must not write")

    async def patch(self, path: str, body: Any, **_: Any) -> dict[str, Any]:
        raise AssertionError("doctor must not write")

    async def delete(self, path: str, **_: Any) -> dict[str, Any]:
        raise AssertionError("doctor must not write")

    def reviews(self) -> list[dict[str, Any]]:
        return [body for path, body in self.posts if path.endswith("accessreviews")]


def target(
    *names: str,
    namespace: str = "sched-ns",
    lease_name: str = "",
    leader_elect: bool = True,
    service_account: Any = None,
) -> Target:
    scheduler_names = names or ("my-scheduler",)
    return Target(
        scheduler_names=scheduler_names,
        lease_namespace=namespace,
        lease_name=lease_name or scheduler_names[0],
        leader_elect=leader_elect,
        service_account=service_account,
    )


def context(cluster: FakeCluster, tgt: Target | None = None) -> Context:
    return Context(api=cluster, target=tgt or target(), now=NOW, server="https://k8s:6443")
