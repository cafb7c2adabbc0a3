"""Least-privilege RBAC for kubesched: exactly the API calls the scheduler makes.

What kubesched calls (grep `src/kubesched` for API paths), and the rule that allows it:

* list + watch `/api/v1/pods` and `/api/v1/nodes` (informers)   -> pods, nodes: get/list/watch
* list + watch `/api/v1/namespaces` (InterPodAffinity's declared informer: namespace labels
  for pod-affinity `namespaceSelector`s)                         -> namespaces: get/list/watch
* list + watch services, replicationcontrollers (core) and replicasets, statefulsets (apps)
  (PodTopologySpread's declared informers: their selectors for default topology spreading,
  as kube-scheduler)                                             -> those: list/watch
* POST `pods/{name}/binding` (binder)                            -> pods/binding: create
* PATCH `pods/{name}/status` (PodScheduled condition)            -> pods/status: patch/update
* POST/PATCH `events.k8s.io/v1` events (recorder)                -> events: create/patch/update
  (core v1 events too, as kube-scheduler's role grants them, for recorders on that API)
* GET/POST/PUT of ONE Lease (leader election, release on shutdown) -> a Role in the Lease's
  namespace: `create` on leases WITHOUT resourceNames, `get`/`update` on that Lease only.
  RBAC cannot restrict `create` by name (the object has no name until it exists), so a rule
  `create` + `resourceNames: [lease]` never matches and the first Lease can never be created.
* TokenReview + SubjectAccessReview for `/metrics` (delegated auth, as kube-scheduler does)
  -> the built-in ClusterRole `system:auth-delegator`.

Nothing else: no secrets, no write to other Leases. Only when `preemption` is on (a profile
has DefaultPreemption, as kube-scheduler's defaults do):
* DELETE `pods/{name}` (evicting victims)                        -> pods: delete
* list + watch `/apis/policy/v1/poddisruptionbudgets` (DefaultPreemption's declared
  informer)                                                      -> poddisruptionbudgets:
  list/watch (preemption avoids victims whose eviction breaks a budget)
  (the victims' DisruptionTarget condition is a `pods/status` patch, granted above)

And what enabled plugins declare they read (`kubesched.framework.resources`): each resource
but the built-in ones above (`kubesched.apis.resources.BUILT_IN`, granted by the rules above
as kube-scheduler's role grants them, whichever plugin declares them) gets get/list/watch
(its informer), and `patch`/`update` on `<resource>/status` when the
plugin writes its status (Coscheduling keeps PodGroup status current); with the
`GenericWorkload` feature gate, native PodGroups (`scheduling.k8s.io`) and their status, which
the pod-group cycle reads and writes. In the order of (group, resource), whatever the order of
the profiles, so that the Helm chart's template derives the same list.

Only when `volumes` is on (a profile has VolumeBinding, VolumeRestrictions, VolumeZone or
NodeVolumeLimits, as kube-scheduler's defaults do):
* list + watch PVCs and PVs (informers), PATCH a PV's `claimRef` and a claim's
  `volume.kubernetes.io/selected-node` (VolumeBinding's PreBind)
                                      -> persistentvolumeclaims, persistentvolumes: list/watch/patch
* list + watch `storage.k8s.io` storageclasses, csinodes, csidrivers, csistoragecapacities,
  volumeattachments (informers)       -> those: list/watch
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.apis.resources import ResourceSpec, built_in
from kubesched.manifests.meta import RBAC_API, RBAC_GROUP, metadata, service_account_subject
from kubesched.manifests.options import Names
from kubesched.model.storage_kinds import STORAGE_OBJECTS

AUTH_DELEGATOR = "system:auth-delegator"
READ = ("get", "list", "watch")
WRITE_EVENTS = ("create", "patch", "update")


def rule(
    group: str, resources: tuple[str, ...], verbs: tuple[str, ...], *, names: tuple[str, ...] = ()
) -> dict[str, Any]:
    """One PolicyRule."""
    policy: dict[str, Any] = {
        "apiGroups": [group],
        "resources": list(resources),
        "verbs": list(verbs),
    }
    if names:
        policy["resourceNames"] = list(names)
    return policy


def resource_rules(resources: Sequence[ResourceSpec]) -> list[dict[str, Any]]:
    """Reading what plugins declare (the built-in resources are granted anyway), and their
    writes, by (group, resource)."""
    rules = []
    for spec in sorted(resources, key=lambda s: (s.group, s.resource, s.version)):
        if not built_in(spec):
            rules.append(rule(spec.group, (spec.resource,), READ))
        if spec.writes:
            rules.append(
                rule(spec.group, (spec.resource,), ("create", "delete", "patch", "update"))
            )
            rules.append(rule(spec.group, (f"{spec.resource}/status",), ("patch", "update")))
        elif spec.writes_status:
            rules.append(rule(spec.group, (f"{spec.resource}/status",), ("patch", "update")))
    return rules


def cluster_rules(
    *,
    preemption: bool,
    volumes: bool = True,
    resources: Sequence[ResourceSpec] = (),
    extra: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """What kubesched needs cluster-wide; `preemption` adds `delete` on pods and reading
    PodDisruptionBudgets, `volumes` reading the storage objects and binding volumes,
    `resources` what plugins declare they read, `extra` more rules as they are (the chart's
    `rbac.extraRules`)."""
    rules = [
        rule("", ("pods", "nodes"), READ),
        rule("", ("namespaces",), READ),
        rule("", ("services", "replicationcontrollers"), ("list", "watch")),
        rule("apps", ("replicasets", "statefulsets"), ("list", "watch")),
        rule("", ("pods/binding",), ("create",)),
        rule("", ("pods/status",), ("patch", "update")),
        rule("", ("events",), WRITE_EVENTS),
        rule("events.k8s.io", ("events",), WRITE_EVENTS),
    ]
    if volumes:
        claims = ("persistentvolumeclaims", "persistentvolumes")
        rules.append(rule("", claims, ("list", "watch", "patch")))
        rules.append(rule("storage.k8s.io", STORAGE_OBJECTS, ("list", "watch")))
    rules += resource_rules(resources)
    # Last, so that the Helm chart can put the same rules behind its preemption switch.
    if preemption:
        rules.append(rule("", ("pods",), ("delete",)))
        rules.append(rule("policy", ("poddisruptionbudgets",), ("list", "watch")))
    return [*rules, *extra]


def lease_rules(lease_name: str) -> list[dict[str, Any]]:
    """Leader election on the one Lease `lease_name` (in the Role's namespace)."""
    return [
        rule("coordination.k8s.io", ("leases",), ("create",)),
        rule("coordination.k8s.io", ("leases",), ("get", "update"), names=(lease_name,)),
    ]


def service_account(names: Names) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": metadata(names.name, names, namespace=names.namespace),
    }


