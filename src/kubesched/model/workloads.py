"""Services and workload controllers reduced to what default topology spreading reads:
their selectors (upstream `helper.DefaultSelector` spreads a pod among the pods that the
Services, ReplicationControllers, ReplicaSets and StatefulSets selecting it select)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.model.apiobject import ApiObject

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
    def of(cls, obj: ApiObject, *, kind: str) -> WorkloadSelector:
        """The selector of `obj`, a `kind` object from its lister."""
        selector = obj.spec.get("selector")
        version = obj.resource_version
        if kind in MAP_SELECTOR_KINDS:
            labels = None if not selector else {str(k): str(v) for k, v in selector.items()}
            return cls(kind, obj.namespace, obj.name, match_labels=labels, resource_version=version)
        return cls(kind, obj.namespace, obj.name, label_selector=selector, resource_version=version)
