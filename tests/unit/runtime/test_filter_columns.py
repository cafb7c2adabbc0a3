"""The one filter loop (`runtime.schedule.find_nodes_that_pass_filters`) takes the very nodes,
in the same order, and records the very statuses whichever results it reuses: the snapshot's
columns (`runtime.columns`, with its journal handed over) or the per-node memo (a plain list);
the scores from score columns (`runtime.kept_scores`) are those of the per-node memo, cycle
after cycle, while pods are assumed and forgotten and nodes are relabelled, tainted, added and
deleted (seeded random clusters, the default profile, more nodes than the adaptive sample so
the window rotates)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from kubesched.apis.config import Profile
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.explain.handle import ReadOnlyHandle
from kubesched.framework import CycleState, NodeInfo
from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.nodeinfo import NodeJournal
from kubesched.framework.status import Code, Status
from kubesched.model import Node, Pod
from kubesched.plugins import in_tree_registry
from kubesched.runtime import Framework, SchedulingError, build_framework
from kubesched.runtime.columns import FilterColumn, NodeColumns
from kubesched.runtime.filter_each import FilterRun
from kubesched.runtime.kept_filters import FeasibleWindow, FilterPlan
from kubesched.runtime.schedule import filter_around, find_nodes_that_fit, prioritize_nodes
from kubesched.testing import make_node, make_pod

NODES = 240


def _node(rng: random.Random, name: str) -> Node:
    builder = make_node().name(name).capacity(cpu=rng.choice(("1", "2", "4")), pods="8")
    builder.label("disk", rng.choice(("ssd", "hdd")))
    if rng.random() < 0.2:
        builder.taint("dedicated", "gpu", "NoSchedule")
    if rng.random() < 0.3:
        builder.taint("spot", "yes", "PreferNoSchedule")
    return builder.model()


SHAPES = ("500m", "1500m", "3")


def _pod(rng: random.Random, index: int) -> Pod:
    builder = make_pod().name(f"p{index}").uid(f"uid-{index}").namespace("ns")
    builder.req(cpu=rng.choice(SHAPES))
    if rng.random() < 0.3:
        builder.node_selector(disk="ssd")
    if rng.random() < 0.3:
        builder.toleration("dedicated", "gpu", effect="NoSchedule")
    app = rng.choice(("red", "blue"))
    builder.label("app", app)
    if rng.random() < 0.25:  # InterPodAffinity cannot sign it: the Filter plugins split
        term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "disk"}
        kind = rng.choice(("podAffinity", "podAntiAffinity"))
        builder.affinity({kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}})
    return builder.model()


def _framework(snapshot: Snapshot) -> Framework:
    return build_framework(
        profile=Profile(scheduler_name="kubesched"),
        registry=in_tree_registry(),
        handle=ReadOnlyHandle(snapshot),
    )


def _fit(
    fw: Framework, pod: Pod, nodes: Sequence[NodeInfo], journal: NodeJournal | None = None
) -> tuple[object, ...]:
    state = CycleState()
    if journal is not None:
        fw.node_columns.catch_up(journal, nodes)
    try:
        feasible, diagnosis = find_nodes_that_fit(fw, state, pod, nodes, journal=journal)
    except SchedulingError as exc:
        return ("error", str(exc), fw.next_start_node_index)
    places = (feasible.source, feasible.positions) if journal is not None else None
    scores = prioritize_nodes(fw, state, pod, feasible, places=places) if feasible else None
    return (
        scores and scores.totals,
        scores and [(ps.plugin, ps.raw, ps.normalized) for ps in scores.plugins],
        [node.name for node in feasible],
        # as a set: no reader depends on the order (the FitError message counts reasons)
        sorted(
            (name, status.reasons, status.plugin)
            for name, status in diagnosis.node_to_status.items()
        ),
        sorted(diagnosis.unschedulable_plugins),
        fw.next_start_node_index,
    )


def _churn(rng: random.Random, cache: SchedulerCache, names: list[str], placed: list[Pod]) -> None:
    for _ in range(rng.randint(0, 3)):
        roll = rng.random()
        if roll < 0.5 or not placed:
            placed.append(cache.assume_pod(_pod(rng, rng.randrange(10**6)), rng.choice(names)))
        elif roll < 0.8:
            cache.forget_pod(placed.pop(rng.randrange(len(placed))))
        elif roll < 0.93:
            cache.update_node(_node(rng, rng.choice(names)))
        elif roll < 0.97:
            name = f"extra-{rng.randrange(10**6)}"
            cache.add_node(_node(rng, name))
            names.append(name)
        else:
            name = names.pop(rng.randrange(len(names)))
            cache.remove_node(make_node().name(name).model())


@pytest.mark.parametrize("seed", range(4))
def test_columns_take_what_the_sequential_scan_takes(seed: int) -> None:
    rng = random.Random(seed)
    cache = SchedulerCache()
    names = [f"n{i}" for i in range(NODES)]
    for name in names:
        cache.add_node(_node(rng, name))
    snapshot = Snapshot()
    by_column, sequential = _framework(snapshot), _framework(snapshot)
    incoming = [_pod(rng, 10**7 + i) for i in range(6)]
    placed: list[Pod] = []
    rejections = splits = 0
    for _cycle in range(50):
        _churn(rng, cache, names, placed)
        cache.update_snapshot(snapshot)
        for pod in rng.sample(incoming, 3):
            state = CycleState()
            by_column.run_pre_filter(state, pod, snapshot.node_infos)
            splits += by_column.filter_split(state, pod) is not None
            got = _fit(by_column, pod, snapshot.node_infos, snapshot)
            want = _fit(sequential, pod, list(snapshot.node_infos))
            assert got == want
            rejections += len(got[3]) if isinstance(got[3], list) else 0
    assert rejections > 0
    assert splits > 0
    assert len(by_column.node_columns) > 0  # the column path ran


def _nodes(count: int) -> list[NodeInfo]:
    return [NodeInfo(make_node().name(f"n{i}").model()) for i in range(count)]


_POD = make_pod().name("p").model()


def _window(
    column: FilterColumn,
    nodes: Sequence[NodeInfo],
    *,
    start: int,
    wanted: int,
    diagnosis: Diagnosis,
    run: Callable[[int], Status],
    rest: Callable[[int], Status] | None = None,
) -> list[int]:
    """`filter_around` with `column` kept, `run(position)` for the kept plugins and
    `rest(position)` (one by one) for the others."""
    positions = {id(node): position for position, node in enumerate(nodes)}

    def run_node(_state: CycleState, _pod: Pod, node: NodeInfo) -> Status:
        return run(positions[id(node)])

    window = FeasibleWindow(nodes, wanted, diagnosis, column, _one_by_one(rest) if rest else None)
    plan = FilterPlan(column, run_node)
    return filter_around(window, plan, CycleState(), _POD, start)


def _one_by_one(rest: Callable[[int], Status]) -> Callable[[FilterRun], tuple[int, Status | None]]:
    """A rest runner over a per-position filter (which may return ERROR)."""

    def then(run: FilterRun) -> tuple[int, Status | None]:
        for consumed, position in enumerate(run.positions):
            status = rest(position)
            if status.code is Code.ERROR:
                return consumed, status
            if status.code is Code.SUCCESS:
                run.taken.append(position)
            else:
                run.rejected.append((position, status))
            if len(run.taken) >= run.wanted:
                return consumed + 1, None
        return len(run.positions), None

    return then


def test_the_window_wraps_and_runs_only_unknown_nodes() -> None:
    nodes = _nodes(10)
    column = FilterColumn(len(nodes))
    ran: list[int] = []
    full = Status(Code.UNSCHEDULABLE, "full", plugin="Fit")

    def run(position: int) -> Status:
        ran.append(position)
        return full if position % 3 == 0 else Status(Code.SUCCESS)

    def window(start: int, wanted: int) -> tuple[list[int], list[str]]:
        diagnosis = Diagnosis()
        taken = _window(column, nodes, start=start, wanted=wanted, diagnosis=diagnosis, run=run)
        return taken, [name for name, _ in diagnosis.node_to_status.items()]

    assert window(7, 4) == ([7, 8, 1, 2], ["n9", "n0"])
    assert ran == [7, 8, 9, 0, 1, 2]
    assert window(8, 3) == ([8, 1, 2], ["n9", "n0"])
    assert ran == [7, 8, 9, 0, 1, 2]  # all known
    assert window(1, 20) == ([1, 2, 4, 5, 7, 8], ["n3", "n6", "n9", "n0"])
    assert ran == [7, 8, 9, 0, 1, 2, 3, 4, 5, 6]


def test_an_error_is_not_kept_and_the_rejections_before_it_are_reported() -> None:
    nodes = _nodes(4)
    column = FilterColumn(len(nodes))
    diagnosis = Diagnosis()
    busy = Status(Code.UNSCHEDULABLE, "busy", plugin="Fit")

    def run(position: int) -> Status:
        return Status(Code.ERROR, "boom") if position == 2 else busy

    with pytest.raises(SchedulingError):
        _window(column, nodes, start=0, wanted=2, diagnosis=diagnosis, run=run)
    assert [name for name, _ in diagnosis.node_to_status.items()] == ["n0", "n1"]
    assert bytes(column.results) == bytes([2, 2, 0, 0])


def test_columns_start_over_when_the_snapshot_lays_its_nodes_out_anew() -> None:
    cache = SchedulerCache()
    for i in range(3):
        cache.add_node(make_node().name(f"n{i}").model())
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    columns = NodeColumns()
    columns.catch_up(snapshot, snapshot.node_infos)
    column = columns.filter_column(1)
    column.keep(0, Status(Code.SUCCESS))
    column.keep(1, Status(Code.SUCCESS))
    cache.assume_pod(make_pod().name("p").uid("u").model(), "n1")
    cache.update_snapshot(snapshot)
    columns.catch_up(snapshot, snapshot.node_infos)
    assert columns.filter_column(1) is column
    assert bytes(column.results) == bytes([1, 0, 0])  # n1 changed: forgotten
    cache.add_node(make_node().name("n3").model())
    cache.update_snapshot(snapshot)
    columns.catch_up(snapshot, snapshot.node_infos)
    fresh = columns.filter_column(1)
    assert fresh is not column
    assert bytes(fresh.results) == bytes(4)


def test_with_then_the_later_plugins_run_on_every_node_the_column_passes() -> None:
    nodes = _nodes(10)
    column = FilterColumn(len(nodes))
    lead_runs: list[int] = []
    rest_runs: list[int] = []
    lead_no = Status(Code.UNSCHEDULABLE, "lead", plugin="Lead")
    rest_no = Status(Code.UNSCHEDULABLE, "rest", plugin="Rest")

    def lead(position: int) -> Status:
        lead_runs.append(position)
        return lead_no if position % 4 == 0 else Status(Code.SUCCESS)

    def rest(position: int) -> Status:
        rest_runs.append(position)
        if position == 9 and len(rest_runs) > 8:
            return Status(Code.ERROR, "boom")
        return rest_no if position % 3 == 0 else Status(Code.SUCCESS)

    def window(start: int, wanted: int, diagnosis: Diagnosis) -> list[int]:
        return _window(
            column, nodes, start=start, wanted=wanted, diagnosis=diagnosis, run=lead, rest=rest
        )

    def rejected(diagnosis: Diagnosis) -> list[str]:
        return sorted(name for name, _ in diagnosis.node_to_status.items())

    first = Diagnosis()
    assert window(6, 3, first) == [7, 1, 2]
    assert lead_runs == [6, 7, 8, 9, 0, 1, 2]
    assert rest_runs == [6, 7, 9, 1, 2]
    assert rejected(first) == ["n0", "n6", "n8", "n9"]
    again = Diagnosis()
    assert window(6, 3, again) == [7, 1, 2]
    assert lead_runs == [6, 7, 8, 9, 0, 1, 2]  # the column knows them all now
    assert rest_runs == [6, 7, 9, 1, 2, 6, 7, 9, 1, 2]  # the later plugins run every time
    assert rejected(again) == ["n0", "n6", "n8", "n9"]
    failing = Diagnosis()
    with pytest.raises(SchedulingError):
        window(8, 5, failing)
    assert rejected(failing) == ["n8"]  # those before the failing node (n9), none after
