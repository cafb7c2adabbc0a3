"""The two writes of VolumeBinding's PreBind behind the Handle (a PV's claimRef, a claim's
selected node); the listers over the storage informers' stores are
`kubesched.framework.volumes.MappedVolumeListers`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from kubesched.kube.api import MERGE_PATCH, KubeApi
from kubesched.model import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    PersistentVolume,
    PersistentVolumeClaim,
)


def claim_ref_patch(volume: PersistentVolume, claim: PersistentVolumeClaim) -> dict[str, Any]:
    """VolumeBinding's merge patch of a PV: `claim` as its claimRef, as of the PV's
    resourceVersion, its bound-by-controller annotation kept."""
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
    return {"metadata": metadata, "spec": {"claimRef": ref}}


async def bind_volume(
    api: KubeApi, volume: PersistentVolume, claim: PersistentVolumeClaim
) -> PersistentVolume:
    """Set the PV's claimRef as of its resourceVersion (a conflict raises)."""
    body = claim_ref_patch(volume, claim)
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
