from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.framework import (
    SUCCESS,
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    NodeInfo,
    Status,
)
from kubesched.runtime import Framework, select_host
from kubesched.runtime.framework import PluginLists
from kubesched.runtime.queueing import Requeue
from kubesched.testing import FakeHandle, make_node, make_pod
from tests.unit.runtime.fw_fakes import FakeFilter, FakeNormalizedScore, FakePreFilter, FakeScore

POD = make_pod().name("p").model()
UNSCHED = Code.UNSCHEDULABLE
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def nodes(*names: str) -> list[NodeInfo]:
    return [NodeInfo(node=make_node().name(n).model()) for n in names]


def framework(weights: dict[str, int] | None = None, **lists: Any) -> Framework:
    return Framework(
        profile_name="p",
        plugins=PluginLists(**lists),
        score_weights=weights or {},
        percentage_of_nodes_to_score=None,
        handle=FakeHandle(),
    )


# --- Filter -------------------------------------------------------------------------------


def test_filter_stops_at_first_rejection_and_records_the_plugin() -> None:
    calls: list[str] = []
    first = FakeFilter("First", reject={"n1": Status(UNSCHED, "nope")}, calls=calls)
    second = FakeFilter("Second", calls=calls)
    fw = framework(filter=[first, second])
    (n1,) = nodes("n1")
    status = fw.run_filter(CycleState(), POD, n1)
    assert status.code is UNSCHED
    assert status.plugin == "First"
    assert calls == ["First:n1"]


def test_filter_success_runs_all_and_returns_shared_success() -> None:
    calls: list[str] = []
    fw = framework(filter=[FakeFilter("A", calls=calls), FakeFilter("B", calls=calls)])
    assert fw.run_filter(CycleState(), POD, nodes("n1")[0]) is SUCCESS
    assert calls == ["A:n1", "B:n1"]


def test_filter_exception_becomes_error_status_naming_the_plugin() -> None:
    fw = framework(filter=[FakeFilter("Buggy", boom=frozenset({"n1"}))])
    status = fw.run_filter(CycleState(), POD, nodes("n1")[0])
    assert status.code is Code.ERROR
    assert status.plugin == "Buggy"
    assert status.message == 'plugin "Buggy" raised RuntimeError at Filter: kaput'
    assert isinstance(status.error, RuntimeError)


def test_filter_returning_unexpected_code_is_an_error() -> None:
    fw = framework(filter=[FakeFilter("Odd", reject={"n1": Status(Code.WAIT, "hm")})])
    status = fw.run_filter(CycleState(), POD, nodes("n1")[0])
    assert status.code is Code.ERROR
    assert status.message == 'running "Odd" filter plugin: hm'


# --- PreFilter ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "code", "node_names", "message"),
    [
        pytest.param([None, None], Code.SUCCESS, None, "", id="all-nodes"),
        pytest.param([{"a", "b"}, {"b", "c"}], Code.SUCCESS, {"b"}, "", id="intersection"),
        pytest.param(
            [{"a"}, {"b"}],
            UNRESOLVABLE,
            set(),
            "node(s) didn't satisfy plugin(s) [P0 P1] simultaneously",
            id="empty-intersection",
        ),
        pytest.param([set()], UNRESOLVABLE, set(), "node(s) didn't satisfy plugin P0", id="empty"),
        pytest.param(
            [Status(UNSCHED, "later"), Status(UNRESOLVABLE, "now")],
            UNRESOLVABLE,
            None,
            "now",
            id="unresolvable-wins",
        ),
        pytest.param([Status(UNSCHED, "u"), None], UNSCHED, None, "u", id="unschedulable-runs-all"),
        pytest.param(
            [RuntimeError("x")],
            Code.ERROR,
            None,
            'plugin "P0" raised RuntimeError at PreFilter: x',
            id="raises",
        ),
        pytest.param(
            [Status(Code.WAIT, "w")],
            Code.ERROR,
            None,
            'running PreFilter plugin "P0": w',
            id="bad-code",
        ),
    ],
)
def test_pre_filter(
    results: list[Any], code: Code, node_names: set[str] | None, message: str
) -> None:
    fw = framework(pre_filter=[FakePreFilter(f"P{i}", r) for i, r in enumerate(results)])
    outcome = fw.run_pre_filter(CycleState(), POD, [])
    assert outcome.status.code is code
    assert outcome.status.message == message
    assert (None if outcome.node_names is None else set(outcome.node_names)) == node_names


