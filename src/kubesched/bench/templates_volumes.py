"""The scheduler_perf templates (v1.37) of `volumes/`' test cases: `pv-csi.yaml`,
`pv-aws.yaml` and `pvc.yaml` as upstream's `CreatePodWithPersistentVolume` fills them in
(claim `pvc-<i>` in the pod's namespace, pre-bound both ways to PersistentVolume
`<namespace>-vol-<i>`), the pod that mounts that claim, and the CSINode and node allocatable
of upstream's `nodeAllocatableStrategy` (driver `ebs.csi.aws.com`, 39 volumes a node; with
`migratedPlugins`, the in-tree plugins its CSINode says are migrated to CSI)."""

from __future__ import annotations

from typing import Any

from kubesched.bench.templates import PodTemplate, node_default

CSI_DRIVER = "ebs.csi.aws.com"
CSI_LIMIT = 39
CSI_ALLOCATABLE = f"attachable-volumes-csi-{CSI_DRIVER}"
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
AWS_EBS_PLUGIN = "kubernetes.io/aws-ebs"
"""The in-tree plugin of `pv-aws.yaml`, which SchedulingMigratedInTreePVs' CSINodes list as
migrated (to `ebs.csi.aws.com`)."""


def _index(name: str) -> int:
    return int(name.rsplit("-", 1)[-1])


def claim_name(index: int) -> str:
    return f"pvc-{index}"


def volume_name(namespace: str, index: int) -> str:
    return f"{namespace}-vol-{index}"


def with_claim(template: PodTemplate) -> PodTemplate:
    """`template`'s pod i (its name's suffix) with one volume, `vol`, on claim `pvc-<i>`."""

    def build(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        body = template(name, namespace, scheduler)
        claim = {"claimName": claim_name(_index(name))}
        body["spec"]["volumes"] = [{"name": "vol", "persistentVolumeClaim": claim}]
        return body

    build.__doc__ = f"{template.__doc__} With a pre-bound PersistentVolumeClaim."
    return build


def claim(namespace: str, index: int) -> tuple[str, dict[str, Any]]:
    """(POST path, body) of `pvc.yaml` as claim `pvc-<index>`, bound to its volume."""
    body = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": claim_name(index),
            "namespace": namespace,
            "annotations": {BIND_COMPLETED: "true"},
        },
        "spec": {
            "accessModes": ["ReadOnlyMany"],
            "resources": {"requests": {"storage": "1Gi"}},
            "volumeName": volume_name(namespace, index),
        },
    }
    return f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", body


def volume(namespace: str, index: int, *, csi: bool) -> tuple[str, dict[str, Any]]:
    """(POST path, body) of `pv-csi.yaml` (volumeHandle: its name) or `pv-aws.yaml`
    (volumeID `vol-<index>`), bound to claim `pvc-<index>` of `namespace`."""
    name = volume_name(namespace, index)
    source: dict[str, Any] = (
        {"csi": {"driver": CSI_DRIVER, "volumeHandle": name}}
        if csi
        else {"awsElasticBlockStore": {"volumeID": f"vol-{index}"}}
    )
    claim_ref = {
        "kind": "PersistentVolumeClaim",
        "apiVersion": "v1",
        "namespace": namespace,
        "name": claim_name(index),
    }
    spec = {
        "accessModes": ["ReadOnlyMany"],
        "capacity": {"storage": "1Gi"},
        "persistentVolumeReclaimPolicy": "Retain",
        "claimRef": claim_ref,
        **source,
    }
    body = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}}
    return "/api/v1/persistentvolumes", body | {"spec": spec}


def csi_node(name: str) -> dict[str, Any]:
    """`node-default.yaml` with upstream's node allocatable strategy: 39
    `attachable-volumes-csi-ebs.csi.aws.com` in its allocatable."""
    node = node_default(name, {})
    node["status"]["allocatable"][CSI_ALLOCATABLE] = str(CSI_LIMIT)
    return node


def csinode(name: str, migrated: tuple[str, ...] = ()) -> tuple[str, dict[str, Any]]:
    """(POST path, body) of the CSINode upstream's strategy creates for node `name`: driver
    `ebs.csi.aws.com` with room for 39 volumes, the `migrated` in-tree plugins (joined by
    commas, as upstream writes its `migratedPlugins`) in its migrated-plugins annotation."""
    driver = {"name": CSI_DRIVER, "nodeID": name, "allocatable": {"count": CSI_LIMIT}}
    body = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": name, "annotations": {MIGRATED_PLUGINS: ",".join(migrated)}},
        "spec": {"drivers": [driver]},
    }
    return "/apis/storage.k8s.io/v1/csinodes", body
