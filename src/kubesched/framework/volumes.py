"""What the volume plugins read and write through the Handle (`Handle.volume_listers`,
`Handle.bind_volume`, `Handle.select_node_for_claim`).

`VolumeListers` answers from informers (no request per call), as upstream's listers for
PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers,
CSIStorageCapacities and VolumeAttachments. `StaticVolumeListers` holds fixed objects: for
`kubesched explain` and tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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


class MappedVolumeListers:
    """`VolumeListers` over mappings keyed as the informers key them (claims and capacities
    by `namespace/name`, the rest by name): the informers' stores, or plain dicts."""

    def __init__(
        self,
        *,
        claims: Mapping[str, PersistentVolumeClaim],
        volumes: Mapping[str, PersistentVolume],
        classes: Mapping[str, StorageClass],
        csi_nodes: Mapping[str, CSINode],
        csi_drivers: Mapping[str, CSIDriver],
        capacities: Mapping[str, CSIStorageCapacity],
        attachments: Mapping[str, VolumeAttachment],
    ) -> None:
        self._claims = claims
        self._volumes = volumes
        self._classes = classes
        self._csi_nodes = csi_nodes
        self._csi_drivers = csi_drivers
        self._capacities = capacities
        self._attachments = attachments

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        return self._claims.get(f"{namespace}/{name}")

    def volume(self, name: str) -> PersistentVolume | None:
        return self._volumes.get(name)

    def volumes_of_class(self, storage_class: str) -> Sequence[PersistentVolume]:
        return [pv for pv in self._volumes.values() if pv.storage_class == storage_class]

    def storage_class(self, name: str) -> StorageClass | None:
        return self._classes.get(name)

    def csi_node(self, name: str) -> CSINode | None:
        return self._csi_nodes.get(name)

    def csi_driver(self, name: str) -> CSIDriver | None:
        return self._csi_drivers.get(name)

    def storage_capacities(self) -> Sequence[CSIStorageCapacity]:
        return list(self._capacities.values())

    def volume_attachments_on(self, node_name: str) -> Sequence[VolumeAttachment]:
        return [va for va in self._attachments.values() if va.node_name == node_name]


class StaticVolumeListers(MappedVolumeListers):
    """`VolumeListers` over fixed objects (explain's snapshot, plugin tests); `claims` and
    `volumes` are plain dicts a test (or `FakeHandle`'s writes) may change."""

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
        super().__init__(
            claims=self.claims,
            volumes=self.volumes,
            classes={sc.name: sc for sc in classes},
            csi_nodes={node.name: node for node in csi_nodes},
            csi_drivers={driver.name: driver for driver in csi_drivers},
            capacities={str(i): capacity for i, capacity in enumerate(capacities)},
            attachments={str(i): attachment for i, attachment in enumerate(attachments)},
        )
