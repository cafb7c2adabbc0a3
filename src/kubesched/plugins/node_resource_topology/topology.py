"""The NodeResourceTopology object (`topology.node.k8s.io/v1alpha2`, written per node by the
resource-topology exporter or NFD) as NodeResourceTopologyMatch reads it: its NUMA zones
with their available resources and distances, and the node's topology-manager policy,
scope and maxNUMANodes (scheduler-plugins' `createNUMANodeList` and `nodeconfig`).
Testable without the framework."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.framework.resources import ResourceSpec
from kubesched.model.quantity import QuantityError, milli_value

NODE_RESOURCE_TOPOLOGIES = ResourceSpec(
    "topology.node.k8s.io", "v1alpha2", "noderesourcetopologies"
)
"""Cluster-scoped, one object per node, named after it."""

ZONE_TYPE_NUMA_NODE = "Node"
MAX_NUMA_ID = 64
_NUMA_NAME = re.compile(r"node-([+-]?[0-9]+)")

POLICY_NONE = "none"
POLICY_BEST_EFFORT = "best-effort"
POLICY_RESTRICTED = "restricted"
POLICY_SINGLE_NUMA_NODE = "single-numa-node"
SCOPE_CONTAINER = "container"
SCOPE_POD = "pod"
DEFAULT_MAX_NUMA_NODES = 8
LIMIT_NUMA_NODES = 1024

_POLICIES = (POLICY_NONE, POLICY_BEST_EFFORT, POLICY_RESTRICTED, POLICY_SINGLE_NUMA_NODE)
_SCOPES = (SCOPE_CONTAINER, SCOPE_POD)
_LEGACY_POLICIES = {
    "SingleNUMANodePodLevel": (POLICY_SINGLE_NUMA_NODE, SCOPE_POD),
    "SingleNUMANodeContainerLevel": (POLICY_SINGLE_NUMA_NODE, SCOPE_CONTAINER),
    "BestEffortPodLevel": (POLICY_BEST_EFFORT, SCOPE_POD),
    "BestEffortContainerLevel": (POLICY_BEST_EFFORT, SCOPE_CONTAINER),
    "RestrictedPodLevel": (POLICY_RESTRICTED, SCOPE_POD),
    "RestrictedContainerLevel": (POLICY_RESTRICTED, SCOPE_CONTAINER),
}
"""The deprecated `topologyPolicies` values and what they mean; others leave the defaults."""


@dataclass(frozen=True, slots=True)
class TopologyManager:
    """The kubelet topology manager's configuration of one node."""

    policy: str = POLICY_NONE
    scope: str = SCOPE_CONTAINER
    max_numa_nodes: int = DEFAULT_MAX_NUMA_NODES


@dataclass(slots=True)
class NUMANode:
    """One zone of type `Node`: its id (from the name `node-<id>`), what is available on it
    (milli-values by resource name) and its distance to each NUMA id."""

    numa_id: int
    resources: dict[str, int]
    costs: dict[int, int] = field(default_factory=dict)

    def copy(self) -> NUMANode:
        return NUMANode(self.numa_id, dict(self.resources), dict(self.costs))


def numa_id_of(name: str) -> int | None:
    """`node-3` -> 3 (the API's `numanode.NameToID`); None for any other name."""
    match = _NUMA_NAME.fullmatch(name)
    if match is None or int(match.group(1)) < 0:
        return None
    return int(match.group(1))


def numa_nodes(body: Mapping[str, Any]) -> list[NUMANode]:
    """The NUMA zones of an NRT object's body, in the object's order; zones of other types,
    with a malformed name or an id above 64 are left out (as scheduler-plugins)."""
    nodes = []
    for zone in body.get("zones") or ():
        if zone.get("type") != ZONE_TYPE_NUMA_NODE:
            continue
        numa_id = numa_id_of(str(zone.get("name") or ""))
        if numa_id is None or numa_id >= MAX_NUMA_ID:
            continue
        nodes.append(NUMANode(numa_id, _available(zone), _costs(zone)))
    return nodes


def _available(zone: Mapping[str, Any]) -> dict[str, int]:
    out = {}
    for info in zone.get("resources") or ():
        try:
            out[str(info.get("name"))] = milli_value(info.get("available", 0))
        except (QuantityError, ValueError, TypeError):
            out[str(info.get("name"))] = 0
    return out


def _costs(zone: Mapping[str, Any]) -> dict[int, int]:
    out = {}
    for cost in zone.get("costs") or ():
        numa_id = numa_id_of(str(cost.get("name") or ""))
        if numa_id is not None and numa_id <= MAX_NUMA_ID:
            out[numa_id] = int(cost.get("value") or 0)
    return out


def topology_manager(body: Mapping[str, Any]) -> TopologyManager:
    """The policy, scope and maxNUMANodes: defaults (none, container, 8), then the deprecated
    `topologyPolicies[0]`, then the `attributes` `topologyManagerPolicy`,
    `topologyManagerScope` and `topologyManagerMaxNUMANodes` (invalid values ignored)."""
    policy, scope, max_numa = POLICY_NONE, SCOPE_CONTAINER, DEFAULT_MAX_NUMA_NODES
    legacy: Sequence[Any] = body.get("topologyPolicies") or ()
    if legacy and str(legacy[0]) in _LEGACY_POLICIES:
        policy, scope = _LEGACY_POLICIES[str(legacy[0])]
    for attribute in body.get("attributes") or ():
        name, value = attribute.get("name"), str(attribute.get("value") or "")
        if name == "topologyManagerScope" and value in _SCOPES:
            scope = value
        elif name == "topologyManagerPolicy" and value in _POLICIES:
            policy = value
        elif name == "topologyManagerMaxNUMANodes" and _valid_max_numa(value):
            max_numa = min(int(value), LIMIT_NUMA_NODES)
    return TopologyManager(policy=policy, scope=scope, max_numa_nodes=max_numa)


def _valid_max_numa(value: str) -> bool:
    """An integer above 1 (it divides the LeastNUMANodes score)."""
    return re.fullmatch(r"[+-]?[0-9]+", value) is not None and int(value) > 1


@dataclass
class ParsedTopologies:
    """Each node's NRT body parsed once: parsed again only when the body is another object
    (an informer update, or the over-reserve cache's adjusted copy)."""

    by_node: dict[str, tuple[Mapping[str, Any], TopologyManager, list[NUMANode]]] = field(
        default_factory=dict
    )

    def get(
        self, node_name: str, body: Mapping[str, Any]
    ) -> tuple[TopologyManager, list[NUMANode]]:
        """The node's topology manager and a copy of its NUMA zones (callers change them)."""
        entry = self.by_node.get(node_name)
        if entry is None or entry[0] is not body:
            entry = (body, topology_manager(body), numa_nodes(body))
            self.by_node[node_name] = entry
        return entry[1], [zone.copy() for zone in entry[2]]
