"""NodeResourceTopologyMatch side by side with scheduler-plugins' own build (v0.35.4-devel,
the second oracle), on the real control plane: the NodeResourceTopology CRD that
`kubesched manifests --with-crds` ships, nodes and NRT objects written as the
resource-topology exporter writes them (zones with cpu, memory and a device, distances,
`single-numa-node` at container scope), one copy of each for each scheduler (its pods select
its side's nodes), and the same Guaranteed pods decided by each.

A pod that fits a node's total but no single zone of it is refused with the same
FailedScheduling text on both sides (`cannot align container`); a pod that fits one zone of
one node only is placed there by both, and LeastAllocated picks the same node of two that fit.
NRT objects that disagree with their node's allocatable are read alike (the zones by the
topology, the allocatable by NodeResourcesFit).
With the over-reserve cache (a second profile, `cacheResyncPeriodSeconds: 1`), a pod placed on
a node is taken from every zone until the exporter's update, whose pod-set fingerprint matches
the pods running there, lets the next pod in. LeastNUMANodes (a third profile) prefers the
closest zones alike; seeded random zones, policies and pods are decided alike. The in-tree
scorers differ between the two releases (v1.35 vs v1.37.2): every profile runs
NodeResourceTopologyMatch as its only scorer (helpers: tests/e2e/harness/nrt_sides.py).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.manifests.crd_topology import node_resource_topology_crd
from kubesched.plugins.node_resource_topology.fingerprint import sign
from tests.e2e.harness import ApiClient, ApiError, wait_for
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.nrt_sides import (
    CRD_PATH,
    NRT_PATH,
    POLICIES,
    Side,
    Zones,
    config,
    node_reasons,
    nrt_object,
    random_pod,
    random_zones,
)
from tests.e2e.harness.scheduler_plugins import scheduler_plugins

SP, KS = "sp-numa", "ks-numa"
SP_RESERVE, KS_RESERVE = "sp-numa-reserve", "ks-numa-reserve"
SP_LEAST, KS_LEAST = "sp-numa-least", "ks-numa-least"
RESERVE_ZONES: Zones = [("6", "8Gi", "2"), ("6", "8Gi", "2")]


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
    ks_path = workdir / "ks.yaml"
    election = {"leaderElect": True, "resourceNamespace": "kube-system", "resourceName": KS}
    connection = {"kubeconfig": str(local_cluster.kubeconfig_path)}
    ks_config = config(
        KS, KS_RESERVE, KS_LEAST, leaderElection=election, clientConnection=connection
    )
    ks_path.write_text(yaml.safe_dump(ks_config))
    # scheduler-plugins' over-reserve cache lists the NRT objects once, when it starts.
    reserve_nodes = [f"{side}-reserve" for side in ("sp", "ks")]
    for name in reserve_nodes:
        api.request("POST", NRT_PATH, body=nrt_object(name, RESERVE_ZONES))
    with scheduler_plugins(local_cluster, config(SP, SP_RESERVE, SP_LEAST), name=SP):
        proc = start_kubesched(
            local_cluster.kubeconfig_path,
            f"--config={ks_path}",
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
    assert node_reasons(sp) == node_reasons(ks) == reasons
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


def test_an_nrt_object_that_disagrees_with_the_node_is_read_alike(
    sides: tuple[Side, Side],
) -> None:
    """Two more nodes whose NRT objects disagree with their allocatable: `over` reports
    zones of 10 cpus on a node of 4 (NodeResourcesFit refuses 9 cpus), `under` zones of 2
    on a node of 16 (the zones refuse them). Each plugin reads its own source on both."""
    for side in sides:
        side.node("over", [("10", "8Gi", "2"), ("10", "8Gi", "2")], cpu=4)
        side.node("under", [("2", "8Gi", "2"), ("2", "8Gi", "2")], cpu=16)
        side.guaranteed("nine", cpu="9", memory="2Gi", nics="1")
    try:
        sp, ks = (
            wait_for(lambda s=s: s.why("nine"), timeout=20, message=f"{s.scheduler}: nine")
            for s in sides
        )
        assert (
            node_reasons(sp)
            == node_reasons(ks)
            == (
                "0/8 nodes are available: 1 Insufficient cpu, 3 cannot align container, "
                "4 node(s) didn't match Pod's node affinity/selector."
            )
        )
    finally:
        for side in sides:
            for name in ("over", "under"):
                side.api.request("DELETE", f"{NRT_PATH}/{side.prefix}-{name}")


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
    assert node_reasons(sp) == node_reasons(ks)
    assert "1 cannot align container" in node_reasons(ks), ks
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
        body = nrt_object(f"{side.prefix}-reserve", zones, fingerprint=signed)
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


@pytest.mark.parametrize("seed", [67])
def test_random_pods_on_random_topologies_are_decided_alike(
    seed: int, schedulers: None, api: ApiClient, new_namespace: Callable[..., str]
) -> None:
    """Three nodes of random zones and policies on each side, then random pods one at a
    time (each deleted once decided): bound on both sides or refused on both with the same
    node reasons. Seed 67 gives seven placed pods and three that no zone aligns."""
    del schedulers
    rng = random.Random(seed)
    pair = (Side(SP, new_namespace("sp"), api), Side(KS, new_namespace("ks"), api))
    shapes = [(f"r{i}", random_zones(rng), rng.choice(POLICIES)) for i in range(3)]
    for side in pair:
        for name, zones, (policy, scope) in shapes:
            side.node(name, zones, policy=policy, scope=scope)
    outcomes: list[str] = []
    try:
        for round_ in range(10):
            state = rng.getstate()
            for side in pair:
                rng.setstate(state)  # the same pod on both sides
                side.create(random_pod(rng, side.scheduler, side.prefix))
            decided = [
                wait_for(lambda s=s: s.decision("random"), timeout=20, message=f"round {round_}")
                for s in pair
            ]
            assert decided[0] == decided[1], (round_, decided)
            outcomes.append(decided[0])
            for side in pair:
                side.remove("random")
        assert "bound" in outcomes, outcomes
        assert any("cannot align" in o for o in outcomes), outcomes
    finally:
        for side in pair:
            for name, _, _ in shapes:
                api.request("DELETE", f"{NRT_PATH}/{side.prefix}-{name}")
