"""StorageClasses and the CSI objects (CSINode, CSIDriver, CSIStorageCapacity,
VolumeAttachment) reduced to what the volume plugins read (storage.k8s.io/v1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.model.quantity import value

WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"


@dataclass(frozen=True, slots=True)
class StorageClass:
    name: str
    resource_version: str = ""
    provisioner: str = ""
    volume_binding_mode: str | None = None
    """None when unset (the API server defaults it to Immediate)."""
    allowed_topologies: tuple[Mapping[str, Any], ...] = ()

    @property
    def wait_for_first_consumer(self) -> bool:
        return self.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> StorageClass:
        meta = obj.get("metadata") or {}
        return cls(
            name=meta.get("name", ""),
            resource_version=meta.get("resourceVersion", ""),
            provisioner=obj.get("provisioner") or "",
            volume_binding_mode=obj.get("volumeBindingMode"),
            allowed_topologies=tuple(obj.get("allowedTopologies") or ()),
        )


@dataclass(frozen=True, slots=True)
class CSINode:
    name: str
    resource_version: str = ""
    drivers: Mapping[str, int | None] = field(default_factory=dict)
    """Driver name -> `allocatable.count` (None: no limit reported)."""
    migrated_plugins: frozenset[str] = frozenset()
    """In-tree plugins migrated to CSI on this node (the migrated-plugins annotation)."""
    migrated_plugins_annotation: str = ""
    """That annotation as written ("" when absent), which VolumeBinding's hint compares."""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CSINode:
        meta = obj.get("metadata") or {}
        drivers: dict[str, int | None] = {}
        for driver in (obj.get("spec") or {}).get("drivers") or ():
            count = (driver.get("allocatable") or {}).get("count")
            drivers[driver.get("name", "")] = int(count) if count is not None else None
        migrated = (meta.get("annotations") or {}).get(MIGRATED_PLUGINS_ANNOTATION) or ""
        return cls(
            name=meta.get("name", ""),
            resource_version=meta.get("resourceVersion", ""),
            drivers=drivers,
            migrated_plugins=frozenset(p for p in migrated.split(",") if p),
            migrated_plugins_annotation=migrated,
        )


@dataclass(frozen=True, slots=True)
class CSIDriver:
    name: str
    resource_version: str = ""
    storage_capacity: bool = False
    prevent_pod_scheduling_if_missing: bool = False

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CSIDriver:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        return cls(
            name=meta.get("name", ""),
            resource_version=meta.get("resourceVersion", ""),
            storage_capacity=bool(spec.get("storageCapacity")),
            prevent_pod_scheduling_if_missing=bool(spec.get("preventPodSchedulingIfMissing")),
        )


@dataclass(frozen=True, slots=True)
class CSIStorageCapacity:
    namespace: str
    name: str
    resource_version: str = ""
    storage_class_name: str = ""
    node_topology: Mapping[str, Any] | None = None
    capacity_bytes: int | None = None
    maximum_volume_size_bytes: int | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def volume_limit(self) -> int | None:
        """The largest volume it can hold: maximumVolumeSize, else capacity."""
        if self.maximum_volume_size_bytes is not None:
            return self.maximum_volume_size_bytes
        return self.capacity_bytes

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CSIStorageCapacity:
        meta = obj.get("metadata") or {}
        topology = obj.get("nodeTopology")
        return cls(
            namespace=meta.get("namespace", ""),
            name=meta.get("name", ""),
            resource_version=meta.get("resourceVersion", ""),
            storage_class_name=obj.get("storageClassName") or "",
            node_topology=dict(topology) if isinstance(topology, dict) else None,
            capacity_bytes=_bytes(obj.get("capacity")),
            maximum_volume_size_bytes=_bytes(obj.get("maximumVolumeSize")),
        )


@dataclass(frozen=True, slots=True)
class VolumeAttachment:
    name: str
    resource_version: str = ""
    node_name: str = ""
    attacher: str = ""
    persistent_volume_name: str = ""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> VolumeAttachment:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        return cls(
            name=meta.get("name", ""),
            resource_version=meta.get("resourceVersion", ""),
            node_name=spec.get("nodeName") or "",
            attacher=spec.get("attacher") or "",
            persistent_volume_name=(spec.get("source") or {}).get("persistentVolumeName") or "",
        )


def _bytes(raw: Any) -> int | None:
    return value(raw) if raw is not None else None
