"""The CustomResourceDefinitions kubesched's plugins read, for `kubesched manifests
--with-crds`: scheduler-plugins' PodGroup (`scheduling.x-k8s.io/v1alpha1`), written here
from its API (spec: minMember, minResources, scheduleTimeoutSeconds; status: phase,
occupiedBy, scheduled, running, succeeded, failed, scheduleStartTime), so a cluster without
scheduler-plugins can run Coscheduling, and its ElasticQuota (spec: min, max; status: used;
short names `eq`, `eqs`), for CapacityScheduling. Objects created against scheduler-plugins'
own CRDs are read the same way. The NodeResourceTopology CRD (NodeResourceTopologyMatch)
lives in `crd_topology`.
"""

from __future__ import annotations

from typing import Any

from kubesched.manifests.crd_topology import node_resource_topology_crd

GROUP = "scheduling.x-k8s.io"
PHASES = ("Pending", "Running", "Scheduling", "Scheduled", "Unknown", "Finished", "Failed")


def _integer(description: str, *, minimum: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "format": "int32", "description": description}
    if minimum is not None:
        schema["minimum"] = minimum
    return schema


def _quantity() -> dict[str, Any]:
    return {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
        "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
        r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$",
    }


def _spec_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "The members a PodGroup needs before any of them is bound.",
        "properties": {
            "minMember": _integer("Members that must fit at once (at least 1).", minimum=1),
            "minResources": {
                "type": "object",
                "description": "Resources the cluster must have free for the whole group.",
                "additionalProperties": _quantity(),
            },
            "scheduleTimeoutSeconds": _integer(
                "How long members wait at Permit for the others (default: the plugin's "
                "permitWaitingTimeSeconds)."
            ),
        },
    }


def _status_schema() -> dict[str, Any]:
    counts = {
        name: _integer(f"Members that are {name}.")
        for name in ("scheduled", "running", "succeeded", "failed")
    }
    return {
        "type": "object",
        "properties": {
            "phase": {"type": "string", "enum": list(PHASES)},
            "occupiedBy": {"type": "string"},
            **counts,
            "scheduleStartTime": {"type": "string", "format": "date-time"},
        },
    }


def _column(name: str, path: str, kind: str = "string") -> dict[str, str]:
    return {"name": name, "type": kind, "jsonPath": path}


def pod_group_crd() -> dict[str, Any]:
    """The PodGroup CustomResourceDefinition (served and stored as v1alpha1)."""
    version = {
        "name": "v1alpha1",
        "served": True,
        "storage": True,
        "subresources": {"status": {}},
        "additionalPrinterColumns": [
            _column("Phase", ".status.phase"),
            _column("MinMember", ".spec.minMember", "integer"),
            _column("Scheduled", ".status.scheduled", "integer"),
            _column("Running", ".status.running", "integer"),
            _column("Age", ".metadata.creationTimestamp", "date"),
        ],
        "schema": {
            "openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": _spec_schema(),
                    "status": _status_schema(),
                },
            }
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"podgroups.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {
                "kind": "PodGroup",
                "listKind": "PodGroupList",
                "plural": "podgroups",
                "singular": "podgroup",
                "shortNames": ["pg", "pgs"],
            },
            "versions": [version],
        },
    }


def _resource_list(description: str) -> dict[str, Any]:
    return {"type": "object", "description": description, "additionalProperties": _quantity()}


def _elastic_quota_schema() -> dict[str, Any]:
    spec = {
        "type": "object",
        "description": "ElasticQuotaSpec defines the Min and Max for Quota.",
        "properties": {
            "min": _resource_list(
                "Min is the set of desired guaranteed limits for each named resource."
            ),
            "max": _resource_list(
                "Max is the set of desired max limits for each named resource. The usage of "
                "max is based on the resource configurations of successfully scheduled pods."
            ),
        },
    }
    status = {
        "type": "object",
        "description": "ElasticQuotaStatus defines the observed use.",
        "properties": {
            "used": _resource_list(
                "Used is the current observed total usage of the resource in the namespace."
            )
        },
    }
    return {
        "type": "object",
        "description": "ElasticQuota sets elastic quota restrictions per namespace",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
            "status": status,
        },
    }


def elastic_quota_crd() -> dict[str, Any]:
    """The ElasticQuota CustomResourceDefinition (served and stored as v1alpha1), as
    scheduler-plugins v0.35.4-devel defines it."""
    version = {
        "name": "v1alpha1",
        "served": True,
        "storage": True,
        "subresources": {"status": {}},
        "additionalPrinterColumns": [
            _column("Used", ".status.used"),
            _column("Max", ".spec.max"),
            _column("Age", ".metadata.creationTimestamp", "date"),
        ],
        "schema": {"openAPIV3Schema": _elastic_quota_schema()},
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"elasticquotas.{GROUP}",
            "annotations": {
                "api-approved.kubernetes.io": (
                    "https://github.com/kubernetes-sigs/scheduler-plugins/pull/52"
                )
            },
        },
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {
                "kind": "ElasticQuota",
                "listKind": "ElasticQuotaList",
                "plural": "elasticquotas",
                "singular": "elasticquota",
                "shortNames": ["eq", "eqs"],
            },
            "versions": [version],
        },
    }


def crd_objects() -> list[dict[str, Any]]:
    """Every CRD kubesched ships, by name."""
    return [elastic_quota_crd(), node_resource_topology_crd(), pod_group_crd()]
