"""Builders for the NodeResourceTopologyMatch tests: NRT objects as the exporter writes them,
nodes whose allocatable is the sum of their zones' available amounts (as upstream's tests
make them), pods with requests equal to limits (Guaranteed when they ask cpu and memory),
and a plugin over a FakeHandle holding the NRT objects."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from kubesched.framework import NodeInfo
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.model.quantity import parse_quantity
from kubesched.plugins.node_resource_topology import (
    NODE_RESOURCE_TOPOLOGIES,
    NodeResourceTopologyMatch,
)
from kubesched.testing import FakeHandle, make_node, make_pod

Zone = dict[str, Any]
Resources = Mapping[str, str]


def zone(numa_id: int, costs: Mapping[int, int] | None = None, **available: str) -> Zone:
    """Zone `node-<id>` of type Node; `available` by resource name (`_` for `/` is not
    needed: pass names with `/` through `zone_named`)."""
    return zone_named(numa_id, available, costs=costs)


def zone_named(
    numa_id: int, available: Resources, *, costs: Mapping[int, int] | None = None
) -> Zone:
    out: Zone = {
        "name": f"node-{numa_id}",
        "type": "Node",
        "resources": [
            {"name": name, "capacity": amount, "allocatable": amount, "available": amount}
            for name, amount in available.items()
        ],
    }
    if costs:
        out["costs"] = [{"name": f"node-{i}", "value": v} for i, v in costs.items()]
    return out


def nrt(
    name: str,
    zones: Sequence[Zone],
    *,
    policy: str = "",
    attributes: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An NRT object; `policy` goes to the deprecated `topologyPolicies`."""
    out: dict[str, Any] = {
        "apiVersion": "topology.node.k8s.io/v1alpha2",
        "kind": "NodeResourceTopology",
        "metadata": {"name": name},
        "zones": list(zones),
    }
    if policy:
        out["topologyPolicies"] = [policy]
    if attributes:
        out["attributes"] = [{"name": k, "value": v} for k, v in attributes.items()]
    return out


def node_for(obj: Mapping[str, Any], extra: Resources | None = None) -> NodeInfo:
    """The node the NRT object describes: allocatable = the zones' available amounts summed
    (upstream's `makeResourceListFromZones`), plus `extra` node-level resources."""
    totals: dict[str, Decimal] = {}
    for each in obj["zones"]:
        for info in each["resources"]:
            totals[info["name"]] = totals.get(info["name"], Decimal(0)) + parse_quantity(
                info["available"]
            )
    allocatable = {name: str(amount) for name, amount in totals.items()}
    allocatable.setdefault("pods", "110")
    allocatable.update(extra or {})
    builder = make_node().name(obj["metadata"]["name"])
    return NodeInfo(builder.capacity_named(allocatable).model())


def pod(
    *containers: Resources,
    requests_only: bool = False,
    init: Sequence[Resources] = (),
    sidecar: bool = False,
) -> Pod:
    """One container per mapping; limits equal requests unless `requests_only`; `init`
    containers (restartable ones with `sidecar`)."""
    raw = make_pod().name("p").obj()
    raw["spec"]["containers"] = [
        _container(f"c{i}", r, requests_only) for i, r in enumerate(containers)
    ]
    inits = [_container(f"i{i}", r, requests_only) for i, r in enumerate(init)]
    for each in inits if sidecar else ():
        each["restartPolicy"] = "Always"
    if inits:
        raw["spec"]["initContainers"] = inits
    return Pod.from_json(raw)


def pod_with_limits(requests: Resources, limits: Resources) -> Pod:
    raw = make_pod().name("p").obj()
    raw["spec"]["containers"] = [
        {"name": "c0", "resources": {"requests": dict(requests), "limits": dict(limits)}}
    ]
    return Pod.from_json(raw)


def _container(name: str, resources: Resources, requests_only: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"requests": dict(resources)}
    if not requests_only:
        spec["limits"] = dict(resources)
    return {"name": name, "resources": spec}


def plugin_over(
    objects: Sequence[Mapping[str, Any]], args: Mapping[str, Any] | None = None
) -> NodeResourceTopologyMatch:
    """The plugin with these NRT objects in its lister."""
    handle = FakeHandle(listers=ClusterListers([NODE_RESOURCE_TOPOLOGIES]))
    for obj in objects:
        handle.listers.add(NODE_RESOURCE_TOPOLOGIES, ApiObject.from_json(obj))
    return NodeResourceTopologyMatch(args=args or {}, handle=handle)
