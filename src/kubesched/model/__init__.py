"""Slim, typed views of the API objects scheduling reads (no generated model classes)."""

from kubesched.model.apiobject import ApiObject
from kubesched.model.csi import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    StorageClass,
    VolumeAttachment,
)
from kubesched.model.namespace import METADATA_NAME_LABEL, namespace_object
from kubesched.model.node import ContainerImage, Node, Taint
from kubesched.model.pdb import PodDisruptionBudget
from kubesched.model.pod import HostPort, OwnerReference, Pod, Toleration
from kubesched.model.pod_volumes import PodResourceClaim, PodVolume
from kubesched.model.podgroup import SchedulingPodGroup, pod_group_key
from kubesched.model.resources import Resource
from kubesched.model.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    CLAIM_LOST_PHASE,
    NO_PROVISIONER,
    READ_WRITE_ONCE_POD,
    VOLUME_AVAILABLE,
    ClaimRef,
    PersistentVolume,
    PersistentVolumeClaim,
)
from kubesched.model.workloads import WorkloadSelector

__all__ = [
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_SELECTED_NODE",
    "CLAIM_LOST_PHASE",
    "METADATA_NAME_LABEL",
    "NO_PROVISIONER",
    "READ_WRITE_ONCE_POD",
    "VOLUME_AVAILABLE",
    "ApiObject",
    "CSIDriver",
    "CSINode",
    "CSIStorageCapacity",
    "ClaimRef",
    "ContainerImage",
    "HostPort",
    "Node",
    "OwnerReference",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "PodDisruptionBudget",
    "PodResourceClaim",
    "PodVolume",
    "Resource",
    "SchedulingPodGroup",
    "StorageClass",
    "Taint",
    "Toleration",
    "VolumeAttachment",
    "WorkloadSelector",
    "namespace_object",
    "pod_group_key",
]
