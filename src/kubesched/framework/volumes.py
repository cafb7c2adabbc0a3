"""What the volume plugins read and write through the Handle (`Handle.volume_listers`,
`Handle.bind_volume`, `Handle.select_node_for_claim`).

`VolumeListers` answers from informers (no request per call), as upstream's listers for
PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
CSIStorageCapacities and VolumeAttachments. `StaticVolumeListers` holds fixed objects: for
`kubesched explain` and tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from kubesched.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)


class VolumeListers(Protocol):
    """Read-only views of the storage objects (each answer is the informer's current one)."""

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None: ...
    def volume(self, name: str) -> PersistentVolume | None: ...
    def volumes_of_class(self, storage_class: str) -> Sequence[PersistentVolume]:
        """The PersistentVolumes whose class (upstream `GetPersistentVolumeClass`) it is."""
        ...

    def storage_class(self, name: str) -> StorageClass | None: ...
    def csi_node(self, name: str) -> CSINode | None: ...
    def csi_driver(self, name: str) -> CSIDriver | None: ...
    def storage_capacities(self) -> Sequence[CSIStorageCapacity]: ...
    def volume_attachments_on(self, node_name: str) -> Sequence[VolumeAttachment]: ...


class StaticVolumeListers:
    """`VolumeListers` over fixed objects (explain's snapshot, plugin tests)."""

    def __init__(
        self,
        *,
        claims: Iterable[PersistentVolumeClaim] = (),
        volumes: Iterable[PersistentVolume] = (),
        classes: Iterable[StorageClass] = (),
        csi_nodes: Iterable[CSINode] = (),
        csi_drivers: Iterable[CSIDriver] = (),
        capacities: Iterable[CSIStorageCapacity] = (),
        attachments: Iterable[VolumeAttachment] = (),
    ) -> None:
        self.claims = {claim.key: claim for claim in claims}
        self.volumes = {volume.name: volume for volume in volumes}
        self.classes = {sc.name: sc for sc in classes}
        self.csi_nodes = {node.name: node for node in csi_nodes}
        self.csi_drivers = {driver.name: driver for driver in csi_drivers}
        self.capacities = list(capacities)
        self.attachments = list(attachments)

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        return self.claims.get(f"{namespace}/{name}")

    def volume(self, name: str) -> PersistentVolume | None:
        return self.volumes.get(name)

    def volumes_of_class(self, storage_class: str) -> Sequence[PersistentVolume]:
        return [pv for pv in self.volumes.values() if pv.storage_class == storage_class]

    def storage_class(self, name: str) -> StorageClass | None:
        return self.classes.get(name)

    def csi_node(self, name: str) -> CSINode | None:
        return self.csi_nodes.get(name)

    def csi_driver(self, name: str) -> CSIDriver | None:
        return self.csi_drivers.get(name)

    def storage_capacities(self) -> Sequence[CSIStorageCapacity]:
        return list(self.capacities)

    def volume_attachments_on(self, node_name: str) -> Sequence[VolumeAttachment]:
        return [va for va in self.attachments if va.node_name == node_name]
