"""Which CSI volumes a pod attaches to a node: `driver/volumeHandle` -> driver (upstream
`filterAttachableVolumes`). Claims are followed to their PV's CSI source (or, unbound, to
their StorageClass's provisioner); in-tree PVs and inline disks count under their CSI driver
when their migration is on (always for EBS, GCE PD, Azure Disk, Cinder and Portworx once a
CSINode exists)."""

from __future__ import annotations

from kubesched.errors import KubeschedError
from kubesched.framework.volumes import VolumeListers
from kubesched.model import CSINode, PersistentVolumeClaim, Pod, PodVolume
from kubesched.plugins.helper.volumes import (
    IN_TREE_TO_CSI,
    MIGRATION_ON,
    SOURCE_PLUGIN,
    claim_not_found,
    translated_handle,
    volume_is_for_pod,
)


class ClaimLookupError(KubeschedError):
    """A claim of the pod to schedule does not exist (`not_found`) or is not its own."""

    def __init__(self, message: str, *, not_found: bool) -> None:
        super().__init__(message)
        self.not_found = not_found


def migrated_driver(plugin: str, csi_node: CSINode | None) -> str:
    """The CSI driver an in-tree plugin's volumes count under on this node ("" if none)."""
    if csi_node is None or plugin not in MIGRATION_ON:
        return ""
    return IN_TREE_TO_CSI[plugin]


def attachable_volumes(
    listers: VolumeListers,
    pod: Pod,
    csi_node: CSINode | None,
    *,
    new_pod: bool,
    prefix: str,
    into: dict[str, str],
) -> None:
    """Add the pod's attachable volumes to `into`; raises ClaimLookupError for the new pod."""
    for volume in pod.volumes:
        if not volume.uses_claim:
            _inline(volume, csi_node, into)
            continue
        claim = listers.claim(pod.namespace, volume.claim_name)
        if claim is None:
            if new_pod:
                raise ClaimLookupError(
                    f"looking up PVC {pod.namespace}/{volume.claim_name}: "
                    + claim_not_found(volume.claim_name),
                    not_found=True,
                )
            continue
        if volume.ephemeral and (error := volume_is_for_pod(pod, claim)):
            raise ClaimLookupError(error, not_found=False)
        driver, handle = _claim_driver(listers, csi_node, claim, prefix)
        if driver and handle:
            into[f"{driver}/{handle}"] = driver


def _inline(volume: PodVolume, csi_node: CSINode | None, into: dict[str, str]) -> None:
    plugin = SOURCE_PLUGIN.get(volume.kind)
    driver = migrated_driver(plugin, csi_node) if plugin else ""
    if driver:
        into[f"{driver}/{translated_handle(volume.kind, volume.source)}"] = driver


def _claim_driver(
    listers: VolumeListers, csi_node: CSINode | None, claim: PersistentVolumeClaim, prefix: str
) -> tuple[str, str]:
    volume = listers.volume(claim.volume_name) if claim.volume_name else None
    if volume is None:
        return _class_driver(listers, csi_node, claim, prefix)
    kind, source = volume.source
    if kind == "csi":
        return str(source.get("driver") or ""), str(source.get("volumeHandle") or "")
    plugin = SOURCE_PLUGIN.get(kind)
    driver = migrated_driver(plugin, csi_node) if plugin else ""
    return (driver, translated_handle(kind, source)) if driver else ("", "")


def _class_driver(
    listers: VolumeListers, csi_node: CSINode | None, claim: PersistentVolumeClaim, prefix: str
) -> tuple[str, str]:
    """An unbound claim counts as one new volume of its class's provisioner."""
    storage_class = listers.storage_class(claim.storage_class) if claim.storage_class else None
    if storage_class is None:
        return "", ""
    handle = f"{prefix}-{claim.namespace}/{claim.name}"
    provisioner = storage_class.provisioner
    if provisioner in IN_TREE_TO_CSI:
        driver = migrated_driver(provisioner, csi_node)
        return (driver, handle) if driver else ("", "")
    return provisioner, handle
