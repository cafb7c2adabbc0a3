"""The storage objects explain reads for a pod with volumes, as the scheduler's informers
hold them: PVCs, PVs, StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities and
VolumeAttachments (one paged list each). A list that is forbidden is explained as empty,
with a note."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from kubesched.framework.volumes import StaticVolumeListers
from kubesched.kube.errors import Forbidden
from kubesched.model.storage_kinds import STORAGE_KINDS


async def read_volumes(
    list_all: Callable[[str], Awaitable[list[dict[str, Any]]]], notes: list[str]
) -> StaticVolumeListers:
    """Every storage object the volume plugins read (`list_all(path)` lists, paged)."""
    found: dict[str, list[Any]] = {}
    for kind in STORAGE_KINDS:
        try:
            found[kind.lister] = [kind.decode(item) for item in await list_all(kind.path)]
        except Forbidden:
            notes.append(f"cannot list {kind.resource} (forbidden): explained as none")
            found[kind.lister] = []
    return StaticVolumeListers(**found)
