"""A NodeResourceTopology object that disagrees with the node's allocatable, as
scheduler-plugins v0.35.4-devel decides it (`filter.go`, `numaresources.go`): Filter aligns
on the zones' `available` amounts only, asking the node's allocatable just whether a
requested resource exists there at all (`util.ResourceList(nodeInfo.GetAllocatable())`:
cpu, memory, pods and ephemeral-storage always, scalars when the node lists them, even at
0); NodeResourcesFit, a separate Filter plugin, still checks the allocatable. A node passes
only if both do, so each case gives both plugins' verdicts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.model import Pod
from kubesched.plugins import NodeResourcesFit
from kubesched.testing import FakeHandle, make_node
from tests.unit.plugins.node_resource_topology.nrt import (
    nrt,
    plugin_over,
    pod,
    zone_named,
)

NIC = "vendor/nic1"
HP = "hugepages-2Mi"
FITS = ""
NO_CONTAINER = "cannot align container"
NO_POD = "cannot align pod"
CONTAINER = "SingleNUMANodeContainerLevel"
POD = "SingleNUMANodePodLevel"
Resources = Mapping[str, str]


def _node(allocatable: Resources) -> NodeInfo:
    return NodeInfo(make_node().name("n").capacity_named({"pods": "110", **allocatable}).model())


def _nrt_verdict(zones: Sequence[Resources], policy: str, candidate: Pod, node: NodeInfo) -> str:
    obj = nrt("n", [zone_named(i, z) for i, z in enumerate(zones)], policy=policy)
    status = plugin_over([obj]).filter(CycleState(), candidate, node)
    if status is None:
        return FITS
    assert status.code is Code.UNSCHEDULABLE
    return status.message


def _fit_verdict(candidate: Pod, node: NodeInfo) -> str:
    status = NodeResourcesFit(args={}, handle=FakeHandle()).filter(CycleState(), candidate, node)
    return FITS if status is None or status.code is Code.SUCCESS else status.message


ZONES_8_8 = [{"cpu": "8", "memory": "16Gi"}, {"cpu": "8", "memory": "16Gi"}]
ZONES_2_2 = [{"cpu": "2", "memory": "4Gi"}, {"cpu": "2", "memory": "4Gi"}]
CASES = [
    # The zones sum to more than the allocatable: the zones let the pod in, the allocatable
    # does not.
    ("zones above allocatable", ZONES_8_8, {"cpu": "4", "memory": "8Gi"},
     pod({"cpu": "6", "memory": "2Gi"}), FITS, "Insufficient cpu"),
    ("zones above allocatable, fits both", ZONES_8_8, {"cpu": "4", "memory": "8Gi"},
     pod({"cpu": "2", "memory": "2Gi"}), FITS, FITS),
    # The zones sum to less: the allocatable lets the pod in, no zone does.
    ("zones below allocatable", ZONES_2_2, {"cpu": "16", "memory": "32Gi"},
     pod({"cpu": "3", "memory": "1Gi"}), NO_CONTAINER, FITS),
    ("zones below allocatable, pod scope", ZONES_2_2, {"cpu": "16", "memory": "32Gi"},
     pod({"cpu": "3", "memory": "1Gi"}), NO_POD, FITS),
    # Only Guaranteed pods get exclusive cpu: a Burstable one fits any zone listing cpu.
    ("zones below allocatable, burstable", ZONES_2_2, {"cpu": "16", "memory": "32Gi"},
     pod({"cpu": "3", "memory": "1Gi"}, requests_only=True), FITS, FITS),
    # A zone names a device the node does not report: taken as absent (early verdict).
    ("zone device the node lacks", [{"cpu": "4", "memory": "4Gi", NIC: "4"}],
     {"cpu": "4", "memory": "4Gi"}, pod({"cpu": "1", "memory": "1Gi", NIC: "1"}),
     NO_CONTAINER, f"Insufficient {NIC}"),
    ("zone device the node lacks, not asked", [{"cpu": "4", "memory": "4Gi", NIC: "4"}],
     {"cpu": "4", "memory": "4Gi"}, pod({"cpu": "1", "memory": "1Gi"}), FITS, FITS),
    ("zone hugepages the node lacks", [{"cpu": "4", "memory": "4Gi", HP: "1Gi"}],
     {"cpu": "4", "memory": "4Gi"}, pod({"cpu": "1", "memory": "1Gi", HP: "4Mi"}),
     NO_CONTAINER, f"Insufficient {HP}"),
    # The node reports a device at 0: it exists, so the zones decide for the topology.
    ("node device at zero, zones list it", [{"cpu": "4", "memory": "4Gi", NIC: "4"}],
     {"cpu": "4", "memory": "4Gi", NIC: "0"}, pod({"cpu": "1", "memory": "1Gi", NIC: "1"}),
     FITS, f"Insufficient {NIC}"),
    # The node reports a device no zone lists: a device may have no NUMA affinity.
    ("node device no zone lists", [{"cpu": "4", "memory": "4Gi"}],
     {"cpu": "4", "memory": "4Gi", NIC: "2"}, pod({"cpu": "1", "memory": "1Gi", NIC: "3"}),
     FITS, f"Insufficient {NIC}"),
    # cpu no zone lists never aligns: it must have NUMA affinity, whatever the QoS.
    ("node cpu no zone lists", [{"memory": "4Gi"}], {"cpu": "4", "memory": "4Gi"},
     pod({"cpu": "1", "memory": "1Gi"}), NO_CONTAINER, FITS),
    ("node cpu no zone lists, burstable", [{"memory": "4Gi"}], {"cpu": "4", "memory": "4Gi"},
     pod({"cpu": "1", "memory": "1Gi"}, requests_only=True), NO_CONTAINER, FITS),
    # ephemeral-storage is always "on the node" (0 when unreported) and host-level.
    ("ephemeral storage the node lacks", [{"cpu": "4", "memory": "4Gi"}],
     {"cpu": "4", "memory": "4Gi"},
     pod({"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}),
     FITS, "Insufficient ephemeral-storage"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("zones", "allocatable", "candidate", "topology", "fit"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_a_disagreeing_object_is_decided_as_scheduler_plugins(
    zones: Sequence[Resources], allocatable: Resources, candidate: Pod, topology: str, fit: str
) -> None:
    policy = POD if topology == NO_POD else CONTAINER
    node = _node(allocatable)

    assert _nrt_verdict(zones, policy, candidate, node) == topology
    assert _fit_verdict(candidate, node) == fit


def test_the_zones_decide_not_the_allocatable_used() -> None:
    """Pods already on the node (the allocatable side) do not change what the zones hold:
    the plugin reads the exporter's `available` amounts only."""
    node = _node({"cpu": "4", "memory": "8Gi"})
    node.add_pod(pod({"cpu": "4", "memory": "1Gi"}))
    candidate = pod({"cpu": "6", "memory": "1Gi"})

    assert _nrt_verdict(ZONES_8_8, CONTAINER, candidate, node) == FITS
    assert NodeResourcesFit(args={}, handle=FakeHandle()).filter(
        CycleState(), candidate, node
    ) == Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient cpu")
