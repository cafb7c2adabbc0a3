"""The storage objects the volume plugins read, listed once: the informers
(`kubesched.server.volume_informers`), `kubesched explain`'s reads, the RBAC kubesched
generates and `doctor`'s permission check all take them from here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubesched.model.csi import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    StorageClass,
    VolumeAttachment,
)
from kubesched.model.storage import PersistentVolume, PersistentVolumeClaim

STORAGE_GROUP = "storage.k8s.io"


@dataclass(frozen=True, slots=True)
class StorageKind:
    """One storage resource: where it is listed, how it is decoded, which listers' field
    (`kubesched.framework.volumes.MappedVolumeListers`) holds it."""

    resource: str
    """The plural in URLs and RBAC (`persistentvolumeclaims`)."""
    kind: str
    group: str
    """"" for the core group."""
    lister: str
    """The listers' keyword (`claims`, `csi_nodes`, ...)."""
    decode: Callable[[dict[str, Any]], Any]

    @property
    def path(self) -> str:
        """The collection's URL path across all namespaces."""
        if self.group:
            return f"/apis/{self.group}/v1/{self.resource}"
        return f"/api/v1/{self.resource}"

    @property
    def event_name(self) -> str:
        """The resource name of its cluster events (`storage.k8s.io/CSINode`)."""
        return f"{self.group}/{self.kind}" if self.group else self.kind


STORAGE_KINDS: tuple[StorageKind, ...] = (
    StorageKind(
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
        "",
        "claims",
        PersistentVolumeClaim.from_json,
    ),
    StorageKind("persistentvolumes", "PersistentVolume", "", "volumes", PersistentVolume.from_json),
    StorageKind("storageclasses", "StorageClass", STORAGE_GROUP, "classes", StorageClass.from_json),
    StorageKind("csinodes", "CSINode", STORAGE_GROUP, "csi_nodes", CSINode.from_json),
    StorageKind("csidrivers", "CSIDriver", STORAGE_GROUP, "csi_drivers", CSIDriver.from_json),
    StorageKind(
        "csistoragecapacities",
        "CSIStorageCapacity",
        STORAGE_GROUP,
        "capacities",
        CSIStorageCapacity.from_json,
    ),
    StorageKind(
        "volumeattachments",
        "VolumeAttachment",
        STORAGE_GROUP,
        "attachments",
        VolumeAttachment.from_json,
    ),
)

STORAGE_OBJECTS = tuple(kind.resource for kind in STORAGE_KINDS if kind.group == STORAGE_GROUP)
"""The `storage.k8s.io` resources among them (one RBAC rule grants them all)."""
