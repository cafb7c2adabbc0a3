"""NodeResourceTopology scenarios side by side (tests/e2e/test_node_resource_topology.py):
NRT objects as the resource-topology exporter writes them, one copy of each node per
scheduler (`Side`: its pods select its nodes by the `SIDE_LABEL`), profiles that run
NodeResourceTopologyMatch as their only scorer, and seeded random zones and pods."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from kubesched.testing import make_node, make_pod
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.waiting import is_bound, unschedulable_message, wait_for

SIDE_LABEL = "parity.kubesched.io/side"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
NRT_PATH = "/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies"
NIC = "example.com/nic"
PLUGIN = "NodeResourceTopologyMatch"
TOPOLOGY_SETTLE_SECONDS = 1.0
"""How long a pod waits after the last NRT object written by `Side.node`. The NRT objects
and the pods reach a scheduler on separate watches, so a pod created at once may be decided
before its scheduler holds the node's NRT object; the plugin does not filter a node without
one, and the pod is bound where the test expects a refusal. Real exporters report a node
long before pods come to it."""
_last_topology_write = [0.0]


def profile(name: str, **args: Any) -> dict[str, Any]:
    """Filter, Score (the only scorer), Reserve and PostBind, LeastAllocated."""
    only = {"enabled": [{"name": PLUGIN}]}
    return {
        "schedulerName": name,
        "plugins": {
            "filter": only,
            "score": {"enabled": [{"name": PLUGIN}], "disabled": [{"name": "*"}]},
            "reserve": only,
            "postBind": only,
        },
        "pluginConfig": [
            {"name": PLUGIN, "args": {"scoringStrategy": {"type": "LeastAllocated"}, **args}}
        ],
    }


def config(name: str, reserve: str, least: str, **extra: Any) -> dict[str, Any]:
    """The passthrough profile `name`, the over-reserve profile `reserve`, and `least`
    scoring by LeastNUMANodes."""
    profiles = [
        profile(name),
        profile(reserve, cacheResyncPeriodSeconds=1),
        profile(least, scoringStrategy={"type": "LeastNUMANodes"}),
    ]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": profiles,
        **extra,
    }


Zones = list[tuple[str, str, str]]
"""(cpu, memory, nics) available per NUMA zone."""


def nrt_object(
    name: str,
    zones: Zones,
    *,
    fingerprint: str = "",
    policy: str = "single-numa-node",
    scope: str = "container",
) -> dict[str, Any]:
    """An NRT object as the exporter writes it: the kubelet's topology-manager policy and
    scope, and the pods it counted when given."""
    attributes = [
        {"name": "topologyManagerPolicy", "value": policy},
        {"name": "topologyManagerScope", "value": scope},
    ]
    if fingerprint:
        attributes.append({"name": "nodeTopologyPodsFingerprint", "value": fingerprint})
    return {
        "apiVersion": "topology.node.k8s.io/v1alpha2",
        "kind": "NodeResourceTopology",
        "metadata": {"name": name},
        "attributes": attributes,
        "zones": [zone_object(i, len(zones), *zone) for i, zone in enumerate(zones)],
    }


def zone_object(numa_id: int, count: int, cpu: str, memory: str, nics: str) -> dict[str, Any]:
    """A NUMA zone as the exporter reports it: capacity, allocatable, available, and its
    distances (10 to itself, 12 within its pair of zones 0-1, 2-3, ..., 20 across)."""
    resources = [
        {"name": name, "capacity": amount, "allocatable": amount, "available": amount}
        for name, amount in (("cpu", cpu), ("memory", memory), (NIC, nics))
    ]
    costs = [
        {"name": f"node-{i}", "value": 10 if i == numa_id else 12 if i // 2 == numa_id // 2 else 20}
        for i in range(count)
    ]
    return {"name": f"node-{numa_id}", "type": "Node", "costs": costs, "resources": resources}


@dataclass(frozen=True)
class Side:
    """One copy of the scenario: its scheduler, namespace and node prefix."""

    scheduler: str
    namespace: str
    api: ApiClient

    @property
    def prefix(self) -> str:
        return self.scheduler[:2]

    def node(
        self, name: str, zones: Zones, *, with_nrt: bool = True, cpu: int = 0, **nrt: str
    ) -> None:
        """A node (allocatable: its zones summed, or `cpu` cpus: an NRT object that disagrees
        with the node) and its NRT object (`policy`, `scope`)."""
        full = f"{self.prefix}-{name}"
        cpu = cpu or sum(int(z[0]) for z in zones)
        memory = sum(int(z[1].removesuffix("Gi")) for z in zones)
        nics = sum(int(z[2]) for z in zones)
        node = make_node().name(full).label(SIDE_LABEL, self.prefix)
        node = node.capacity_named({"cpu": str(cpu), "memory": f"{memory}Gi", NIC: str(nics)})
        self.api.create(node.capacity(pods="20").obj())
        if with_nrt:
            self.api.request("POST", NRT_PATH, body=nrt_object(full, zones, **nrt))
            _last_topology_write[0] = time.monotonic()

    def guaranteed(
        self, name: str, cpu: str, memory: str, nics: str, *, scheduler: str = ""
    ) -> None:
        resources = {"cpu": cpu, "memory": memory, NIC: nics}
        pod = make_pod().name(name).scheduler(scheduler or self.scheduler)
        raw = pod.node_selector(**{SIDE_LABEL: self.prefix}).obj()
        raw["spec"]["containers"][0]["resources"] = {"requests": resources, "limits": resources}
        self.create(raw)

    def pod(self, name: str) -> dict[str, Any]:
        return self.api.get("Pod", name, namespace=self.namespace)

    def placed_on(self, name: str) -> str:
        pod = self.pod(name)
        return str(pod["spec"]["nodeName"]).removeprefix(f"{self.prefix}-") if is_bound(pod) else ""

    def why(self, name: str) -> str:
        """The PodScheduled=False message, the side's node prefix removed."""
        return unschedulable_message(self.pod(name))

    def decision(self, name: str) -> str:
        """ "bound", the node reasons of its refusal, or "" while undecided."""
        if self.placed_on(name):
            return "bound"
        return node_reasons(message) if (message := self.why(name)) else ""

    def create(self, pod: dict[str, Any]) -> None:
        """Create `pod` once the NRT objects written last had time to reach the schedulers
        (`TOPOLOGY_SETTLE_SECONDS`)."""
        time.sleep(max(0.0, _last_topology_write[0] + TOPOLOGY_SETTLE_SECONDS - time.monotonic()))
        self.api.create(pod, namespace=self.namespace)

    def remove(self, name: str) -> None:
        """Delete the pod and wait until it is gone."""
        self.api.delete("Pod", name, namespace=self.namespace, grace_period=0)
        wait_for(
            lambda: self.api.get_or_none("Pod", name, namespace=self.namespace) is None,
            message=f"{self.namespace}/{name} deleted",
        )


