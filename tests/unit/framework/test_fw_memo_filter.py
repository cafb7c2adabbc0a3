"""The memoized Filter loop decides exactly as the plain per-node loop: the same feasible
nodes in order, the same rejections recorded, the same nodes filtered, the same stop."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import pytest

from kubesched.framework import CycleState
from kubesched.framework.diagnosis import Diagnosis, SchedulingError
from kubesched.framework.memo_filter import FilterRun, pass_filters_memoized
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.model import Pod
from kubesched.testing import make_node, make_pod

KEY = 3


def _plain(
    run_filter: FilterRun,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    nodes: list[NodeInfo],
    *,
    wanted: int,
) -> list[NodeInfo]:
    """The reference: one node at a time, memo first, as the loop before the fast path."""
    feasible: list[NodeInfo] = []
    for node in nodes:
        status = node.memo.get(KEY)
        if status is None:
            status = run_filter(state, pod, node)
            if status.code is not Code.ERROR:
                node.memo[KEY] = status
        if status.code is Code.SUCCESS:
            feasible.append(node)
            if len(feasible) >= wanted:
                break
        elif status.code is Code.ERROR:
            raise SchedulingError(status)
        else:
            diagnosis.node_to_status.set(node.name, status)
            diagnosis.add_plugin_status(status)
    return feasible


def _cluster(
    rng: random.Random, size: int, *, errors: bool
) -> tuple[list[NodeInfo], dict[str, Status]]:
    nodes: list[NodeInfo] = []
    verdicts: dict[str, Status] = {}
    for i in range(size):
        info = NodeInfo(node=make_node().name(f"n{i}").model())
        fits = rng.random() < 0.7
        verdict = SUCCESS if fits else Status(Code.UNSCHEDULABLE, "no", plugin=f"P{i % 3}")
        if errors and rng.random() < 0.02:
            verdict = Status(Code.ERROR, "boom")
        verdicts[info.name] = verdict
        if verdict.code is not Code.ERROR and rng.random() < 0.8:
            info.memo[KEY] = verdict  # stored by an earlier cycle
        nodes.append(info)
    return nodes, verdicts


def _run(
    fn: Callable[..., list[NodeInfo]],
    nodes: list[NodeInfo],
    verdicts: dict[str, Status],
    wanted: int,
) -> tuple[object, list[tuple[str, str]], list[str], list[str]]:
    calls: list[str] = []

    def run_filter(_state: CycleState, _pod: Pod, node: NodeInfo) -> Status:
        calls.append(node.name)
        return verdicts[node.name]

    diagnosis = Diagnosis()
    try:
        feasible = fn(run_filter, CycleState(), make_pod().model(), diagnosis, nodes, wanted=wanted)
        outcome: object = [node.name for node in feasible]
    except SchedulingError as exc:
        outcome = ("error", exc.status.message)
    recorded = [(name, status.message) for name, status in diagnosis.node_to_status.items()]
    return outcome, recorded, calls, sorted(diagnosis.unschedulable_plugins)


@pytest.mark.parametrize("seed", range(40))
def test_same_decisions_as_the_plain_loop(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.randrange(1, 60)
    wanted = rng.randrange(1, size + 5)
    errors = seed % 4 == 0
    mine_nodes, verdicts = _cluster(random.Random(seed), size, errors=errors)
    plain_nodes, _ = _cluster(random.Random(seed), size, errors=errors)

    memoized = functools.partial(pass_filters_memoized, key=KEY)
    assert _run(memoized, mine_nodes, verdicts, wanted) == _run(
        _plain, plain_nodes, verdicts, wanted
    )
    assert [n.memo for n in mine_nodes] == [n.memo for n in plain_nodes]