def cluster_role(
    names: Names,
    *,
    preemption: bool,
    volumes: bool = True,
    resources: Sequence[ResourceSpec] = (),
    extra: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    rules = cluster_rules(preemption=preemption, volumes=volumes, resources=resources, extra=extra)
    return {
        "apiVersion": RBAC_API,
        "kind": "ClusterRole",
        "metadata": metadata(names.cluster_wide, names),
        "rules": rules,
    }


def cluster_role_binding(names: Names, *, name: str, role: str) -> dict[str, Any]:
    return {
        "apiVersion": RBAC_API,
        "kind": "ClusterRoleBinding",
        "metadata": metadata(name, names),
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role},
        "subjects": [service_account_subject(names)],
    }


def lease_role(names: Names) -> dict[str, Any]:
    return {
        "apiVersion": RBAC_API,
        "kind": "Role",
        "metadata": metadata(names.lease_role, names, namespace=names.lease_namespace),
        "rules": lease_rules(names.lease_name),
    }


def lease_role_binding(names: Names) -> dict[str, Any]:
    return {
        "apiVersion": RBAC_API,
        "kind": "RoleBinding",
        "metadata": metadata(names.lease_role, names, namespace=names.lease_namespace),
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": names.lease_role,
        },
        "subjects": [service_account_subject(names)],
    }


def rbac_objects(
    names: Names,
    *,
    leader_elect: bool,
    preemption: bool,
    volumes: bool = True,
    resources: Sequence[ResourceSpec] = (),
    extra: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """ServiceAccount, ClusterRole and its bindings, and the Lease Role when electing."""
    objects = [
        service_account(names),
        cluster_role(
            names, preemption=preemption, volumes=volumes, resources=resources, extra=extra
        ),
        cluster_role_binding(names, name=names.cluster_wide, role=names.cluster_wide),
        cluster_role_binding(names, name=names.auth_delegator_binding, role=AUTH_DELEGATOR),
    ]
    if leader_elect:
        objects += [lease_role(names), lease_role_binding(names)]
    return objects
