"""NodeResourceTopologyMatch side by side with scheduler-plugins' own build (v0.35.4-devel,
the second oracle), on the real control plane: the NodeResourceTopology CRD that
`kubesched manifests --with-crds` ships, nodes and NRT objects written as the
resource-topology exporter writes them (zones with cpu, memory and a device, distances,
`single-numa-node` at container scope), one copy of each for each scheduler (its pods select
its side's nodes), and the same Guaranteed pods decided by each.

A pod that fits a node's total but no single zone of it is refused with the same
FailedScheduling text on both sides (`cannot align container`); a pod that fits one zone of
one node only is placed there by both, and LeastAllocated picks the same node of two that fit.
With the over-reserve cache (a second profile, `cacheResyncPeriodSeconds: 1`), a pod placed on
a node is taken from every zone until the exporter's update, whose pod-set fingerprint matches
the pods running there, lets the next pod in. The in-tree scorers differ between the two
releases (v1.35 vs v1.37.2): both profiles run NodeResourceTopologyMatch as their only scorer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.manifests.crd_topology import node_resource_topology_crd
from kubesched.plugins.node_resource_topology.fingerprint import sign
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, ApiError, is_bound, unschedulable_message, wait_for
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.scheduler_plugins import scheduler_plugins

SP, KS = "sp-numa", "ks-numa"
SP_RESERVE, KS_RESERVE = "sp-numa-reserve", "ks-numa-reserve"
SP_LEAST, KS_LEAST = "sp-numa-least", "ks-numa-least"
SIDE_LABEL = "parity.kubesched.io/side"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
NRT_PATH = "/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies"
NIC = "example.com/nic"
PLUGIN = "NodeResourceTopologyMatch"


def _profile(name: str, **args: Any) -> dict[str, Any]:
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


def _config(name: str, reserve: str, least: str, **extra: Any) -> dict[str, Any]:
    """The passthrough profile `name`, the over-reserve profile `reserve`, and `least`
    scoring by LeastNUMANodes."""
    profiles = [
        _profile(name),
        _profile(reserve, cacheResyncPeriodSeconds=1),
        _profile(least, scoringStrategy={"type": "LeastNUMANodes"}),
    ]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": profiles,
        **extra,
    }


@pytest.fixture(scope="module")
def nrt_crd(api: ApiClient) -> None:
    """The NodeResourceTopology CRD installed (and served) once for this module."""
    try:
        api.request("POST", CRD_PATH, body=node_resource_topology_crd())
    except ApiError as error:
        if error.status != 409:
            raise
    wait_for(
        lambda: api.request("GET", "/apis/topology.node.k8s.io/v1alpha2"),
        until=lambda doc: any(r["name"] == "noderesourcetopologies" for r in doc["resources"]),
        message="the NodeResourceTopology CRD is served",
    )


@pytest.fixture(scope="module")
def schedulers(
    nrt_crd: None,
    api: ApiClient,
    local_cluster: LocalCluster,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """scheduler-plugins' scheduler and kubesched, each with its NUMA-aware profile."""
    workdir = tmp_path_factory.mktemp("numa")
    config = workdir / "ks.yaml"
    election = {"leaderElect": True, "resourceNamespace": "kube-system", "resourceName": KS}
    connection = {"kubeconfig": str(local_cluster.kubeconfig_path)}
    ks_config = _config(
        KS, KS_RESERVE, KS_LEAST, leaderElection=election, clientConnection=connection
    )
    config.write_text(yaml.safe_dump(ks_config))
    # scheduler-plugins' over-reserve cache lists the NRT objects once, when it starts.
    reserve_nodes = [f"{side}-reserve" for side in ("sp", "ks")]
    for name in reserve_nodes:
        api.request("POST", NRT_PATH, body=_nrt(name, RESERVE_ZONES))
    with scheduler_plugins(local_cluster, _config(SP, SP_RESERVE, SP_LEAST), name=SP):
        proc = start_kubesched(
            local_cluster.kubeconfig_path,
            f"--config={config}",
            workdir=workdir,
            name="kubesched-numa",
            token=local_cluster.admin_token,
        )
        try:
            proc.wait_ready()
            yield
        finally:
            proc.stop()
            for name in reserve_nodes:
                api.request("DELETE", f"{NRT_PATH}/{name}")


Zones = list[tuple[str, str, str]]
"""(cpu, memory, nics) available per NUMA zone."""
RESERVE_ZONES: Zones = [("6", "8Gi", "2"), ("6", "8Gi", "2")]


def _nrt(
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
        "zones": [_zone(i, len(zones), *zone) for i, zone in enumerate(zones)],
    }


