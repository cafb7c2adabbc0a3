"""The NodeResourceTopology CustomResourceDefinition (`topology.node.k8s.io/v1alpha2`,
cluster-scoped, one object per node named after it), written here from the API that
scheduler-plugins v0.35.4-devel pins (github.com/k8stopologyawareschedwg/
noderesourcetopology-api v0.1.2): `zones` (name, type, parent, costs, attributes,
resources with capacity/allocatable/available), `attributes` and the deprecated
`topologyPolicies`. NodeResourceTopologyMatch reads these objects; the resource-topology
exporter or NFD writes them. Objects created against the upstream CRD are read the same way.
"""

from __future__ import annotations

from typing import Any

GROUP = "topology.node.k8s.io"
VERSION = "v1alpha2"
_QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)


def _string(description: str = "") -> dict[str, Any]:
    return {"type": "string", "description": description} if description else {"type": "string"}


def _quantity(description: str) -> dict[str, Any]:
    return {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "description": description,
        "pattern": _QUANTITY_PATTERN,
        "x-kubernetes-int-or-string": True,
    }


def _list_of(description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "array",
        "description": description,
        "items": {"type": "object", "properties": properties, "required": required},
    }


def _attributes() -> dict[str, Any]:
    return _list_of(
        "AttributeList contains an array of AttributeInfo objects.",
        {"name": _string(), "value": _string()},
        ["name", "value"],
    )


def _zone() -> dict[str, Any]:
    costs = _list_of(
        "CostList contains an array of CostInfo objects.",
        {"name": _string(), "value": {"type": "integer", "format": "int64"}},
        ["name", "value"],
    )
    resources = _list_of(
        "ResourceInfoList contains an array of ResourceInfo objects.",
        {
            "name": _string("Name of the resource."),
            "capacity": _quantity("Capacity of the resource: the total amount the node has."),
            "allocatable": _quantity(
                "Allocatable quantity of the resource, as in the node status: the total "
                "amount available to pods."
            ),
            "available": _quantity(
                "Available is the amount of this resource currently available for new pods: "
                "Allocatable minus what running pods reserve."
            ),
        },
        ["allocatable", "available", "capacity", "name"],
    )
    return {
        "type": "object",
        "description": "Zone represents a resource topology zone, e.g. socket, node, die or core.",
        "properties": {
            "name": _string(),
            "type": _string(),
            "parent": _string(),
            "costs": costs,
            "attributes": _attributes(),
            "resources": resources,
        },
        "required": ["name", "type"],
    }


def node_resource_topology_crd() -> dict[str, Any]:
    """The NodeResourceTopology CustomResourceDefinition (served and stored as v1alpha2)."""
    schema = {
        "type": "object",
        "description": "NodeResourceTopology describes node resources and their topology.",
        "properties": {
            "apiVersion": _string(),
            "kind": _string(),
            "metadata": {"type": "object"},
            "attributes": _attributes(),
            "topologyPolicies": {
                "type": "array",
                "description": "Deprecated: use the top-level attributes instead.",
                "items": {"type": "string"},
            },
            "zones": {
                "type": "array",
                "description": "ZoneList contains an array of Zone objects.",
                "items": _zone(),
            },
        },
        "required": ["zones"],
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"noderesourcetopologies.{GROUP}",
            "annotations": {
                "api-approved.kubernetes.io": "https://github.com/kubernetes/enhancements/pull/1870"
            },
        },
        "spec": {
            "group": GROUP,
            "scope": "Cluster",
            "names": {
                "kind": "NodeResourceTopology",
                "listKind": "NodeResourceTopologyList",
                "plural": "noderesourcetopologies",
                "singular": "noderesourcetopology",
                "shortNames": ["node-res-topo"],
            },
            "versions": [
                {
                    "name": VERSION,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }
