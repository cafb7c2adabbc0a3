"""NodeResourceTopologyMatch's Filter, case by case as scheduler-plugins' own filter tests
(`TestNodeResourceTopology`, `TestNodeResourceTopologyMultiContainer*`): the same nodes, NRT
objects, pods and verdicts."""

from __future__ import annotations

import pytest

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.model import Pod
from tests.unit.plugins.node_resource_topology.nrt import (
    node_for,
    nrt,
    plugin_over,
    pod,
    pod_with_limits,
    zone,
    zone_named,
)

NIC = "vendor/nic1"
NIC_NO_NUMA = "vendor.com/old-nic-model"
MISSING_NIC = "vendor/notexistingnic"
EXTENDED = "namespace/extended"
HP = "hugepages-2Mi"
CONTAINER = "SingleNUMANodeContainerLevel"
POD = "SingleNUMANodePodLevel"

NRTS = [
    nrt(
        "node1",
        [
            zone_named(0, {"cpu": "4", "memory": "8Gi", NIC: "10"}),
            zone_named(1, {"cpu": "8", "memory": "8Gi", NIC: "10"}),
        ],
        policy=CONTAINER,
    ),
    nrt(
        "node2",
        [
            zone_named(0, {"cpu": "2", "memory": "4Gi", HP: "128Mi", NIC: "5"}),
            zone_named(1, {"cpu": "4", "memory": "4Gi", HP: "128Mi", NIC: "2"}),
        ],
        policy=CONTAINER,
    ),
    nrt(
        "node3",
        [
            zone_named(0, {"cpu": "2", "memory": "4Gi", NIC: "5"}),
            zone_named(1, {"cpu": "4", "memory": "4Gi", NIC: "2"}),
        ],
        policy=POD,
    ),
    nrt(
        "badly-formed",
        [
            zone_named(0, {"cpu": "2", "memory": "4Gi", NIC: "5"}),
            zone_named(75, {"cpu": "4", "memory": "4Gi", NIC: "2"}),
        ],
        policy=POD,
    ),
    nrt(
        "extended",
        [
            zone_named(0, {"cpu": "4", "memory": "8Gi", NIC: "10"}),
            zone_named(1, {"cpu": "8", "memory": "8Gi", NIC: "10"}),
        ],
        policy=CONTAINER,
    ),
]
NODES = [
    node_for(NRTS[0]),
    node_for(NRTS[1], {NIC_NO_NUMA: "4"}),
    node_for(NRTS[2]),
    node_for(NRTS[3]),
    node_for(NRTS[4], {EXTENDED: "1"}),
]
PLUGIN = plugin_over(NRTS)
FITS = ""
NO_CONTAINER = "cannot align container"
NO_POD = "cannot align pod"


def _verdict(candidate: Pod, node: NodeInfo) -> str:
    status = PLUGIN.filter(CycleState(), candidate, node)
    if status is None:
        return FITS
    assert status.code is Code.UNSCHEDULABLE
    return status.message


