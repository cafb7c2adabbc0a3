"""What `kubesched record` records, and what of each object it keeps.

Every kind scheduling reads, by its trace name (`pods`, `apps/replicasets`): nodes and pods
(the cache and the queue), what the in-tree plugins declare (namespaces, the spreading
selectors' Services and controllers, PodDisruptionBudgets, DRA's claims, slices, classes and
taint rules), PriorityClasses, both PodGroup APIs, scheduler-plugins' ElasticQuotas, and the
storage objects of the volume plugins. Only nodes, pods and namespaces must be served; the
others are recorded when the API server serves them.

Each object is stripped to what scheduling reads (the keep-lists below, docs/replay.md):
`metadata.managedFields` and every annotation not in `READ_ANNOTATIONS` go; a pod keeps of
its containers only `CONTAINER_KEEP` and of its status only `POD_STATUS_KEEP`; a node keeps
`NODE_STATUS_KEEP` of its status; a declared resource with a `ResourceSpec.keep` keeps those
parts of its body (a Service its selector). The rest is kept whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.apis.resources import (
    DEFAULT_SPREADING,
    NAMESPACES,
    POD_DISRUPTION_BUDGETS,
    SCHEDULING_PODGROUPS,
    ResourceSpec,
)
from kubesched.framework.dra import (
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
)
from kubesched.model.storage_kinds import STORAGE_KINDS

READ_ANNOTATIONS = frozenset(
    {
        "volume.beta.kubernetes.io/storage-class",
        "volume.kubernetes.io/selected-node",
        "pv.kubernetes.io/bind-completed",
        "pv.kubernetes.io/bound-by-controller",
        "storage.alpha.kubernetes.io/migrated-plugins",
        "resource.kubernetes.io/extended-resource-claim",
    }
)
"""The annotations kubesched's plugins read; `kubesched record --keep-annotation` adds more
(for a plugin of your own that reads one)."""

METADATA_KEEP = (
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "labels",
    "annotations",
    "creationTimestamp",
    "deletionTimestamp",
    "ownerReferences",
    "finalizers",
)
CONTAINER_KEEP = ("name", "image", "ports", "resources", "restartPolicy", "resizePolicy")
"""A container's env, envFrom, command, args, probes and mounts are never read."""
CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
POD_STATUS_KEEP = (
    "phase",
    "conditions",
    "nominatedNodeName",
    "startTime",
    "resourceClaimStatuses",
    "allocatedResources",
    "resources",
    "containerStatuses",
    "initContainerStatuses",
)
CONTAINER_STATUS_KEEP = ("name", "allocatedResources", "resources")
NODE_STATUS_KEEP = ("capacity", "allocatable", "conditions", "images", "declaredFeatures")

_NAMED_ONLY = ResourceSpec("scheduling.k8s.io", "v1", "priorityclasses", namespaced=False)
_X_PODGROUPS = ResourceSpec("scheduling.x-k8s.io", "v1alpha1", "podgroups")
_ELASTIC_QUOTAS = ResourceSpec("scheduling.x-k8s.io", "v1alpha1", "elasticquotas")
"""scheduler-plugins' ElasticQuotas (CapacityScheduling)."""


@dataclass(frozen=True, slots=True)
class RecordedKind:
    """One resource `kubesched record` lists and watches."""

    name: str
    """Its name in a trace: the plural, after its API group when it has one."""
    path: str
    """The collection's URL path across all namespaces."""
    required: bool = False
    """Nodes, pods, namespaces: a recording without them is refused."""
    keep: tuple[str, ...] = ()
    """Dotted paths of the body kept (`ResourceSpec.keep`); empty: the whole body."""
    field_selector: str = ""


def _named(group: str, resource: str) -> str:
    return f"{group}/{resource}" if group else resource


def _of_spec(spec: ResourceSpec, *, required: bool = False) -> RecordedKind:
    return RecordedKind(
        _named(spec.group, spec.resource), spec.path, required=required, keep=spec.keep
    )


NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed"
"""As kube-scheduler's pod informer: a pod that finished leaves the trace as DELETED."""

KINDS: tuple[RecordedKind, ...] = (
    RecordedKind("nodes", "/api/v1/nodes", required=True),
    RecordedKind("pods", "/api/v1/pods", required=True, field_selector=NON_TERMINAL_PODS),
    _of_spec(NAMESPACES, required=True),
    *(_of_spec(spec) for spec in DEFAULT_SPREADING),
    _of_spec(POD_DISRUPTION_BUDGETS),
    _of_spec(_NAMED_ONLY),
    _of_spec(SCHEDULING_PODGROUPS),
    _of_spec(_X_PODGROUPS),
    _of_spec(_ELASTIC_QUOTAS),
    *(RecordedKind(_named(kind.group, kind.resource), kind.path) for kind in STORAGE_KINDS),
    *(_of_spec(spec) for spec in (RESOURCE_CLAIMS, RESOURCE_SLICES, DEVICE_CLASSES)),
    _of_spec(DEVICE_TAINT_RULES),
)
BY_NAME: Mapping[str, RecordedKind] = {kind.name: kind for kind in KINDS}


def strip(
    kind: RecordedKind, obj: Mapping[str, Any], *, annotations: frozenset[str] = READ_ANNOTATIONS
) -> dict[str, Any]:
    """The parts of `obj` scheduling reads (see the module's keep-lists)."""
    out: dict[str, Any] = {"metadata": _metadata(obj.get("metadata"), annotations)}
    if kind.name == "pods":
        out["spec"] = _pod_spec(obj.get("spec"))
        out["status"] = _pod_status(obj.get("status"))
    elif kind.name == "nodes":
        out["spec"] = obj.get("spec") or {}
        out["status"] = _only(obj.get("status"), NODE_STATUS_KEEP)
        out["status"]["conditions"] = [
            _only(c, ("type", "status")) for c in out["status"].get("conditions") or ()
        ]
    elif kind.keep:
        for path in kind.keep:
            _copy_path(obj, out, path.split("."))
    else:
        out.update({k: v for k, v in obj.items() if k not in ("metadata", "apiVersion", "kind")})
    return out


def _metadata(raw: Any, annotations: frozenset[str]) -> dict[str, Any]:
    meta = _only(raw, METADATA_KEEP)
    kept = {k: v for k, v in (meta.pop("annotations", None) or {}).items() if k in annotations}
    if kept:
        meta["annotations"] = kept
    return meta


def _pod_spec(raw: Any) -> dict[str, Any]:
    spec = dict(raw) if isinstance(raw, dict) else {}
    for field in CONTAINER_LISTS:
        if field in spec:
            spec[field] = [_only(container, CONTAINER_KEEP) for container in spec[field] or ()]
    return spec


def _pod_status(raw: Any) -> dict[str, Any]:
    status = _only(raw, POD_STATUS_KEEP)
    for field in ("containerStatuses", "initContainerStatuses"):
        if field in status:
            status[field] = [_only(s, CONTAINER_STATUS_KEEP) for s in status[field] or ()]
    return status


def _only(raw: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        return {}
    return {key: raw[key] for key in keys if key in raw}


def _copy_path(source: Mapping[str, Any], target: dict[str, Any], path: list[str]) -> None:
    """Copy `source[path]` into `target` at the same place, if it is there."""
    head, rest = path[0], path[1:]
    if head not in source:
        return
    if not rest:
        target[head] = source[head]
        return
    inner = source[head]
    if isinstance(inner, dict):
        _copy_path(inner, target.setdefault(head, {}), rest)