def node_reasons(message: str) -> str:
    """The first sentence: the per-node reasons, before what PostFilter adds."""
    return message.split(". ", 1)[0] + "."


POLICIES = (("single-numa-node", "container"), ("single-numa-node", "pod"), ("restricted", "pod"))


def random_zones(rng: random.Random) -> Zones:
    """Two or four zones of 2-6 cpus, 4-8Gi and 1-2 devices."""
    return [
        (str(rng.randint(2, 6)), f"{rng.randint(4, 8)}Gi", str(rng.randint(1, 2)))
        for _ in range(rng.choice((2, 2, 4)))
    ]


def random_pod(rng: random.Random, scheduler: str, prefix: str) -> dict[str, Any]:
    """Guaranteed, Burstable or BestEffort-with-a-device; one or two containers of 1-5 cpus
    and 1-3Gi, maybe an init container: sized to fit a node more often than one zone."""
    kind = rng.choice(("guaranteed", "guaranteed", "burstable", "devices"))

    def container(name: str) -> dict[str, Any]:
        requests = {"cpu": str(rng.randint(1, 5)), "memory": f"{rng.randint(1, 3)}Gi"}
        if rng.random() < 0.5:
            requests[NIC] = "1"
        if kind == "devices":
            requests = {NIC: str(rng.randint(1, 3))}
        # Burstable: cpu and memory without limits (a device needs its limit, as requests).
        limits = (
            requests if kind != "burstable" else {k: v for k, v in requests.items() if k == NIC}
        )
        return {
            "name": name,
            "image": "registry.k8s.io/pause:3.10",
            "resources": {"requests": requests, "limits": limits},
        }

    raw = make_pod().name("random").scheduler(scheduler).node_selector(**{SIDE_LABEL: prefix}).obj()
    raw["spec"]["containers"] = [container(f"c{i}") for i in range(rng.randint(1, 2))]
    if rng.random() < 0.3:
        raw["spec"]["initContainers"] = [container("init")]
    return raw