def test_pre_filter_skip_skips_the_plugins_filter() -> None:
    calls: list[str] = []

    class Both(FakeFilter):
        def pre_filter(self, *_: Any) -> Status:
            return Status(Code.SKIP)

    fw = framework(pre_filter=[Both("Both")], filter=[Both("Both", calls=calls)])
    state = CycleState()
    assert fw.run_pre_filter(state, POD, []).status is SUCCESS
    assert state.skip_filter_plugins == {"Both"}
    assert fw.run_filter(state, POD, nodes("n1")[0]) is SUCCESS
    assert calls == []


# --- Score --------------------------------------------------------------------------------


def test_score_normalizes_weighs_and_sums() -> None:
    a = FakeScore("A", {"n1": 10, "n2": 50})
    b = FakeNormalizedScore("B", {"n1": 3, "n2": 1}, factor=10)
    fw = framework(weights={"A": 2, "B": 1}, score=[a, b])
    result = fw.run_score(CycleState(), POD, nodes("n1", "n2"))
    assert result.status is SUCCESS
    assert result.totals == [2 * 10 + 30, 2 * 50 + 10]
    assert result.explain("n1") == {"A": (10, 10, 20), "B": (3, 30, 30)}


def test_score_out_of_range_is_an_error() -> None:
    fw = framework(weights={"A": 1}, score=[FakeScore("A", {"n1": 101})])
    result = fw.run_score(CycleState(), POD, nodes("n1"))
    assert result.status.code is Code.ERROR
    assert (
        "invalid score 101, it should in the range of [0, 100] after normalizing"
        in result.status.message
    )


def test_score_exception_is_an_error_and_skip_is_honoured() -> None:
    fw = framework(weights={"A": 1}, score=[FakeScore("A", {})])
    result = fw.run_score(CycleState(), POD, nodes("n1"))
    assert result.status.code is Code.ERROR
    assert result.status.plugin == "A"
    state = CycleState()
    state.skip_score_plugins = frozenset({"A"})
    assert fw.run_score(state, POD, nodes("n1")).totals == [0]


def test_pre_score_skip_is_recorded() -> None:
    class Skipper:
        name = "S"

        def pre_score(self, *_: Any) -> Status:
            return Status(Code.SKIP)

    fw = framework(pre_score=[Skipper()])
    state = CycleState()
    assert fw.run_pre_score(state, POD, []) is SUCCESS
    assert state.skip_score_plugins == {"S"}


def test_select_host_picks_highest_and_breaks_ties_randomly() -> None:
    fw = framework(weights={"A": 1}, score=[FakeScore("A", {"n1": 5, "n2": 9, "n3": 9, "n4": 1})])
    result = fw.run_score(CycleState(), POD, nodes("n1", "n2", "n3", "n4"))
    picks = {select_host(result, rng=random.Random(seed)) for seed in range(50)}
    assert picks == {"n2", "n3"}
    with pytest.raises(ValueError, match="empty priority list"):
        select_host(fw.run_score(CycleState(), POD, []))


# --- Queueing -----------------------------------------------------------------------------


def test_pre_enqueue_and_requeue_on() -> None:
    class Gate:
        name = "Gate"

        def pre_enqueue(self, pod: Any) -> Status | None:
            return Status(UNRESOLVABLE, "gated") if pod.scheduling_gates else None

        def filter(self, *_: Any) -> None:
            return None

        def events_to_register(self) -> list[ClusterEvent]:
            return [ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)]

    fw = framework(pre_enqueue=[Gate()], filter=[Gate(), FakeFilter("NoEvents")])
    assert fw.run_pre_enqueue(POD) is SUCCESS
    gated = fw.run_pre_enqueue(make_pod().scheduling_gate("g").model())
    assert (gated.code, gated.plugin) == (UNRESOLVABLE, "Gate")
    node_label = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
    node_taint = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)

    def requeue(plugins: set[str], event: ClusterEvent) -> Requeue:
        return fw.queueing_hints.strategy(
            pod=POD, rejectors=plugins, pending=set(), event=event, old=None, new=None
        )

    assert requeue({"Gate"}, node_label) is Requeue.AFTER_BACKOFF
    assert requeue({"Gate"}, node_taint) is Requeue.SKIP
    assert requeue({"NoEvents"}, node_taint) is Requeue.AFTER_BACKOFF  # wildcard by default
    assert requeue(set(), node_taint) is Requeue.AFTER_BACKOFF  # errors: always requeue
    wildcard = ClusterEvent(EventResource.WILDCARD, ActionType.ALL)
    assert requeue({"Gate"}, wildcard) is Requeue.AFTER_BACKOFF
    assert set(fw.events_to_register()) == {"Gate", "NoEvents"}
