"""Assume / confirm / forget, pods before nodes, ghost nodes and terminal pods."""

from __future__ import annotations

import pytest

from kubesched.cache import CacheError, SchedulerCache
from kubesched.testing import make_node, make_pod


def cpu_on(cache: SchedulerCache, node: str) -> int:
    info = cache.node_info(node)
    return -1 if info is None else info.requested.milli_cpu


@pytest.fixture
def cache() -> SchedulerCache:
    cache = SchedulerCache()
    for name in ("a", "b"):
        cache.add_node(make_node().name(name).model())
    return cache


def test_assumed_pod_counts_at_once_and_is_confirmed_by_the_informer(cache: SchedulerCache) -> None:
    pod = make_pod().name("p").req(cpu="500m").model()
    assumed = cache.assume_pod(pod, "a")
    assert assumed.node_name == "a"
    assert pod.node_name == "", "the caller's pod is not modified"
    assert (cache.is_assumed(pod.uid), cpu_on(cache, "a")) == (True, 500)
    cache.finish_binding(assumed)
    cache.add_pod(make_pod().name("p").req(cpu="500m").node("a").model())
    assert (cache.is_assumed(pod.uid), cpu_on(cache, "a"), cache.pod_count()) == (False, 500, 1)
    assert not cache.forget_pod(assumed), "a confirmed pod cannot be forgotten"
    assert cpu_on(cache, "a") == 500


def test_forget_uncounts_an_assumed_pod(cache: SchedulerCache) -> None:
    pod = make_pod().name("p").req(cpu="1").model()
    assumed = cache.assume_pod(pod, "a")
    assert cache.forget_pod(assumed)
    assert (cpu_on(cache, "a"), cache.pod_count(), cache.is_assumed(pod.uid)) == (0, 0, False)


def test_assuming_a_pod_twice_is_an_error(cache: SchedulerCache) -> None:
    pod = make_pod().name("p").model()
    cache.assume_pod(pod, "a")
    with pytest.raises(CacheError, match="can't be assumed"):
        cache.assume_pod(pod, "b")


def test_pod_confirmed_on_another_node_moves(cache: SchedulerCache) -> None:
    cache.assume_pod(make_pod().name("p").req(cpu="1").model(), "a")
    cache.add_pod(make_pod().name("p").req(cpu="1").node("b").model())
    assert (cpu_on(cache, "a"), cpu_on(cache, "b")) == (0, 1000)


def test_update_and_remove_of_a_bound_pod(cache: SchedulerCache) -> None:
    old = make_pod().name("p").req(cpu="1").node("a").model()
    cache.add_pod(old)
    new = make_pod().name("p").req(cpu="2").node("a").model()
    cache.update_pod(old, new)
    assert cpu_on(cache, "a") == 2000
    cache.remove_pod(new)
    assert (cpu_on(cache, "a"), cache.pod_count()) == (0, 0)


def test_terminal_pods_do_not_count(cache: SchedulerCache) -> None:
    cache.add_pod(make_pod().name("done").req(cpu="1").node("a").phase("Succeeded").model())
    assert cache.pod_count() == 0
    running = make_pod().name("p").req(cpu="1").node("a").model()
    cache.add_pod(running)
    cache.update_pod(running, make_pod().name("p").req(cpu="1").node("a").phase("Failed").model())
    assert (cpu_on(cache, "a"), cache.pod_count()) == (0, 0)


def test_unbound_pods_are_ignored(cache: SchedulerCache) -> None:
    cache.add_pod(make_pod().name("pending").model())
    assert cache.pod_count() == 0


def test_pod_before_its_node_counts_when_the_node_arrives() -> None:
    cache = SchedulerCache()
    cache.add_pod(make_pod().name("early").req(cpu="1").node("late").model())
    assert (cache.node_count(), cache.pod_count()) == (0, 1)
    assert cache.snapshot().num_nodes == 0
    cache.add_node(make_node().name("late").model())
    info = cache.snapshot().get("late")
    assert info is not None
    assert (info.requested.milli_cpu, info.allocatable.milli_cpu) == (1000, 4000)


def test_deleted_node_stays_a_ghost_until_its_pods_are_gone(cache: SchedulerCache) -> None:
    node = make_node().name("a").model()
    pod = make_pod().name("p").req(cpu="1").node("a").model()
    cache.add_pod(pod)
    cache.remove_node(node)
    snapshot = cache.snapshot()
    assert (cache.node_count(), snapshot.get("a"), snapshot.num_nodes) == (1, None, 1)
    assert cpu_on(cache, "a") == 1000, "the ghost still holds the pod"
    cache.remove_pod(pod)
    assert cache.node_info("a") is None
    cache.add_node(node)
    assert cache.snapshot().get("a") is not None


def test_dump_and_compare(cache: SchedulerCache) -> None:
    bound = make_pod().name("bound").req(cpu="1").node("a").model()
    cache.add_pod(bound)
    cache.assume_pod(make_pod().name("assumed").model(), "b")
    dump = cache.dump()
    assert dump["assumed_pods"] == ["default/assumed"]
    per_node = dump["nodes"]
    assert isinstance(per_node, dict)
    assert per_node["a"] == {
        "exists": True,
        "pods": 1,
        "requested_milli_cpu": 1000,
        "requested_memory": 0,
    }
    nodes = [make_node().name("a").model(), make_node().name("c").model()]
    missing = make_pod().name("missing").node("c").model()
    moved = make_pod().name("bound").node("b").model()
    diff = cache.compare(nodes=nodes, pods=[moved, missing])
    assert (diff.missing_nodes, diff.redundant_nodes) == (["c"], ["b"])
    assert (diff.missing_pods, diff.misplaced_pods) == (["default/missing"], ["default/bound"])
    assert diff.redundant_pods == []
    assert not diff.ok
    assert cache.compare(nodes=[*nodes[:1], make_node().name("b").model()], pods=[bound]).ok
