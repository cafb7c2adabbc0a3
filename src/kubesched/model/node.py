"""A Node reduced to what scheduling needs, parsed straight from the API server's JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubesched.model.resources import Resource

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
DO_NOT_SCHEDULE_EFFECTS = frozenset({NO_SCHEDULE, NO_EXECUTE})
"""The taint effects that keep a pod that does not tolerate them off a node (TaintToleration's
Filter, PodTopologySpread's `nodeTaintsPolicy: Honor`, a device taint in DRA)."""


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Taint:
        return cls(obj.get("key", ""), obj.get("value", ""), obj.get("effect", ""))

    def __str__(self) -> str:
        # kube-scheduler prints untolerated taints as {key: value}.
        return f"{{{self.key}: {self.value}}}"


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int


@dataclass(slots=True)
class Node:
    name: str
    uid: str = ""
    resource_version: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    allocatable: Resource = field(default_factory=Resource)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    images: tuple[ContainerImage, ...] = ()
    declared_features: frozenset[str] = frozenset()
    """`status.declaredFeatures` (NodeDeclaredFeatures)."""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Node:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        return cls(
            name=meta.get("name", ""),
            uid=meta.get("uid", ""),
            resource_version=meta.get("resourceVersion", ""),
            labels=dict(meta.get("labels") or {}),
            allocatable=Resource.from_list(status.get("allocatable")),
            taints=tuple(Taint.from_json(t) for t in spec.get("taints") or ()),
            unschedulable=bool(spec.get("unschedulable", False)),
            images=tuple(
                ContainerImage(tuple(img.get("names") or ()), int(img.get("sizeBytes") or 0))
                for img in status.get("images") or ()
            ),
            declared_features=frozenset(status.get("declaredFeatures") or ()),
        )