def _zone(numa_id: int, count: int, cpu: str, memory: str, nics: str) -> dict[str, Any]:
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

    def node(self, name: str, zones: Zones, *, with_nrt: bool = True, **nrt: str) -> None:
        """A node (allocatable: its zones summed) and its NRT object (`policy`, `scope`)."""
        full = f"{self.prefix}-{name}"
        cpu = sum(int(z[0]) for z in zones)
        memory = sum(int(z[1].removesuffix("Gi")) for z in zones)
        nics = sum(int(z[2]) for z in zones)
        node = make_node().name(full).label(SIDE_LABEL, self.prefix)
        node = node.capacity_named({"cpu": str(cpu), "memory": f"{memory}Gi", NIC: str(nics)})
        self.api.create(node.capacity(pods="20").obj())
        if with_nrt:
            self.api.request("POST", NRT_PATH, body=_nrt(full, zones, **nrt))

    def guaranteed(
        self, name: str, cpu: str, memory: str, nics: str, *, scheduler: str = ""
    ) -> None:
        resources = {"cpu": cpu, "memory": memory, NIC: nics}
        pod = make_pod().name(name).scheduler(scheduler or self.scheduler)
        raw = pod.node_selector(**{SIDE_LABEL: self.prefix}).obj()
        raw["spec"]["containers"][0]["resources"] = {"requests": resources, "limits": resources}
        self.api.create(raw, namespace=self.namespace)

    def pod(self, name: str) -> dict[str, Any]:
        return self.api.get("Pod", name, namespace=self.namespace)

    def placed_on(self, name: str) -> str:
        pod = self.pod(name)
        return str(pod["spec"]["nodeName"]).removeprefix(f"{self.prefix}-") if is_bound(pod) else ""

    def why(self, name: str) -> str:
        """The PodScheduled=False message, the side's node prefix removed."""
        return unschedulable_message(self.pod(name))


@pytest.fixture
def sides(
    schedulers: None, api: ApiClient, new_namespace: Callable[..., str]
) -> Iterator[tuple[Side, Side]]:
    """(scheduler-plugins' side, kubesched's side), each with a fresh namespace and the same
    two nodes: `split` (two zones of 6 cpus) and `wide` (zones of 8 and 4 cpus)."""
    del schedulers
    pair = (Side(SP, new_namespace("sp"), api), Side(KS, new_namespace("ks"), api))
    for side in pair:
        side.node("split", [("6", "8Gi", "2"), ("6", "8Gi", "2")])
        side.node("wide", [("8", "8Gi", "2"), ("4", "8Gi", "2")])
    try:
        yield pair
    finally:
        for side in pair:
            for name in ("split", "wide"):
                api.request("DELETE", f"{NRT_PATH}/{side.prefix}-{name}")


def test_a_pod_no_single_zone_fits_is_refused_with_the_same_text(
    sides: tuple[Side, Side],
) -> None:
    """10 cpus fit both nodes' totals (12) but none of their zones. The nodes' reasons are
    compared; what PostFilter appends comes from the in-tree plugins of each release
    (v1.35's DynamicResources adds "no new claims to deallocate, "), so kubesched's is
    v1.37.2's."""
    for side in sides:
        side.guaranteed("big", cpu="10", memory="2Gi", nics="1")
    sp, ks = (
        wait_for(lambda s=s: s.why("big"), timeout=20, message=f"{s.scheduler}: big says why")
        for s in sides
    )
    reasons = (
        "0/4 nodes are available: 2 cannot align container, 2 node(s) didn't match Pod's "
        "node affinity/selector."
    )
    assert _node_reasons(sp) == _node_reasons(ks) == reasons
    assert ks == (
        f"{reasons} preemption: 0/4 nodes are available: 2 No preemption victims found for "
        "incoming pod, 2 Preemption is not helpful for scheduling."
    )
    kubesched_side = sides[1]
    events = wait_for(
        lambda: kubesched_side.api.events(kubesched_side.namespace, reason="FailedScheduling"),
        message="kubesched's FailedScheduling event",
    )
    assert {e.note for e in events} == {ks}


def _node_reasons(message: str) -> str:
    """The first sentence: the per-node reasons, before what PostFilter adds."""
    return message.split(". ", 1)[0] + "."


def test_a_pod_one_zone_fits_is_placed_there_by_both(sides: tuple[Side, Side]) -> None:
    """7 cpus fit only zone node-0 of `wide` (8 cpus); `split`'s zones have 6."""
    for side in sides:
        side.guaranteed("seven", cpu="7", memory="2Gi", nics="1")
    placed = [
        wait_for(
            lambda s=s: s.placed_on("seven"), timeout=20, message=f"{s.scheduler}: seven bound"
        )
        for s in sides
    ]
    assert placed == ["wide", "wide"]


def test_least_allocated_picks_the_same_node(sides: tuple[Side, Side]) -> None:
    """3 cpus, 2Gi, 1 nic fit both; each node scores its fullest zone: `split` (3 of 6 cpus)
    58, `wide` (its 4-cpu zone) 50."""
    for side in sides:
        side.guaranteed("three", cpu="3", memory="2Gi", nics="1")
    placed = [
        wait_for(
            lambda s=s: s.placed_on("three"), timeout=20, message=f"{s.scheduler}: three bound"
        )
        for s in sides
    ]
    assert placed == ["split", "split"]


