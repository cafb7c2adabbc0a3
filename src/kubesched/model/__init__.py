"""Slim, typed views of the API objects scheduling reads (no generated model classes)."""

from kubesched.model.apiobject import ApiObject
from kubesched.model.namespace import METADATA_NAME_LABEL, Namespace
from kubesched.model.node import ContainerImage, Node, Taint
from kubesched.model.pdb import PodDisruptionBudget
from kubesched.model.pod import HostPort, OwnerReference, Pod, Toleration
from kubesched.model.resources import Resource
from kubesched.model.workloads import WorkloadSelector

__all__ = [
    "METADATA_NAME_LABEL",
    "ApiObject",
    "ContainerImage",
    "HostPort",
    "Namespace",
    "Node",
    "OwnerReference",
    "Pod",
    "PodDisruptionBudget",
    "Resource",
    "Taint",
    "Toleration",
    "WorkloadSelector",
]
