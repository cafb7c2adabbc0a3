"""NodeResourceTopologyMatch side by side with scheduler-plugins' own build (v0.35.4-devel,
the second oracle), on the real control plane: the NodeResourceTopology CRD that
`kubesched manifests --with-crds` ships, nodes and NRT objects written as the
resource-topology exporter writes them (zones with cpu, memory and a device, distances,
`single-numa-node` at container scope), one copy of each for each scheduler (its pods select
its side's nodes), and the same Guaranteed pods decided by each.

A pod that fits a node's total but no single zone of it is refused with the same
FailedScheduling text on both sides (`cannot align container`); a pod that fits one zone of
one node only is placed there by both. The in-tree scorers differ between the two releases
(v1.35 vs v1.37.2): both profiles run NodeResourceTopologyMatch as their only scorer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.manifests.crd_topology import node_resource_topology_crd
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, ApiError, is_bound, unschedulable_message, wait_for
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.scheduler_plugins import scheduler_plugins

SP, KS = "sp-numa", "ks-numa"
SIDE_LABEL = "parity.kubesched.io/side"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
NRT_PATH = "/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies"
NIC = "example.com/nic"
PLUGIN = "NodeResourceTopologyMatch"


def _profile(name: str) -> dict[str, Any]:
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
        "pluginConfig": [{"name": PLUGIN, "args": {"scoringStrategy": {"type": "LeastAllocated"}}}],
    }


def _config(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [_profile(name)],
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
    nrt_crd: None, local_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """scheduler-plugins' scheduler and kubesched, each with its NUMA-aware profile."""
    workdir = tmp_path_factory.mktemp("numa")
    config = workdir / "ks.yaml"
    election = {"leaderElect": True, "resourceNamespace": "kube-system", "resourceName": KS}
    connection = {"kubeconfig": str(local_cluster.kubeconfig_path)}
    ks_config = _config(KS, leaderElection=election, clientConnection=connection)
    config.write_text(yaml.safe_dump(ks_config))
    with scheduler_plugins(local_cluster, _config(SP), name=SP):
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


def _zone(numa_id: int, cpu: str, memory: str, nics: str) -> dict[str, Any]:
    """A NUMA zone as the exporter reports it: capacity, allocatable, available."""
    resources = [
        {"name": name, "capacity": amount, "allocatable": amount, "available": amount}
        for name, amount in (("cpu", cpu), ("memory", memory), (NIC, nics))
    ]
    costs = [{"name": f"node-{i}", "value": 10 if i == numa_id else 20} for i in (0, 1)]
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

    def node(self, name: str, zones: list[tuple[str, str, str]]) -> None:
        """A node (allocatable: its zones summed) and its NRT object."""
        full = f"{self.prefix}-{name}"
        cpu = sum(int(z[0]) for z in zones)
        memory = sum(int(z[1].removesuffix("Gi")) for z in zones)
        nics = sum(int(z[2]) for z in zones)
        node = make_node().name(full).label(SIDE_LABEL, self.prefix)
        node = node.capacity_named({"cpu": str(cpu), "memory": f"{memory}Gi", NIC: str(nics)})
        self.api.create(node.capacity(pods="20").obj())
        body = {
            "apiVersion": "topology.node.k8s.io/v1alpha2",
            "kind": "NodeResourceTopology",
            "metadata": {"name": full},
            "attributes": [
                {"name": "topologyManagerPolicy", "value": "single-numa-node"},
                {"name": "topologyManagerScope", "value": "container"},
            ],
            "zones": [_zone(i, *zone) for i, zone in enumerate(zones)],
        }
        self.api.request("POST", NRT_PATH, body=body)

    def guaranteed(self, name: str, cpu: str, memory: str, nics: str) -> None:
        resources = {"cpu": cpu, "memory": memory, NIC: nics}
        pod = make_pod().name(name).scheduler(self.scheduler)
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
        api.request("DELETE", NRT_PATH)


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
