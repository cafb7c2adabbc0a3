"""A Namespace reduced to what scheduling reads: its labels (pod-affinity
`namespaceSelector`s select namespaces by them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

METADATA_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server keeps equal to every namespace's name."""


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    resource_version: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    """`metadata.labels` (the API server always sets `METADATA_NAME_LABEL`)."""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Namespace:
        meta = obj.get("metadata") or {}
        labels = meta.get("labels") or {}
        return cls(
            name=meta.get("name", ""),
            resource_version=meta.get("resourceVersion", ""),
            labels={str(k): str(v) for k, v in labels.items()},
        )
