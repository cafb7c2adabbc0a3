"""What the volume plugin families share: a pod's claims looked up through the Handle's
`VolumeListers`, a PersistentVolume's node affinity, the in-tree -> CSI names, and the
typed objects of an event for the queueing hints.

Upstream: `component-helpers/storage/volume` (`CheckNodeAffinity`), `component-helpers/
storage/ephemeral` (`VolumeIsForPod`), `csi-translation-lib` (the driver names) and
`scheduler/util.As`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from kubesched.model import Node, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.model.nodeselector import compile_selector, selector_matches

IN_TREE_TO_CSI: Mapping[str, str] = {
    "kubernetes.io/aws-ebs": "ebs.csi.aws.com",
    "kubernetes.io/gce-pd": "pd.csi.storage.gke.io",
    "kubernetes.io/azure-disk": "disk.csi.azure.com",
    "kubernetes.io/azure-file": "file.csi.azure.com",
    "kubernetes.io/cinder": "cinder.csi.openstack.org",
    "kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com",
    "kubernetes.io/portworx-volume": "pxd.portworx.com",
}
"""csi-translation-lib's in-tree plugin names and the CSI drivers they migrate to."""

MIGRATION_ON: frozenset[str] = frozenset(
    {
        "kubernetes.io/aws-ebs",
        "kubernetes.io/gce-pd",
        "kubernetes.io/azure-disk",
        "kubernetes.io/cinder",
        "kubernetes.io/portworx-volume",
    }
)
"""The in-tree plugins whose CSI migration is always on in v1.37 (`isCSIMigrationOn`)."""

SOURCE_PLUGIN: Mapping[str, str] = {
    "awsElasticBlockStore": "kubernetes.io/aws-ebs",
    "gcePersistentDisk": "kubernetes.io/gce-pd",
    "azureDisk": "kubernetes.io/azure-disk",
    "cinder": "kubernetes.io/cinder",
    "portworxVolume": "kubernetes.io/portworx-volume",
}
"""Volume source field -> in-tree plugin name (for sources kubesched can translate)."""

INLINE_MIGRATABLE: Mapping[str, str] = {
    kind: IN_TREE_TO_CSI[plugin]
    for kind, plugin in {
        **SOURCE_PLUGIN,
        "azureFile": "kubernetes.io/azure-file",
        "vsphereVolume": "kubernetes.io/vsphere-volume",
    }.items()
}
"""Inline volume source -> the CSI driver it translates to: csi-translation-lib's
`IsInlineMigratable` sources (whether or not their migration is on)."""

_AWS_VOLUME = re.compile(r"vol-[^/]*")


_HANDLE_FIELD: Mapping[str, str] = {
    "awsElasticBlockStore": "volumeID",
    "gcePersistentDisk": "pdName",
    "azureDisk": "diskURI",
    "cinder": "volumeID",
    "portworxVolume": "volumeID",
}


def translated_handle(kind: str, source: Mapping[str, object]) -> str:
    """The CSI volume handle a migrated in-tree source gets (unique per volume)."""
    raw = str(source.get(_HANDLE_FIELD.get(kind, ""), "") or "")
    if kind == "awsElasticBlockStore" and raw.startswith("aws://"):
        return raw.rsplit("/", 1)[-1]
    if kind == "gcePersistentDisk":
        return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{raw}"
    return raw


def inline_translation_error(kind: str, source: Mapping[str, object]) -> str:
    """Why csi-translation-lib cannot translate this inline volume to CSI ("" if it can):
    an Azure disk whose `kind` is not Managed, an `aws://` EBS volume ID without a
    `vol-...` volume."""
    if kind == "azureDisk":
        disk_kind = source.get("kind")
        if disk_kind is not None and str(disk_kind).lower() != "managed":
            return f"kind({disk_kind}) is not supported in csi migration"
    elif kind == "awsElasticBlockStore":
        volume_id = str(source.get("volumeID") or "")
        if volume_id.startswith("aws://"):
            try:
                url = urlsplit(volume_id)
                _ = url.port  # an invalid port fails to parse, as in Go's url.Parse
            except ValueError as error:
                return f"Invalid disk name ({volume_id}): {error}"
            if not _AWS_VOLUME.fullmatch(url.path.strip("/")):
                return f"Invalid format for AWS volume ({volume_id})"
    return ""


def claim_not_found(name: str) -> str:
    """The lister's NotFound error text, as upstream's messages quote it."""
    return f'persistentvolumeclaim "{name}" not found'


def volume_is_for_pod(pod: Pod, claim: PersistentVolumeClaim) -> str:
    """ "" if the ephemeral claim belongs to `pod` (it is the claim's controller), else the
    error upstream's `ephemeral.VolumeIsForPod` returns."""
    for owner in claim.owners:
        if owner.controller and owner.uid == pod.uid:
            return ""
    return (
        f"PVC {claim.namespace}/{claim.name} was not created for pod {pod.key} (pod is not owner)"
    )


def node_affinity_matches(volume: PersistentVolume, node: Node) -> bool:
    """Upstream `CheckNodeAffinity`: the PV's required node affinity admits the node (its
    labels only, as upstream builds the node from labels)."""
    if volume.node_affinity is None:
        return True
    terms = compile_selector({"nodeSelectorTerms": list(volume.node_affinity)})
    return selector_matches(terms, Node(name="", labels=node.labels))
