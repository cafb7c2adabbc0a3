"""The storage objects explain reads for a pod with volumes, as the scheduler's informers
hold them: PVCs, PVs, StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities and
VolumeAttachments (one paged list each). A list that is forbidden is explained as empty,
with a note."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kubesched.framework.volumes import StaticVolumeListers
from kubesched.kube.errors import Forbidden
from kubesched.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)

STORAGE = "/apis/storage.k8s.io/v1"
_LISTS: tuple[tuple[str, str, Callable[[dict[str, Any]], Any]], ...] = (
    ("claims", "/api/v1/persistentvolumeclaims", PersistentVolumeClaim.from_json),
    ("volumes", "/api/v1/persistentvolumes", PersistentVolume.from_json),
    ("classes", f"{STORAGE}/storageclasses", StorageClass.from_json),
    ("csi_nodes", f"{STORAGE}/csinodes", CSINode.from_json),
    ("csi_drivers", f"{STORAGE}/csidrivers", CSIDriver.from_json),
    ("capacities", f"{STORAGE}/csistoragecapacities", CSIStorageCapacity.from_json),
    ("attachments", f"{STORAGE}/volumeattachments", VolumeAttachment.from_json),
)


async def read_volumes(
    list_all: Callable[[str], Awaitable[list[dict[str, Any]]]], notes: list[str]
) -> StaticVolumeListers:
    """Every storage object the volume plugins read (`list_all(path)` lists, paged)."""
    found: dict[str, list[Any]] = {}
    for field, path, decode in _LISTS:
        try:
            found[field] = [decode(item) for item in await list_all(path)]
        except Forbidden:
            notes.append(f"cannot list {path.rsplit('/', 1)[-1]} (forbidden): explained as none")
            found[field] = []
    return StaticVolumeListers(**found)
