"""NodeResourceTopology objects in a benchmark run: the CRD installed (and served) and one
object per node written as the resource-topology exporter writes it, before the contender
starts; after the run, every bound measured pod checked against its node's object: some
single NUMA zone must hold the pod's whole request.

The CRD installed here is the bench's own: the group, version, names and scope of
`topology.node.k8s.io/v1alpha2` NodeResourceTopology with a schema that keeps every field
(the objects the bench writes follow the exporter's shape, so no field is pruned either way).

The check is written from the pods and objects alone (not from the plugin's code): a pod's
request is its containers summed, the larger of that and each init container, plus its
overhead; a zone holds it when its `available` of every requested resource that the zone
reports is at least the request, and every requested resource the zone does not report is
cpu, memory or hugepages (never a device the zone lacks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kubesched.bench.crd_wait import install_crd
from kubesched.bench.load import create_all
from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all
from kubesched.model.quantity import milli_value

GROUP, VERSION = "topology.node.k8s.io", "v1alpha2"
GROUP_PATH = f"/apis/{GROUP}/{VERSION}"
NRT_PATH = f"{GROUP_PATH}/noderesourcetopologies"
APPROVAL = "https://github.com/kubernetes/enhancements/pull/1870"
LIST_TIMEOUT = 120.0
Zone = Mapping[str, str]
"""One NUMA zone's available amount of each resource (cpu, memory, devices)."""


def topology_crd() -> dict[str, Any]:
    """The NodeResourceTopology CRD (cluster-scoped, `v1alpha2`), keeping every field."""
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"noderesourcetopologies.{GROUP}",
            # *.k8s.io groups need it; the API's KEP (kubernetes/enhancements#1870).
            "annotations": {"api-approved.kubernetes.io": APPROVAL},
        },
        "spec": {
            "group": GROUP,
            "scope": "Cluster",
            "names": {
                "plural": "noderesourcetopologies",
                "singular": "noderesourcetopology",
                "kind": "NodeResourceTopology",
                "listKind": "NodeResourceTopologyList",
                "shortNames": ["node-res-topo"],
            },
            "versions": [{"name": VERSION, "served": True, "storage": True, "schema": schema}],
        },
    }


def nrt_object(
    node: str, zones: Sequence[Zone], *, policy: str = "single-numa-node", scope: str = "container"
) -> dict[str, Any]:
    """Node `node`'s object as the exporter writes it: the kubelet's topology-manager policy
    and scope as attributes, and per zone `node-<i>` its resources (capacity = allocatable =
    available) and distances (10 to itself, 20 to the others)."""
    attributes = [
        {"name": "topologyManagerPolicy", "value": policy},
        {"name": "topologyManagerScope", "value": scope},
    ]
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "NodeResourceTopology",
        "metadata": {"name": node},
        "attributes": attributes,
        "zones": [_zone(i, len(zones), zone) for i, zone in enumerate(zones)],
    }


def _zone(numa_id: int, count: int, zone: Zone) -> dict[str, Any]:
    resources = [
        {"name": name, "capacity": amount, "allocatable": amount, "available": amount}
        for name, amount in zone.items()
    ]
    costs = [{"name": f"node-{i}", "value": 10 if i == numa_id else 20} for i in range(count)]
    return {"name": f"node-{numa_id}", "type": "Node", "costs": costs, "resources": resources}


async def prepare_topologies(
    client: KubeClient,
    topology: Callable[[int], dict[str, Any]],
    nodes: int,
    *,
    concurrency: int,
) -> None:
    """Install the CRD, wait until it is served, create the objects of nodes 0..`nodes`-1."""
    await install_crd(
        client, topology_crd(), group_path=GROUP_PATH, plural="noderesourcetopologies"
    )
    objects = ((NRT_PATH, topology(i)) for i in range(nodes))
    await create_all(client, objects, concurrency=concurrency)


async def topology_problems(client: KubeClient, namespaces: Sequence[str]) -> list[str]:
    """Every bound pod of `namespaces` on a node where no single zone holds its request."""
    objects = await list_all(client, NRT_PATH, timeout=LIST_TIMEOUT)
    pods: list[dict[str, Any]] = []
    for namespace in namespaces:
        path = f"/api/v1/namespaces/{namespace}/pods"
        pods += await list_all(client, path, timeout=LIST_TIMEOUT)
    return problems_of(objects, pods)


def problems_of(objects: Iterable[dict[str, Any]], pods: Iterable[dict[str, Any]]) -> list[str]:
    """`topology_problems` on objects already listed (raw JSON)."""
    zones = {obj["metadata"]["name"]: available_zones(obj) for obj in objects}
    problems = []
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if not node:
            continue
        name = f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}"
        if node not in zones:
            problems.append(f"pod {name} is on node {node}, which has no NodeResourceTopology")
        elif not any(holds(zone, pod_request(pod)) for zone in zones[node]):
            problems.append(f"pod {name} is on node {node}, where no single NUMA zone holds it")
    return problems


def available_zones(obj: Mapping[str, Any]) -> list[dict[str, int]]:
    """Each zone's `available` amounts, in milli-units (cpu in millicores)."""
    return [
        {r["name"]: milli_value(str(r["available"])) for r in zone.get("resources") or ()}
        for zone in obj.get("zones") or ()
        if zone.get("type") == "Node"
    ]


def pod_request(pod: Mapping[str, Any]) -> dict[str, int]:
    """The pod's request in milli-units per resource: containers summed, at least each init
    container's, plus the overhead."""
    spec = pod.get("spec") or {}
    total: dict[str, int] = {}
    for container in spec.get("containers") or ():
        for name, amount in _requests(container).items():
            total[name] = total.get(name, 0) + amount
    for container in spec.get("initContainers") or ():
        for name, amount in _requests(container).items():
            total[name] = max(total.get(name, 0), amount)
    for name, quantity in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, 0) + milli_value(str(quantity))
    return total


def _requests(container: Mapping[str, Any]) -> dict[str, int]:
    resources = container.get("resources") or {}
    requests = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    return {name: milli_value(str(quantity)) for name, quantity in requests.items()}


def holds(zone: Mapping[str, int], request: Mapping[str, int]) -> bool:
    """Whether `zone` holds all of `request` (both in milli-units)."""
    for name, amount in request.items():
        if amount <= 0:
            continue
        if name in zone:
            if zone[name] < amount:
                return False
        elif name not in ("cpu", "memory") and not name.startswith("hugepages-"):
            return False
    return True
