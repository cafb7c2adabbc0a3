"""Small builders of storage objects for the volume plugin tests (from API JSON)."""

from __future__ import annotations

from typing import Any

from kubesched.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)

HOST = "kubernetes.io/hostname"


def pvc(
    name: str,
    *,
    cls: str | None = "",
    volume: str = "",
    size: str = "1Gi",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    bound: bool = False,
    annotations: dict[str, str] | None = None,
    rv: str = "1",
    **extra: Any,
) -> PersistentVolumeClaim:
    notes = dict(annotations or {})
    if bound:
        notes["pv.kubernetes.io/bind-completed"] = "yes"
    spec: dict[str, Any] = {
        "accessModes": list(modes),
        "resources": {"requests": {"storage": size}},
        "volumeName": volume,
    }
    if cls is not None:
        spec["storageClassName"] = cls
    meta = {
        "name": name,
        "namespace": "default",
        "uid": f"uid-{name}",
        "resourceVersion": rv,
        "annotations": notes,
        **extra,
    }
    return PersistentVolumeClaim.from_json({"metadata": meta, "spec": spec})


def pv(
    name: str,
    *,
    node: str = "",
    cls: str = "",
    size: str = "1Gi",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    claim: str = "",
    phase: str = "Available",
    labels: dict[str, str] | None = None,
    csi: tuple[str, str] | None = None,
    rv: str = "1",
) -> PersistentVolume:
    spec: dict[str, Any] = {
        "capacity": {"storage": size},
        "accessModes": list(modes),
        "storageClassName": cls,
    }
    if node:
        term = {"matchExpressions": [{"key": HOST, "operator": "In", "values": [node]}]}
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
    if claim:
        spec["claimRef"] = {"namespace": "default", "name": claim, "uid": f"uid-{claim}"}
    if csi:
        spec["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    meta = {"name": name, "labels": labels or {}, "resourceVersion": rv}
    return PersistentVolume.from_json({"metadata": meta, "spec": spec, "status": {"phase": phase}})


def storage_class(
    name: str,
    *,
    wait: bool = True,
    provisioner: str = "kubernetes.io/no-provisioner",
    topologies: list[dict[str, Any]] | None = None,
) -> StorageClass:
    return StorageClass.from_json(
        {
            "metadata": {"name": name},
            "provisioner": provisioner,
            "volumeBindingMode": "WaitForFirstConsumer" if wait else "Immediate",
            "allowedTopologies": topologies or [],
        }
    )


def csi_node(name: str, **limits: int) -> CSINode:
    drivers = [
        {"name": d.replace("_", "."), "allocatable": {"count": c}} for d, c in limits.items()
    ]
    return CSINode.from_json({"metadata": {"name": name}, "spec": {"drivers": drivers}})


def csi_driver(name: str, **spec: Any) -> CSIDriver:
    return CSIDriver.from_json({"metadata": {"name": name}, "spec": spec})


def capacity(cls: str, size: str, *, zone: str) -> CSIStorageCapacity:
    return CSIStorageCapacity.from_json(
        {
            "metadata": {"name": f"cap-{zone}", "namespace": "kube-system"},
            "storageClassName": cls,
            "capacity": size,
            "nodeTopology": {"matchLabels": {"zone": zone}},
        }
    )
