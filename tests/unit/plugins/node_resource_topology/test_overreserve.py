"""The over-reserve cache as scheduler-plugins' cache tests exercise it (`overreserve_test.go`:
reserve/unreserve taken from every zone, dirty nodes, foreign pods, resync on a matching
pod-set fingerprint, flush) and the fingerprint's own test vectors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.framework import Code, CycleState, Status
from kubesched.model import ApiObject, Pod
from kubesched.plugins.node_resource_topology.fingerprint import sign, xxh64
from kubesched.plugins.node_resource_topology.overreserve import CacheSettings, OverReserve
from kubesched.testing import make_pod
from tests.unit.plugins.node_resource_topology.nrt import (
    node_for,
    nrt,
    plugin_over,
    pod,
    zone_named,
)

NIC = "vendor/nic1"


def _topology(name: str, **attributes: str) -> dict[str, Any]:
    zones = [zone_named(i, {"cpu": "30", "memory": "60Gi", NIC: "16"}) for i in (0, 1)]
    return nrt(name, zones, policy="SingleNUMANodeContainerLevel", attributes=attributes)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _cache(
    objects: list[dict[str, Any]], pods: list[Pod] | None = None, **settings: Any
) -> tuple[OverReserve, dict[str, ApiObject], Clock]:
    current = {o["metadata"]["name"]: ApiObject.from_json(o) for o in objects}
    clock = Clock()
    cache = OverReserve(
        CacheSettings(resync_period_seconds=5, **settings),
        current=current.get,
        pods=lambda: list(pods or []),
        now=clock,
    )
    for obj in current.values():
        cache.topology_changed(None, obj)
    return cache, current, clock


def _bound(name: str, node: str, *, phase: str = "Running", namespace: str = "namespace1") -> Pod:
    raw = make_pod().name(name).namespace(namespace).node(node).obj()
    raw["status"] = {"phase": phase}
    return Pod.from_json(raw)


GUARANTEED_8 = {"cpu": "8", "memory": "16Gi"}


def _available(body: Mapping[str, Any] | None) -> set[tuple[str, str]]:
    assert body is not None
    return {(r["name"], r["available"]) for z in body["zones"] for r in z["resources"]}


def test_a_reservation_is_taken_from_every_zone_until_unreserved() -> None:
    cache, _, _ = _cache([_topology("node1")])
    candidate = pod(GUARANTEED_8)

    cache.reserve("node1", candidate)
    body, fresh = cache.topology("node1")

    assert fresh
    assert _available(body) == {
        ("cpu", "22000m"),
        ("memory", f"{44 * 1024**3 * 1000}m"),
        (NIC, "16"),
    }
    cache.unreserve("node1", candidate)
    assert _available(cache.topology("node1")[0]) == {
        ("cpu", "30"),
        ("memory", "60Gi"),
        (NIC, "16"),
    }


def test_a_refused_node_is_dirty_until_a_reserve() -> None:
    cache, _, _ = _cache([_topology("node1"), _topology("node2")])

    cache.maybe_over_reserved("node1")
    cache.maybe_over_reserved("node1")
    assert set(cache.refused) == {"node1"}
    cache.reserve("node1", pod(GUARANTEED_8))
    assert not cache.refused


def test_foreign_pods_leave_the_node_out_and_unknown_nodes_alone() -> None:
    cache, _, _ = _cache([_topology("node1"), _topology("node2")])

    cache.pod_changed(None, _bound("other", "node2"))
    cache.pod_changed(None, _bound("elsewhere", "node9"))

    assert set(cache.foreign) == {"node2"}
    assert cache.topology("node2") == (None, False)
    assert cache.topology("node1")[1]


def test_own_pods_are_not_foreign() -> None:
    cache, _, _ = _cache([_topology("node1")])
    candidate = pod(GUARANTEED_8)

    cache.reserve("node1", candidate)
    cache.pod_changed(None, candidate.on_node("node1"))

    assert not cache.foreign


def test_a_resync_flushes_a_dirty_node_whose_fingerprint_matches() -> None:
    """namespace1/pod1 signs as pfp0v0019e0420efb37746c6 (upstream's own vector)."""
    running = _bound("pod1", "node1")
    cache, current, clock = _cache([_topology("node1")], [running])
    cache.reserve("node1", pod(GUARANTEED_8))
    cache.maybe_over_reserved("node1")
    updated = _topology("node1", nodeTopologyPodsFingerprint="pfp0v0019e0420efb37746c6")
    updated["zones"][1]["resources"][0]["available"] = "22"
    current["node1"] = ApiObject.from_json(updated)

    cache.topology("node1")  # the first read resyncs
    clock.now += 1

    assert (cache.refused, cache.assumed, cache.generation) == ({}, {}, 1)
    assert _available(cache.topology("node1")[0]) == {
        ("cpu", "30"),
        ("cpu", "22"),
        ("memory", "60Gi"),
        (NIC, "16"),
    }


def test_a_resync_keeps_a_node_whose_fingerprint_does_not_match() -> None:
    cache, current, _ = _cache([_topology("node1")], [_bound("pod2", "node1")])
    cache.maybe_over_reserved("node1")
    current["node1"] = ApiObject.from_json(
        _topology("node1", nodeTopologyPodsFingerprint="pfp0v0019e0420efb37746c6")
    )

    cache.resync()

    assert (set(cache.refused), cache.generation) == ({"node1"}, 0)


def test_pending_pods_do_not_count_and_the_period_is_kept() -> None:
    pending = _bound("pod1", "node1", phase="Pending")
    cache, current, clock = _cache([_topology("node1")], [pending])
    cache.maybe_over_reserved("node1")
    current["node1"] = ApiObject.from_json(_topology("node1", nodeTopologyPodsFingerprint=sign([])))

    cache.topology("node1")
    assert cache.generation == 1  # no pod counted: the empty set's signature matches
    cache.maybe_over_reserved("node1")
    clock.now += 4
    cache.topology("node1")
    assert cache.refused  # not due before 5 s
    clock.now += 1
    cache.topology("node1")
    assert not cache.refused


def test_a_topology_manager_change_is_flushed_without_a_fingerprint() -> None:
    cache, current, _ = _cache([_topology("node1")])
    changed = ApiObject.from_json(
        _topology("node1", topologyManagerPolicy="best-effort", topologyManagerScope="pod")
    )
    current["node1"] = changed

    cache.topology_changed(current["node1"], changed)
    cache.resync()

    assert cache.generation == 1
    assert cache.trusted["node1"] is changed.body


def test_the_plugin_runs_the_cache_from_its_args() -> None:
    obj = _topology("node1")
    plugin = plugin_over([obj], {"cacheResyncPeriodSeconds": 5})
    node, big = node_for(obj), pod({"cpu": "20", "memory": "1Gi"})

    assert plugin.filter(CycleState(), big, node) is None
    plugin.reserve(CycleState(), big, "node1")  # 30 - 20 left in both zones
    assert plugin.filter(CycleState(), big, node) == Status(
        Code.UNSCHEDULABLE, "cannot align container"
    )


def test_fingerprint_vectors() -> None:
    """podfingerprint's own: five pods, and XXH64 of nothing."""
    pods = [("ns1", "n1"), ("ns1", "n2"), ("ns2", "n1"), ("ns3", "n1"), ("ns3", "n2")]

    assert sign(pods) == "pfp0v001b92008c14168b3a6"
    assert sign(reversed(pods)) == "pfp0v001b92008c14168b3a6"
    assert xxh64(b"") == 0xEF46DB3751D8E999