@pytest.fixture
def reserve_sides(
    schedulers: None, api: ApiClient, new_namespace: Callable[..., str]
) -> tuple[Side, Side]:
    """Both sides with their `reserve` node (two zones of 6 cpus), whose NRT object both
    schedulers listed when they started."""
    del schedulers
    pair = (Side(SP, new_namespace("sp"), api), Side(KS, new_namespace("ks"), api))
    for side in pair:
        side.node("reserve", RESERVE_ZONES, with_nrt=False)
    return pair


def test_the_over_reserve_cache_waits_for_the_exporter(
    reserve_sides: tuple[Side, Side], api: ApiClient
) -> None:
    """5 cpus placed on `reserve` are taken from both zones (6 - 5 left in each): a second
    5-cpu pod cannot align until the exporter reports the first in zone node-0 with a
    fingerprint of the pods running there; then both schedulers place it. The fingerprint is
    signed by kubesched's implementation and checked by scheduler-plugins' Go one."""
    schedulers = {SP: SP_RESERVE, KS: KS_RESERVE}
    for side in reserve_sides:
        side.guaranteed(
            "first", cpu="5", memory="1Gi", nics="1", scheduler=schedulers[side.scheduler]
        )
    for side in reserve_sides:
        wait_for(lambda s=side: s.placed_on("first"), timeout=20, message="first bound")
        side.guaranteed(
            "second", cpu="5", memory="1Gi", nics="1", scheduler=schedulers[side.scheduler]
        )
    sp, ks = (
        wait_for(lambda s=s: s.why("second"), timeout=20, message=f"{s.scheduler}: refused")
        for s in reserve_sides
    )
    assert _node_reasons(sp) == _node_reasons(ks)
    assert "1 cannot align container" in _node_reasons(ks), ks
    for side in reserve_sides:  # the kubelet runs the first pod, the exporter reports it
        api.patch(
            "Pod",
            "first",
            {"status": {"phase": "Running"}},
            namespace=side.namespace,
            subresource="status",
        )
        signed = sign([(side.namespace, "first")])
        zones = [("1", "7Gi", "1"), RESERVE_ZONES[1]]
        body = _nrt(f"{side.prefix}-reserve", zones, fingerprint=signed)
        current = api.request("GET", f"{NRT_PATH}/{side.prefix}-reserve")
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        api.request("PUT", f"{NRT_PATH}/{side.prefix}-reserve", body=body)
    # The pod retried on that update may beat the next resync (both resync on their own
    # period); the exporter's next periodic report, a resync period later, brings it back.
    time.sleep(1.5)
    for side in reserve_sides:
        nudge = {"metadata": {"annotations": {"example.com/report": "periodic"}}}
        api.request(
            "PATCH",
            f"{NRT_PATH}/{side.prefix}-reserve",
            body=nudge,
            content_type="application/merge-patch+json",
        )
    placed = [
        wait_for(lambda s=s: s.placed_on("second"), timeout=20, message=f"{s.scheduler}: second")
        for s in reserve_sides
    ]
    assert placed == ["reserve", "reserve"]


@pytest.fixture
def least_sides(
    schedulers: None, api: ApiClient, new_namespace: Callable[..., str]
) -> Iterator[tuple[Side, Side]]:
    """Both sides with two best-effort, pod-scope nodes of four zones: `near` has 3 cpus on
    zones 0 and 1 (a close pair), `far` on zones 0 and 2 (across)."""
    del schedulers
    pair = (Side(SP, new_namespace("sp"), api), Side(KS, new_namespace("ks"), api))
    shapes = {"near": ("3", "3", "1", "1"), "far": ("3", "1", "3", "1")}
    for side in pair:
        for name, cpus in shapes.items():
            zones = [(cpu, "4Gi", "1") for cpu in cpus]
            side.node(name, zones, policy="best-effort", scope="pod")
    try:
        yield pair
    finally:
        for side in pair:
            for name in shapes:
                api.request("DELETE", f"{NRT_PATH}/{side.prefix}-{name}")


def test_least_numa_nodes_picks_the_closest_zones_alike(
    least_sides: tuple[Side, Side],
) -> None:
    """5 cpus need two zones on either node: `near`'s two are the closest pair (distance 11:
    82), `far`'s are not (15: 76)."""
    for side in least_sides:
        side.guaranteed(
            "five", cpu="5", memory="2Gi", nics="1", scheduler=f"{side.prefix}-numa-least"
        )
    placed = [
        wait_for(lambda s=s: s.placed_on("five"), timeout=20, message=f"{s.scheduler}: five bound")
        for s in least_sides
    ]
    assert placed == ["near", "near"]
