"""Services and workload controllers reduced to what default topology spreading reads:
their selectors (upstream `helper.DefaultSelector` spreads a pod among the pods that the
Services, ReplicationControllers, ReplicaSets and StatefulSets selecting it select)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SERVICE = "Service"
REPLICATION_CONTROLLER = "ReplicationController"
REPLICA_SET = "ReplicaSet"
STATEFUL_SET = "StatefulSet"

MAP_SELECTOR_KINDS = frozenset({SERVICE, REPLICATION_CONTROLLER})
"""Kinds whose `spec.selector` is a plain label map (the others have a LabelSelector)."""


@dataclass(frozen=True, slots=True)
class WorkloadSelector:
    """One Service, ReplicationController, ReplicaSet or StatefulSet: its `spec.selector`."""

    kind: str
    namespace: str
    name: str
    match_labels: Mapping[str, str] | None = None
    """Service / ReplicationController `spec.selector` (None when unset)."""
    label_selector: Mapping[str, Any] | None = None
    """ReplicaSet / StatefulSet `spec.selector`, a raw metav1.LabelSelector (None: unset)."""
    resource_version: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)

    @classmethod
    def from_json(cls, kind: str, obj: Mapping[str, Any]) -> WorkloadSelector:
        meta = obj.get("metadata") or {}
        selector = (obj.get("spec") or {}).get("selector")
        namespace = str(meta.get("namespace") or "")
        name = str(meta.get("name") or "")
        version = str(meta.get("resourceVersion") or "")
        if kind in MAP_SELECTOR_KINDS:
            labels = None if not selector else {str(k): str(v) for k, v in selector.items()}
            return cls(kind, namespace, name, match_labels=labels, resource_version=version)
        return cls(kind, namespace, name, label_selector=selector, resource_version=version)
