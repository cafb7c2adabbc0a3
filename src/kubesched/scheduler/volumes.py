"""The volume capability of the Handle: listers over the storage informers' stores and the two
writes of VolumeBinding's PreBind (a PV's claimRef, a claim's selected node)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from kubesched.kube.api import MERGE_PATCH, KubeApi
from kubesched.model import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)


class StoreVolumeListers:
    """`kubesched.framework.volumes.VolumeListers` over informer stores (keyed as the
    informers key them: claims and capacities by `namespace/name`, the rest by name)."""

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


async def bind_volume(
    api: KubeApi, volume: PersistentVolume, claim: PersistentVolumeClaim
) -> PersistentVolume:
    """Set the PV's claimRef as of its resourceVersion (a conflict raises)."""
    metadata: dict[str, Any] = {"resourceVersion": volume.resource_version}
    if ANN_BOUND_BY_CONTROLLER in volume.annotations:
        metadata["annotations"] = {
            ANN_BOUND_BY_CONTROLLER: volume.annotations[ANN_BOUND_BY_CONTROLLER]
        }
    ref = {
        "kind": "PersistentVolumeClaim",
        "apiVersion": "v1",
        "namespace": claim.namespace,
        "name": claim.name,
        "uid": claim.uid,
        "resourceVersion": claim.resource_version,
    }
    body = {"metadata": metadata, "spec": {"claimRef": ref}}
    raw = await api.patch(
        f"/api/v1/persistentvolumes/{quote(volume.name)}", body, content_type=MERGE_PATCH
    )
    return PersistentVolume.from_json(raw)


async def select_node_for_claim(
    api: KubeApi, claim: PersistentVolumeClaim, node_name: str
) -> PersistentVolumeClaim:
    """Annotate the claim with the selected node as of its resourceVersion."""
    body = {
        "metadata": {
            "resourceVersion": claim.resource_version,
            "annotations": {ANN_SELECTED_NODE: node_name},
        }
    }
    path = f"/api/v1/namespaces/{quote(claim.namespace)}/persistentvolumeclaims/{quote(claim.name)}"
    raw = await api.patch(path, body, content_type=MERGE_PATCH)
    return PersistentVolumeClaim.from_json(raw)
