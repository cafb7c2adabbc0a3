"""While pods are nominated, the filter loop over a snapshot's columns (`columns.AroundNominated`)
takes the very nodes and records the very statuses of the per-node memo over a plain list:
the nodes holding nominated pods are filtered afresh every cycle with those pods counted
(when their priority is not below the incoming pod's), and a result computed with nominated
pods is never reused once the nomination moves or ends (seeded random clusters and
nominations, the default profile)."""

from __future__ import annotations

import random

import pytest

from kubesched.apis.config import Profile
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.explain.handle import ReadOnlyHandle
from kubesched.framework import CycleState, NodeInfo
from kubesched.model import Pod
from kubesched.plugins import in_tree_registry
from kubesched.runtime import Framework, build_framework
from kubesched.runtime.columns import AroundNominated, FilterColumn
from kubesched.runtime.kept_filters import plan_filters
from kubesched.testing import make_node, make_pod
from tests.unit.runtime.test_filter_columns import NODES, _churn, _fit, _node, _pod


def _framework(handle: ReadOnlyHandle) -> Framework:
    return build_framework(
        profile=Profile(scheduler_name="kubesched"), registry=in_tree_registry(), handle=handle
    )


def _nominate(rng: random.Random, handle: ReadOnlyHandle, names: list[str]) -> None:
    """Nominate a few pods (some above, some below the incoming pods' priority) and end
    some nominations."""
    for name in list(handle.nominated):
        if rng.random() < 0.4:
            del handle.nominated[name]
    for _ in range(rng.randint(0, 4)):
        index = rng.randrange(10**6)
        pod = make_pod().name(f"nom{index}").uid(f"nom-{index}").namespace("ns")
        pod.req(cpu=rng.choice(("1", "3"))).priority(rng.choice((0, 5, 10)))
        handle.nominated.setdefault(rng.choice(names), []).append(pod.model())


def _with_priority(pod: Pod, priority: int) -> Pod:
    pod.priority = priority
    return pod


@pytest.mark.parametrize("seed", range(4))
def test_columns_around_nominated_nodes_take_what_the_sequential_scan_takes(seed: int) -> None:
    rng = random.Random(seed)
    cache = SchedulerCache()
    names = [f"n{i}" for i in range(NODES)]
    for name in names:
        cache.add_node(_node(rng, name))
    snapshot = Snapshot()
    handle = ReadOnlyHandle(snapshot)
    by_column, sequential = _framework(handle), _framework(handle)
    incoming = [_with_priority(_pod(rng, 10**7 + i), rng.choice((0, 5, 10))) for i in range(6)]
    placed: list[Pod] = []
    rejections = 0
    for _cycle in range(50):
        _churn(rng, cache, names, placed)
        _nominate(rng, handle, [name for name in names if rng.random() < 0.5] or names)
        cache.update_snapshot(snapshot)
        for pod in rng.sample(incoming, 3):
            got = _fit(by_column, pod, snapshot.node_infos, snapshot)
            want = _fit(sequential, pod, list(snapshot.node_infos))
            assert got == want
            rejections += len(got[3]) if isinstance(got[3], list) else 0
    assert rejections > 0
    assert len(by_column.node_columns) > 0  # the column path ran


def test_a_node_holding_nominated_pods_is_forgotten_and_never_kept() -> None:
    snapshot = Snapshot()
    cache = SchedulerCache()
    for index in range(4):
        cache.add_node(make_node().name(f"n{index}").capacity(cpu="4", pods="8").model())
    cache.update_snapshot(snapshot)
    handle = ReadOnlyHandle(snapshot)
    handle.nominated["n1"] = [make_pod().name("nom").uid("nom").req(cpu="3").model()]
    fw = _framework(handle)
    pod = make_pod().name("p").uid("p").req(cpu="2").model()
    state = CycleState()
    fw.run_pre_filter(state, pod, snapshot.node_infos)
    fw.node_columns.catch_up(snapshot, snapshot.node_infos)
    plan = plan_filters(fw, state, pod, snapshot.node_infos, snapshot)
    assert isinstance(plan.kept, AroundNominated)
    assert plan.kept.volatile == {1}
    nodes: list[NodeInfo] = list(snapshot.node_infos)
    for position, node in enumerate(nodes):
        plan.kept.keep(position, plan.run(state, pod, node))
    column: FilterColumn = plan.kept.column
    assert list(column.results) == [1, 0, 1, 1]  # n1 (2 + 3 of 4 CPUs): not kept
    assert not plan.run(state, pod, nodes[1]).is_success()
    del handle.nominated["n1"]
    assert plan.run(state, pod, nodes[1]).is_success()