CASES = [
    (
        "gu extended resource fit",
        pod({"cpu": "2", "memory": "2Gi", EXTENDED: "1", NIC: "3"}),
        4,
        FITS,
    ),
    ("gu extended no devices fit", pod({"cpu": "2", "memory": "2Gi", EXTENDED: "1"}), 4, FITS),
    ("best effort fit", pod({}), 0, FITS),
    ("be devices pod scope fit", pod({NIC: "5"}), 2, FITS),
    ("be devices pod scope no fit", pod({NIC: "20"}), 2, NO_POD),
    ("be devices container scope fit", pod({NIC: "5"}), 1, FITS),
    ("be devices container scope no fit", pod({NIC: "20"}), 0, NO_CONTAINER),
    ("be devices and extended container scope", pod({EXTENDED: "1", NIC: "10"}), 4, FITS),
    (
        "bu cpu memory ok devices short, container scope",
        pod_with_limits(
            {"cpu": "3", "memory": "3Gi", NIC: "11"}, {"cpu": "4", "memory": "4Gi", NIC: "11"}
        ),
        1,
        NO_CONTAINER,
    ),
    (
        "bu cpu memory ok devices short, pod scope",
        pod_with_limits(
            {"cpu": "1", "memory": "1Gi", NIC: "6"}, {"cpu": "2", "memory": "2Gi", NIC: "6"}
        ),
        2,
        NO_POD,
    ),
    (
        "bu cpu memory beyond a zone, pod scope fit",
        pod_with_limits(
            {"cpu": "19", "memory": "5Gi", NIC: "5"}, {"cpu": "20", "memory": "6Gi", NIC: "5"}
        ),
        2,
        FITS,
    ),
    (
        "bu cpu memory beyond a zone, container scope fit",
        pod_with_limits(
            {"cpu": "5", "memory": "5Gi", NIC: "5"}, {"cpu": "6", "memory": "6Gi", NIC: "5"}
        ),
        1,
        FITS,
    ),
    ("gu minimal fit", pod({"cpu": "2", "memory": "2Gi"}), 0, FITS),
    ("gu saturating zone fit", pod({"cpu": "8", "memory": "8Gi"}), 0, FITS),
    (
        "gu zero of an unavailable resource",
        pod({"cpu": "2", "memory": "2Gi", HP: "0", NIC: "3"}),
        0,
        FITS,
    ),
    ("gu fit", pod({"cpu": "2", "memory": "2Gi", NIC: "3"}), 1, FITS),
    ("gu hugepages fit", pod({"cpu": "2", "memory": "2Gi", HP: "64Mi", NIC: "3"}), 1, FITS),
    ("bu fit", pod({"cpu": "4", NIC: "3"}), 1, FITS),
    ("bu cpu devices short, container scope", pod({"cpu": "4", NIC: "11"}), 1, NO_CONTAINER),
    ("bu cpu devices short, pod scope", pod({"cpu": "2", NIC: "6"}), 2, NO_POD),
    ("bu cpu beyond a zone, pod scope fit", pod({"cpu": "20", NIC: "5"}), 2, FITS),
    (
        "bu memory devices short, container scope",
        pod({"memory": "2Gi", NIC: "11"}),
        1,
        NO_CONTAINER,
    ),
    ("bu memory beyond a zone, container scope", pod({"memory": "5Gi", NIC: "5"}), 1, FITS),
    (
        "bu requests only, devices short, pod scope",
        pod({"cpu": "2", "memory": "2Gi", NIC: "6"}, requests_only=True),
        2,
        NO_POD,
    ),
    (
        "bu requests only beyond a zone, pod scope fit",
        pod({"cpu": "20", "memory": "5Gi", NIC: "5"}, requests_only=True),
        2,
        FITS,
    ),
    ("bu extended fit", pod({EXTENDED: "1", "cpu": "4", NIC: "3"}), 4, FITS),
    (
        "gu hugepages no fit",
        pod({"cpu": "2", "memory": "2Gi", HP: "256Mi", NIC: "3"}),
        1,
        NO_CONTAINER,
    ),
    ("gu cpu no fit", pod({"cpu": "9", "memory": "1Gi", NIC: "3"}), 0, NO_CONTAINER),
    ("gu zero of a missing device", pod({"cpu": "2", "memory": "1Gi", MISSING_NIC: "0"}), 0, FITS),
    (
        "gu pod scope three containers no fit",
        pod(*[{"cpu": "3", "memory": "1Gi", MISSING_NIC: "0"}] * 3),
        2,
        NO_POD,
    ),
    ("gu pod scope minimal fit", pod({"cpu": "1", "memory": "1Gi"}), 2, FITS),
    ("gu pod scope saturating zone fit", pod({"cpu": "2", "memory": "4Gi"}), 3, FITS),
    ("gu pod scope three containers fit", pod(*[{"cpu": "1", "memory": "1Gi"}] * 3), 2, FITS),
    ("gu pod scope zone 75 left out", pod(*[{"cpu": "1", "memory": "1Gi"}] * 3), 3, NO_POD),
    (
        "gu hugepages and a device without NUMA affinity",
        pod({"cpu": "2", "memory": "2Gi", HP: "64Mi", NIC_NO_NUMA: "3"}),
        1,
        FITS,
    ),
    (
        "gu ephemeral storage",
        pod({"cpu": "2", "memory": "2Gi", "ephemeral-storage": "100Mi"}),
        1,
        FITS,
    ),
]


