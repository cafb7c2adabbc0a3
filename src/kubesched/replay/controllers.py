"""What the cluster's controllers do after the scheduler's writes, done at once in a replay
(there is no PV controller, provisioner nor DRA driver in it):

- VolumeBinding binds a PV (`claimRef`): the PV controller binds both sides (the claim's
  `volumeName`, `pv.kubernetes.io/bind-completed`, both `Bound`).
- VolumeBinding selects a node for a WaitForFirstConsumer claim
  (`volume.kubernetes.io/selected-node`): the class's provisioner makes a PV for it
  (`pvc-<claim uid>`, the claim's size, modes and class, pinned to the node's values of the
  topology keys its CSINode reports for the driver, else to the node's hostname), and the
  PV controller binds the two.
- A pod the replay placed is deleted: the resourceclaim controller takes it out of the
  `reservedFor` of the claims the replay reserved for it and deallocates a claim nobody
  uses any more (removing the allocation finalizer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubesched.model import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
)
from kubesched.replay.writes import ClusterWrites, kind_name
from kubesched.scheduler.volumes import claim_ref_patch

CLAIMS = "persistentvolumeclaims"
VOLUMES = "persistentvolumes"
CLASSES = kind_name("storage.k8s.io", "storageclasses")
CSI_NODES = kind_name("storage.k8s.io", "csinodes")
RESOURCE_CLAIMS = kind_name("resource.k8s.io", "resourceclaims")
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
DRA_FINALIZER = "resource.kubernetes.io/delete-protection"
HOSTNAME = "kubernetes.io/hostname"

NodeLabels = Callable[[str], Mapping[str, str]]


class Controllers:
    """The controllers' answers to the replay's writes, applied through `writes`."""

    def __init__(self, writes: ClusterWrites, node_labels: NodeLabels) -> None:
        self._writes, self._node_labels = writes, node_labels

    def bind_volume(
        self, volume: PersistentVolume, claim: PersistentVolumeClaim
    ) -> PersistentVolume:
        """VolumeBinding's write of the PV's claimRef, then the PV controller's binding."""
        self._writes.patch(VOLUMES, volume.name, claim_ref_patch(volume, claim))
        return PersistentVolume.from_json(self._bind(volume.name, claim.key))

    def select_node(self, claim: PersistentVolumeClaim, node_name: str) -> PersistentVolumeClaim:
        """VolumeBinding's selected-node annotation, then the provisioning and the binding."""
        body = {
            "metadata": {
                "resourceVersion": claim.resource_version,
                "annotations": {ANN_SELECTED_NODE: node_name},
            }
        }
        annotated = self._writes.patch(CLAIMS, claim.key, body)
        volume = self._provision(annotated, node_name)
        if volume is not None:
            self._bind(volume, claim.key)
        return PersistentVolumeClaim.from_json(self._writes.get(CLAIMS, claim.key))

    def _bind(self, volume_name: str, claim_key: str) -> dict[str, Any]:
        """The PV controller: both sides bound; the PV as it ends."""
        claim = self._writes.get(CLAIMS, claim_key)
        volume = self._writes.get(VOLUMES, volume_name)
        annotations = {ANN_BIND_COMPLETED: "yes"}
        if not (claim.get("spec") or {}).get("volumeName"):
            annotations[ANN_BOUND_BY_CONTROLLER] = "yes"  # the controller chose the volume
        spec = volume.get("spec") or {}
        self._writes.patch(
            CLAIMS,
            claim_key,
            {
                "metadata": {"annotations": annotations},
                "spec": {"volumeName": volume_name},
            },
        )
        self._writes.patch(
            CLAIMS,
            claim_key,
            {
                "status": {
                    "phase": "Bound",
                    "accessModes": spec.get("accessModes") or [],
                    "capacity": spec.get("capacity") or {},
                }
            },
            status=True,
        )
        return self._writes.patch(VOLUMES, volume_name, {"status": {"phase": "Bound"}}, status=True)

    def _provision(self, claim: Mapping[str, Any], node_name: str) -> str | None:
        """The external provisioner's PV for `claim` on `node_name` (its name), or None when
        the class has no provisioner the replay can stand in for."""
        spec, meta = claim.get("spec") or {}, claim.get("metadata") or {}
        class_name = spec.get("storageClassName") or ""
        storage_class = self._writes.known(CLASSES, class_name)
        provisioner = (storage_class or {}).get("provisioner") or ""
        if not provisioner or provisioner == "kubernetes.io/no-provisioner":
            return None
        name = f"pvc-{meta.get('uid', '')}"
        volume = {
            "metadata": {"name": name, "annotations": {ANN_PROVISIONED_BY: provisioner}},
            "spec": {
                "capacity": {
                    "storage": ((spec.get("resources") or {}).get("requests") or {}).get(
                        "storage", "0"
                    )
                },
                "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                "storageClassName": class_name,
                "persistentVolumeReclaimPolicy": "Delete",
                "volumeMode": spec.get("volumeMode") or "Filesystem",
                "csi": {"driver": provisioner, "volumeHandle": name},
                "nodeAffinity": {
                    "required": {"nodeSelectorTerms": [self._term(provisioner, node_name)]}
                },
                "claimRef": {
                    "kind": "PersistentVolumeClaim",
                    "apiVersion": "v1",
                    "namespace": meta.get("namespace", ""),
                    "name": meta.get("name", ""),
                    "uid": meta.get("uid", ""),
                },
            },
            "status": {"phase": "Available"},
        }
        self._writes.create(VOLUMES, "", volume)
        return name

    def _term(self, driver: str, node_name: str) -> dict[str, Any]:
        labels = self._node_labels(node_name)
        keys = [HOSTNAME]
        csi_node = self._writes.known(CSI_NODES, node_name) or {}
        for entry in (csi_node.get("spec") or {}).get("drivers") or ():
            if entry.get("name") == driver and entry.get("topologyKeys"):
                keys = list(entry["topologyKeys"])
        expressions = [
            {
                "key": key,
                "operator": "In",
                "values": [labels.get(key, node_name if key == HOSTNAME else "")],
            }
            for key in keys
        ]
        return {"matchExpressions": expressions}

    def pod_deleted(self, pod: Pod) -> None:
        """The resourceclaim controller: the pod's reservations released, an unused claim
        deallocated (only the claims the replay wrote: the trace has the others' story)."""
        names = [source.claim_name for source in pod.claim_sources if source.claim_name]
        names += [generated for _, generated in pod.generated_claims if generated]
        for name in names:
            kind, key, uid = RESOURCE_CLAIMS, f"{pod.namespace}/{name}", pod.uid
            claim = self._writes.known(kind, key) if self._writes.owns(kind, key) else None
            if claim is None:
                continue
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            remaining = [entry for entry in reserved if entry.get("uid") != uid]
            if len(remaining) == len(reserved):
                continue
            status: dict[str, Any] = {"reservedFor": remaining or None}
            finalizers = list((claim.get("metadata") or {}).get("finalizers") or [])
            release = not remaining and DRA_FINALIZER in finalizers
            if release:
                status["allocation"] = None
            self._writes.patch(kind, key, {"status": status}, status=True)
            if release:
                finalizers.remove(DRA_FINALIZER)
                self._writes.patch(kind, key, {"metadata": {"finalizers": finalizers or None}})
