"""What NodeResourceTopologyMatch tells `kubesched explain` about a pod: per node, its NUMA
zones (what each has available), the kubelet's topology-manager policy and scope, and which
zone(s) would host the pod, or why none can (each zone's shortfall). The same checks as the
Filter (`fit`), kept instead of stopping at the first failure. Pure; unit-tested.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kubesched.model.pod_containers import KIND_APP, PodContainerResources
from kubesched.plugins.node_resource_topology.fit import (
    aligned_numa_id,
    effective_request,
    is_host_level,
    is_suitable,
    needs_filtering,
    subtract,
)
from kubesched.plugins.node_resource_topology.topology import (
    POLICY_SINGLE_NUMA_NODE,
    SCOPE_POD,
    NUMANode,
    TopologyManager,
)

_BYTES = ("memory", "ephemeral-storage", "storage")
LISTED = 10
"""Nodes named per line of those without NodeResourceTopology data (JSON lists them all)."""


@dataclass(frozen=True, slots=True)
class NodeNUMA:
    """One node as the plugin sees it for the pod."""

    node: str
    manager: TopologyManager | None = None
    """None: the node has no NodeResourceTopology object (or it may not be used now)."""
    zones: tuple[tuple[str, Mapping[str, int]], ...] = ()
    hosts: tuple[str, ...] = ()
    """The zone hosting the pod (pod scope), or each container's (container scope)."""
    verdict: str = ""


def node_numa(
    pod: PodContainerResources,
    node: str,
    manager: TopologyManager,
    zones: list[NUMANode],
    node_resources: Collection[str],
) -> NodeNUMA:
    """`zones` are a copy (container scope takes each container's room from them)."""
    shown = tuple((f"node-{z.numa_id}", dict(z.resources)) for z in zones)
    row = NodeNUMA(node, manager, shown)
    if not needs_filtering(pod):
        return replace(row, verdict="not checked: a BestEffort pod that requests no device")
    if manager.scope == SCOPE_POD:
        request = effective_request(pod)
        found = aligned_numa_id(
            requests=request, numa_nodes=zones, node_resources=node_resources, qos=pod.qos_class
        )
        if found is None:
            verdict = _none("cannot align pod", pod, request, zones, node_resources)
            return replace(row, verdict=verdict)
        return _admit(row, (f"node-{found}",), manager)
    hosts: list[str] = []
    for container in pod.containers:
        found = aligned_numa_id(
            requests=container.requests,
            numa_nodes=zones,
            node_resources=node_resources,
            qos=pod.qos_class,
        )
        if found is None:
            what = "container" if container.kind == KIND_APP else f"{container.kind} container"
            reason = f"cannot align {what} {container.name}"
            verdict = _none(reason, pod, container.requests, zones, node_resources)
            return replace(row, hosts=tuple(hosts), verdict=verdict)
        hosts.append(f"{container.name} on node-{found}")
        if container.kind == KIND_APP:
            subtract(zones, found, pod.qos_class, container.requests)
    return _admit(row, tuple(hosts), manager)


def _admit(row: NodeNUMA, hosts: tuple[str, ...], manager: TopologyManager) -> NodeNUMA:
    if manager.policy == POLICY_SINGLE_NUMA_NODE:
        return replace(row, hosts=hosts, verdict=f"fits: {', '.join(hosts)}")
    verdict = (
        f"passes Filter unchecked (policy {manager.policy}); one zone alone could hold it: "
        + ", ".join(hosts)
    )
    return replace(row, hosts=hosts, verdict=verdict)


def _none(
    reason: str,
    pod: PodContainerResources,
    request: Mapping[str, int],
    zones: Sequence[NUMANode],
    node_resources: Collection[str],
) -> str:
    """`reason`, and what each zone lacks for `request`."""
    missing = [
        f"{name} (the node reports none)"
        for name, amount in request.items()
        if amount and name not in node_resources
    ]
    if missing:
        return f"{reason}: {', '.join(missing)}"
    lacks = []
    for zone in zones:
        short = _short(pod.qos_class, request, zone, zones)
        if short:
            lacks.append(f"node-{zone.numa_id} lacks {', '.join(short)}")
    return f"{reason}: " + ("; ".join(lacks) or "no single zone fits every request at once")


def _short(
    qos: str, request: Mapping[str, int], zone: NUMANode, zones: Sequence[NUMANode]
) -> list[str]:
    short = []
    for name, amount in request.items():
        listed = any(name in z.resources for z in zones)
        if not amount or (not listed and is_host_level(name)):
            continue
        available = zone.resources.get(name)
        if available is None:
            short.append(f"{name} (not in this zone)")
        elif not is_suitable(qos, name, amount, available):
            short.append(f"{name} ({quantity(name, available)} < {quantity(name, amount)})")
    return short


def quantity(name: str, milli: int) -> str:
    """A milli-value as people write it: `4`, `500m`, `8Gi`."""
    if milli % 1000:
        return f"{milli}m"
    value = milli // 1000
    if name in _BYTES or name.startswith("hugepages-"):
        for suffix, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if value and value % size == 0:
                return f"{value // size}{suffix}"
    return str(value)


def amounts(resources: Mapping[str, int]) -> str:
    return ", ".join(f"{name} {quantity(name, amount)}" for name, amount in resources.items())


def numa_lines(pod: PodContainerResources, rows: Sequence[NodeNUMA], *, plugin: str) -> list[str]:
    asked = amounts({k: v for k, v in effective_request(pod).items() if v}) or "nothing"
    lines = [f"NUMA zones ({plugin}): a {pod.qos_class} pod requesting {asked}"]
    unchecked: dict[str, list[str]] = {}
    for row in rows:
        if row.manager is None:
            unchecked.setdefault(row.verdict, []).append(row.node)
            continue
        manager = row.manager
        lines.append(f"  node {row.node}: policy {manager.policy}, scope {manager.scope}")
        lines += [f"    zone {name}: {amounts(res) or 'nothing'}" for name, res in row.zones]
        lines.append(f"    {row.verdict}")
    for verdict, nodes in unchecked.items():
        shown = ", ".join(nodes[:LISTED])
        more = f" and {len(nodes) - LISTED} more" if len(nodes) > LISTED else ""
        lines.append(f"  {len(nodes)} node(s), {verdict}: {shown}{more}")
    return lines


def numa_dict(pod: PodContainerResources, rows: Sequence[NodeNUMA]) -> dict[str, Any]:
    return {
        "qosClass": pod.qos_class,
        "request": {k: quantity(k, v) for k, v in effective_request(pod).items() if v},
        "nodes": [_row_dict(row) for row in rows],
    }


def _row_dict(row: NodeNUMA) -> dict[str, Any]:
    found: dict[str, Any] = {"node": row.node, "verdict": row.verdict}
    if row.manager is None:
        found["topology"] = None
        return found
    found["policy"], found["scope"] = row.manager.policy, row.manager.scope
    found["zones"] = [
        {"name": name, "available": {k: quantity(k, v) for k, v in res.items()}}
        for name, res in row.zones
    ]
    found["hosts"] = list(row.hosts)
    return found