@pytest.mark.parametrize(
    ("candidate", "node", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_filter_as_scheduler_plugins(candidate: Pod, node: int, expected: str) -> None:
    assert _verdict(candidate, NODES[node]) == expected


def test_containers_take_their_zone_from_the_next_ones() -> None:
    """Container scope: two 3-cpu containers fit zone 1 (8 cpus) once, zone 0 (4) once."""
    two = pod({"cpu": "3", "memory": "1Gi"}, {"cpu": "3", "memory": "1Gi"})
    three = pod(*[{"cpu": "3", "memory": "1Gi"}] * 3)

    assert _verdict(two, NODES[0]) == FITS
    assert _verdict(three, NODES[0]) == FITS  # 8 = 3 + 3 on node-1, then 3 on node-0
    assert _verdict(pod(*[{"cpu": "3", "memory": "1Gi"}] * 4), NODES[0]) == NO_CONTAINER


@pytest.mark.parametrize(
    ("sidecar", "expected"),
    [(False, "cannot align init container"), (True, "cannot align sidecar container")],
)
def test_an_init_container_is_checked_alone(sidecar: bool, expected: str) -> None:
    """Init containers run one after the other: each alone on a zone, none subtracted."""
    too_big = pod(
        {"cpu": "1", "memory": "1Gi"}, init=[{"cpu": "9", "memory": "1Gi"}], sidecar=sidecar
    )
    fits = pod({"cpu": "8", "memory": "1Gi"}, init=[{"cpu": "8", "memory": "1Gi"}] * 2)

    assert _verdict(too_big, NODES[0]) == expected
    assert _verdict(fits, NODES[0]) == FITS


def test_a_node_without_an_nrt_object_passes() -> None:
    bare = node_for(nrt("no-nrt", [zone(0, cpu="1", memory="1Gi")]))

    assert _verdict(pod({"cpu": "8", "memory": "8Gi"}), bare) == FITS


@pytest.mark.parametrize(
    "policy", ["BestEffortContainerLevel", "RestrictedPodLevel", "None", "bogus"]
)
def test_other_policies_pass(policy: str) -> None:
    obj = nrt("relaxed", [zone(0, cpu="1", memory="1Gi")], policy=policy)

    status = plugin_over([obj]).filter(
        CycleState(), pod({"cpu": "8", "memory": "8Gi"}), node_for(obj)
    )

    assert status is None


def test_attributes_override_the_deprecated_policies() -> None:
    obj = nrt(
        "attrs",
        [zone(0, cpu="2", memory="4Gi"), zone(1, cpu="2", memory="4Gi")],
        policy="BestEffortContainerLevel",
        attributes={"topologyManagerPolicy": "single-numa-node", "topologyManagerScope": "pod"},
    )
    candidate = pod({"cpu": "2", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})

    status = plugin_over([obj]).filter(CycleState(), candidate, node_for(obj))

    assert status == Status(Code.UNSCHEDULABLE, NO_POD)


def test_a_device_the_node_does_not_report_never_aligns() -> None:
    """An NRT object that disagrees with the node: a device the zones list but the node's
    allocatable lacks is taken as absent (upstream's early verdict), whatever the zones say."""
    obj = nrt(
        "disagrees", [zone_named(0, {"cpu": "4", "memory": "4Gi", NIC: "4"})], policy=CONTAINER
    )
    node = node_for(nrt("disagrees", [zone_named(0, {"cpu": "4", "memory": "4Gi"})]))
    candidate = pod({"cpu": "1", "memory": "1Gi", NIC: "1"})

    status = plugin_over([obj]).filter(CycleState(), candidate, node)

    assert status == Status(Code.UNSCHEDULABLE, NO_CONTAINER)
    assert _verdict(pod({"cpu": "1", "memory": "1Gi", MISSING_NIC: "1"}), NODES[0]) == NO_CONTAINER
