"""Random operation sequences keep the cache consistent and incremental snapshots exact."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.cache.debug import requested_sum
from kubesched.model import Pod
from kubesched.testing import make_node, make_pod

NODES = ["n0", "n1", "n2"]
OPS = st.tuples(
    st.sampled_from(
        [
            "add_node",
            "remove_node",
            "add_pod",
            "assume",
            "forget",
            "confirm",
            "remove_pod",
            "aside",
            "snap",
        ]
    ),
    st.integers(0, 5),
    st.sampled_from(NODES),
    st.sampled_from(["100m", "250m", "1"]),
)


def pod(index: int, node: str, cpu: str) -> Pod:
    builder = make_pod().name(f"p{index}").req(cpu=cpu, memory="1Mi")
    return (builder.node(node) if node else builder).model()


def apply(cache: SchedulerCache, op: str, index: int, node: str, cpu: str) -> None:
    uid = f"uid-p{index}"
    if op == "add_node":
        cache.add_node(make_node().name(node).model())
    elif op == "remove_node":
        cache.remove_node(make_node().name(node).model())
    elif op == "add_pod":
        cache.add_pod(pod(index, node, cpu))
    elif op == "assume" and cache.get_pod(uid) is None:
        cache.assume_pod(pod(index, "", cpu), node)
    elif op == "forget":
        cache.forget_pod(pod(index, "", cpu))
    elif op == "confirm" and cache.is_assumed(uid):
        cache.add_pod(pod(index, node, cpu))
    elif op == "remove_pod":
        cache.remove_pod(pod(index, node, cpu))
    elif op == "aside" and (state := cache.set_aside(pod(index, node, cpu))) is not None:
        cache.put_back(state)


def view(snapshot: Snapshot) -> list[tuple[str, int, int, list[str]]]:
    return [
        (i.name, i.requested.milli_cpu, i.requested.memory, sorted(i.pods))
        for i in snapshot.node_infos
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(OPS, max_size=60))
def test_requested_is_the_sum_of_the_pods_and_snapshots_are_exact(
    ops: list[tuple[str, int, str, str]],
) -> None:
    cache = SchedulerCache()
    incremental = Snapshot()
    for op in ops:
        if op[0] == "snap":
            cache.update_snapshot(incremental)
            assert view(incremental) == view(cache.snapshot())
        else:
            apply(cache, *op)
        for name in NODES:
            info = cache.node_info(name)
            if info is not None:
                assert info.requested == requested_sum(info)
                assert all(
                    (found := cache.get_pod(uid)) is not None and found.node_name == name
                    for uid in info.pods
                )
        assumed = sum(cache.is_assumed(f"uid-p{index}") for index in range(6))
        assert cache.assumed_count() == assumed
    counted = sum(len(info.pods) for n in NODES if (info := cache.node_info(n)))
    assert counted == cache.pod_count()
    cache.update_snapshot(incremental)
    assert view(incremental) == view(cache.snapshot())
    assert cache.compare(nodes=[], pods=[]).inconsistent_nodes == []
