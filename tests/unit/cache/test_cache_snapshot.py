"""Incremental snapshots: only changed nodes are re-cloned; order, affinity lists, pruning."""

from __future__ import annotations

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.cache.cache import _MIN_TOMBSTONES_BEFORE_PRUNE
from kubesched.testing import make_node, make_pod

ANTI = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "labelSelector": {"matchLabels": {"app": "x"}},
                "topologyKey": "kubernetes.io/hostname",
            }
        ]
    }
}


def cluster(*names: str) -> SchedulerCache:
    cache = SchedulerCache()
    for name in names:
        cache.add_node(make_node().name(name).model())
    return cache


def test_only_changed_nodes_are_recloned() -> None:
    cache = cluster("a", "b", "c")
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    before = {info.name: info for info in snapshot.node_infos}
    cache.add_pod(make_pod().req(cpu="1").node("b").model())
    cache.update_snapshot(snapshot)
    after = {info.name: info for info in snapshot.node_infos}
    assert after["a"] is before["a"]
    assert after["c"] is before["c"]
    assert after["b"] is not before["b"]
    assert snapshot.get("b") is after["b"]
    assert (before["b"].requested.milli_cpu, after["b"].requested.milli_cpu) == (0, 1000)
    cache.update_snapshot(snapshot)
    assert all(x is y for x, y in zip(snapshot.node_infos, after.values(), strict=True))


def test_snapshot_is_isolated_from_later_cache_changes() -> None:
    cache = cluster("a")
    snapshot = cache.snapshot()
    cache.assume_pod(make_pod().req(cpu="1").model(), "a")
    info = snapshot.get("a")
    assert info is not None
    assert info.requested.milli_cpu == 0


def test_nodes_added_and_removed_between_snapshots() -> None:
    cache = cluster("a", "b")
    snapshot = cache.snapshot()
    cache.remove_node(make_node().name("a").model())
    cache.add_node(make_node().name("c").model())
    cache.update_snapshot(snapshot)
    assert [info.name for info in snapshot.node_infos] == ["b", "c"]
    assert (snapshot.num_nodes, "a" in snapshot, snapshot.get("a")) == (2, False, None)


def test_node_order_interleaves_zones() -> None:
    cache = SchedulerCache()
    for name, zone in [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("c1", "c")]:
        cache.add_node(make_node().name(name).label("topology.kubernetes.io/zone", zone).model())
    order = [info.name for info in cache.snapshot().node_infos]
    assert order == ["a1", "b1", "c1", "a2", "a3"]


def test_zone_change_reorders() -> None:
    cache = cluster("x", "y")
    snapshot = cache.snapshot()
    cache.update_node(make_node().name("x").label("topology.kubernetes.io/zone", "z").model())
    cache.update_snapshot(snapshot)
    assert [info.name for info in snapshot.node_infos] == ["y", "x"]


def test_affinity_lists_follow_the_pods() -> None:
    cache = cluster("a", "b")
    snapshot = cache.snapshot()
    assert snapshot.have_pods_with_affinity == []
    pod = make_pod().name("p").affinity(ANTI).node("b").model()
    cache.add_pod(pod)
    cache.update_snapshot(snapshot)
    assert [i.name for i in snapshot.have_pods_with_affinity] == ["b"]
    assert snapshot.have_pods_with_required_anti_affinity == [snapshot.get("b")]
    cache.remove_pod(pod)
    cache.update_snapshot(snapshot)
    assert (snapshot.have_pods_with_affinity, snapshot.have_pods_with_required_anti_affinity) == (
        [],
        [],
    )


def test_old_snapshot_rebuilds_after_deleted_names_are_pruned() -> None:
    cache = cluster("keep")
    old = cache.snapshot()
    for i in range(_MIN_TOMBSTONES_BEFORE_PRUNE + 2):
        node = make_node().name(f"tmp-{i}").model()
        cache.add_node(node)
        cache.remove_node(node)
    assert len(cache._recent) < _MIN_TOMBSTONES_BEFORE_PRUNE
    cache.add_node(make_node().name("new").model())
    cache.update_snapshot(old)
    assert [info.name for info in old.node_infos] == ["keep", "new"]


def test_snapshot_of_another_cache_is_rebuilt() -> None:
    big = cluster("a", "b", "c")
    for i in range(5):
        big.add_pod(make_pod().node("a").name(f"p{i}").model())
    snapshot = big.snapshot()
    cluster("z").update_snapshot(snapshot)
    assert [info.name for info in snapshot.node_infos] == ["z"]
