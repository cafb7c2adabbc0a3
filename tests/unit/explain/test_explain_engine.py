"""explain_pod: the scheduler's cycle over every node, every verdict kept.

Where the scheduler decides something (FailedScheduling text, the chosen node, the scores)
the tests compare explain with the framework's own `schedule_pod` / `run_score` on an
identical framework, so explain cannot drift from the scheduler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kubesched.explain import NOT_ENABLED, explain_pod, summary
from kubesched.explain.report import FILTER, PREFILTER
from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.model import Node, Pod
from kubesched.runtime import FitError, Framework, schedule_pod
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod
from tests.unit.explain.explain_fakes import (
    FixedPreFilter,
    SkippingScore,
    TableFilter,
    TableScore,
    framework,
)

TAINT = "node(s) had untolerated taint(s)"


def cluster() -> tuple[list[Node], list[Pod]]:
    """One tainted node, one too small, two that fit with different load."""
    nodes = [
        make_node().name("tainted").capacity(cpu="4", memory="8Gi").taint("dedicated", "gpu"),
        make_node().name("small").capacity(cpu="500m", memory="1Gi"),
        make_node().name("busy").capacity(cpu="4", memory="8Gi"),
        make_node().name("idle").capacity(cpu="4", memory="8Gi"),
    ]
    load = make_pod().name("load").namespace("other").node("busy").req(cpu="2", memory="4Gi")
    return [n.model() for n in nodes], [load.model()]


def real_framework(**kwargs: Any) -> tuple[Framework, list[NodeInfo]]:
    nodes, pods = cluster()
    handle = FakeHandle(nodes=nodes, pods=pods)
    return build_test_framework(handle=handle, **kwargs), list(handle.list_node_infos())


def web_pod(**req: str) -> Pod:
    builder = make_pod().name("web").namespace("demo").scheduler("test-scheduler")
    return builder.req(**(req or {"cpu": "1", "memory": "1Gi"})).model()


# --- verdicts ----------------------------------------------------------------------------
def test_every_node_gets_a_verdict_with_the_rejecting_plugin_and_reason() -> None:
    fw, nodes = real_framework()
    ex = explain_pod(fw, web_pod(), nodes)
    verdicts = {v.node: v for v in ex.verdicts}
    assert set(verdicts) == {"tainted", "small", "busy", "idle"}
    tainted, small = verdicts["tainted"].rejection, verdicts["small"].rejection
    assert tainted is not None
    assert (tainted.plugin, tainted.stage, tainted.reasons) == ("TaintToleration", FILTER, (TAINT,))
    assert tainted.code == "UnschedulableAndUnresolvable"
    assert small is not None
    assert (small.plugin, small.message) == ("NodeResourcesFit", "Insufficient cpu")
    assert verdicts["busy"].feasible
    assert verdicts["idle"].feasible


def test_rows_are_sorted_by_total_then_name_with_rejected_nodes_last() -> None:
    fw, nodes = real_framework()
    ex = explain_pod(fw, web_pod(), nodes)
    assert [v.node for v in ex.verdicts] == ["idle", "busy", "small", "tainted"]
    assert ex.verdicts[0].total is not None
    assert ex.verdicts[1].total is not None
    assert ex.verdicts[0].total > ex.verdicts[1].total
    assert ex.chosen == "idle"
    assert ex.best == ("idle",)
    assert summary(ex) == f"kubesched would choose idle (total score {ex.verdicts[0].total})"


def test_the_choice_is_the_schedulers() -> None:
    fw, nodes = real_framework()
    sched_fw, sched_nodes = real_framework()
    expected = schedule_pod(sched_fw, CycleState(), web_pod(), sched_nodes)
    assert explain_pod(fw, web_pod(), nodes).chosen == expected.suggested_host


# --- scores ------------------------------------------------------------------------------
def test_score_breakdown_is_the_frameworks_raw_normalized_weighted() -> None:
    fw, nodes = real_framework()
    ex = explain_pod(fw, web_pod(), nodes)
    ref_fw, ref_nodes = real_framework()
    state = CycleState()
    feasible = [n for n in ref_nodes if n.name in ("busy", "idle")]
    assert ref_fw.run_pre_filter(state, web_pod(), ref_nodes).status.is_success()
    assert ref_fw.run_pre_score(state, web_pod(), feasible).is_success()
    reference = ref_fw.run_score(state, web_pod(), feasible)
    for verdict in ex.feasible:
        got = {s.plugin: (s.raw, s.normalized, s.weighted) for s in verdict.scores}
        assert got == reference.explain(verdict.node)
        assert verdict.total == sum(s.weighted for s in verdict.scores)
    assert ("TaintToleration", 3) in ex.score_plugins
    assert "NodeAffinity" in ex.skipped_score_plugins  # PreScore: Skip (no preferences)
    assert "TaintToleration" not in ex.skipped_score_plugins


def test_normalization_and_weights_are_shown_separately() -> None:
    fw, nodes = framework(
        ["a", "b"],
        weights={"Tabled": 3},
        score=[TableScore("Tabled", {"a": 10, "b": 20}, factor=2)],
    )
    ex = explain_pod(fw, make_pod().name("p").model(), nodes)
    [b, a] = ex.verdicts
    assert (b.node, b.total) == ("b", 120)
    assert [(s.raw, s.normalized, s.weight, s.weighted) for s in a.scores] == [(10, 20, 3, 60)]
    assert ex.chosen == "b"


def test_a_plugin_whose_pre_score_skips_is_listed_and_not_scored() -> None:
    fw, nodes = framework(
        ["a", "b"],
        score=[TableScore("Kept", {"a": 1, "b": 2}), SkippingScore("Skipper", {"a": 9, "b": 0})],
        pre_score=[SkippingScore("Skipper", {})],
    )
    ex = explain_pod(fw, make_pod().name("p").model(), nodes)
    assert ex.score_plugins == (("Kept", 1),)
    assert ex.skipped_score_plugins == ("Skipper",)
    assert ex.chosen == "b"


# --- ties --------------------------------------------------------------------------------
def test_a_tie_names_every_best_node_and_chooses_none() -> None:
    fw, nodes = framework(["b", "a", "c"], score=[TableScore("S", {"a": 5, "b": 5, "c": 1})])
    ex = explain_pod(fw, make_pod().name("p").model(), nodes)
    assert ex.tie
    assert ex.best == ("a", "b")
    assert ex.chosen == ""
    assert [v.node for v in ex.verdicts] == ["a", "b", "c"]
    assert summary(ex) == "tie between a, b at total score 5: kubesched picks one of them at random"


def test_identical_real_nodes_tie() -> None:
    nodes = [make_node().name(n).capacity(cpu="4", memory="8Gi").model() for n in ("x", "y")]
    handle = FakeHandle(nodes=nodes)
    fw = build_test_framework(handle=handle)
    ex = explain_pod(fw, web_pod(), handle.list_node_infos())
    assert ex.best == ("x", "y")
    assert not ex.chosen


def test_without_score_plugins_any_feasible_node_may_be_taken() -> None:
    fw, nodes = framework(["a", "b", "c"], filter=[TableFilter("F", {"c": _unschedulable("no")})])
    ex = explain_pod(fw, make_pod().name("p").model(), nodes)
    assert ex.best == ("a", "b")
    assert not ex.chosen
    assert ex.sampling.num_feasible_nodes_to_find == 1
    assert any("no Score plugins" in note for note in ex.notes)


def test_a_single_feasible_node_is_chosen_without_scoring_note() -> None:
    fw, nodes = real_framework()
    ex = explain_pod(fw, web_pod(cpu="3"), nodes)  # busy has 2 of 4 CPUs left
    assert ex.chosen == "idle"
    assert "only one node fits: kubesched takes it without scoring" in ex.notes


# --- nothing fits: the scheduler's FailedScheduling text ----------------------------------
def _unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, *reasons)


def _scheduler_message(make: Callable[[], tuple[Framework, list[NodeInfo]]], pod: Pod) -> str:
    fw, nodes = make()
    with pytest.raises(FitError) as raised:
        schedule_pod(fw, CycleState(), pod, nodes)
    return str(raised.value)


SCENARIOS: dict[str, Callable[[], tuple[Framework, list[NodeInfo]]]] = {
    "filter reasons counted over nodes": lambda: framework(
        ["a", "b", "c"],
        filter=[
            TableFilter(
                "F",
                {
                    "a": _unschedulable("Insufficient cpu", "Insufficient memory"),
                    "b": _unschedulable("Insufficient cpu"),
                    "c": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, TAINT),
                },
            )
        ],
    ),
    "PreFilter rejects the pod": lambda: framework(
        ["a", "b"],
        pre_filter=[FixedPreFilter("Pre", _unschedulable("pod has unbound PVCs"))],
        filter=[TableFilter("F", {})],
    ),
    "PreFilterResult, the rest rejected by Filter": lambda: framework(
        ["a", "b", "c", "d"],
        pre_filter=[FixedPreFilter("Pick", frozenset({"a", "b"}))],
        filter=[TableFilter("F", {"a": _unschedulable("Too many pods"), "b": _unschedulable("x")})],
    ),
    "PreFilterResults without common nodes": lambda: framework(
        ["a", "b"],
        pre_filter=[FixedPreFilter("P1", frozenset({"a"})), FixedPreFilter("P2", frozenset({"b"}))],
        filter=[TableFilter("F", {})],
    ),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_failed_scheduling_is_the_schedulers_fit_error_text(scenario: str) -> None:
    pod = make_pod().name("p").model()
    fw, nodes = SCENARIOS[scenario]()
    ex = explain_pod(fw, pod, nodes)
    assert ex.failed_scheduling == _scheduler_message(SCENARIOS[scenario], pod)
    assert ex.failed_scheduling.startswith(f"0/{len(nodes)} nodes are available: ")
    assert not ex.feasible
    assert not ex.chosen
    assert summary(ex) == f"FailedScheduling: {ex.failed_scheduling}"


def test_failed_scheduling_with_the_real_plugins() -> None:
    pod = web_pod(cpu="8")
    fw, nodes = real_framework()
    ex = explain_pod(fw, pod, nodes)
    assert ex.failed_scheduling == _scheduler_message(real_framework, pod)
    assert ex.failed_scheduling == (
        f"0/4 nodes are available: 1 {TAINT}, 3 Insufficient cpu. "
        "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
    assert ex.preemption == ("0/4 nodes are available: 4 Preemption is not helpful for scheduling.")


def test_a_pre_filter_rejection_applies_to_every_node() -> None:
    fw, nodes = SCENARIOS["PreFilter rejects the pod"]()
    ex = explain_pod(fw, make_pod().name("p").model(), nodes)
    assert ex.pre_filter is not None
    assert (ex.pre_filter.plugin, ex.pre_filter.stage) == ("Pre", PREFILTER)
    assert all(v.rejection == ex.pre_filter for v in ex.verdicts)
    assert ex.failed_scheduling == "0/2 nodes are available: pod has unbound PVCs."


def test_nodes_outside_a_pre_filter_result_are_rejected_at_pre_filter() -> None:
    pod = (
        make_pod()
        .name("p")
        .affinity(
            {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": ["busy"]}
                                ]
                            }
                        ]
                    }
                }
            }
        )
        .model()
    )
    fw, nodes = real_framework()
    ex = explain_pod(fw, pod, nodes)
    assert ex.restricted_to == ("busy",)
    rejected = {v.node: v.rejection for v in ex.verdicts if v.rejection is not None}
    assert set(rejected) == {"tainted", "small", "idle"}
    idle = rejected["idle"]
    assert idle is not None
    assert (idle.plugin, idle.stage) == ("NodeAffinity", PREFILTER)
    assert idle.message == "node(s) didn't satisfy plugin(s) [NodeAffinity]"
    assert ex.chosen == "busy"
    assert ex.sampling.candidates == 1


def test_no_nodes_at_all() -> None:
    fw, _ = framework([])
    ex = explain_pod(fw, make_pod().name("p").model(), [])
    assert ex.failed_scheduling == "no nodes available to schedule pods"
    assert ex.verdicts == ()


# --- sampling, errors, nominations, queueing, preemption ---------------------------------
def test_filter_runs_on_all_nodes_where_the_scheduler_samples() -> None:
    names = [f"n{i:03d}" for i in range(150)]

    def make() -> tuple[Framework, list[NodeInfo]]:
        return framework(names, percentage=10, score=[TableScore("S", dict.fromkeys(names, 1))])

    pod = make_pod().name("p").model()
    fw, nodes = make()
    ex = explain_pod(fw, pod, nodes)
    assert len(ex.verdicts) == 150
    assert len(ex.feasible) == 150
    assert ex.sampling.num_feasible_nodes_to_find == 100
    assert ex.sampling.samples
    sched_fw, sched_nodes = make()
    assert schedule_pod(sched_fw, CycleState(), pod, sched_nodes).evaluated_nodes == 100
    assert any("stops filtering after 100 feasible nodes" in note for note in ex.notes)


def test_a_plugin_error_is_reported_as_the_cycles_error() -> None:
    boom = Status(Code.ERROR, 'running "F" filter plugin: kaput')
    fw, nodes = framework(
        ["a", "b"], filter=[TableFilter("F", {"b": boom})], score=[TableScore("S", {"a": 1})]
    )
    ex = explain_pod(fw, make_pod().name("p").model(), nodes)
    assert "kaput" in ex.error
    assert not ex.chosen
    assert not ex.failed_scheduling
    b = next(v for v in ex.verdicts if v.node == "b")
    assert b.rejection is not None
    assert b.rejection.is_error
    assert summary(ex).startswith("error: the scheduling cycle would fail (SchedulerError): ")


def test_a_nominated_node_that_fits_is_taken_without_scoring() -> None:
    fw, nodes = framework(["a", "b"], score=[TableScore("S", {"a": 9, "b": 1})])
    obj = make_pod().name("p").obj()
    obj["status"]["nominatedNodeName"] = "b"
    ex = explain_pod(fw, Pod.from_json(obj), nodes)
    assert ex.chosen == "b"
    assert ex.best == ("a",)
    assert any("nominated to node b" in note for note in ex.notes)


def test_a_gated_pod_is_explained_with_a_note() -> None:
    pod = make_pod().name("gated").scheduling_gate("example.com/wait").model()
    fw, nodes = real_framework()
    ex = explain_pod(fw, pod, nodes)
    assert any(
        "does not enter the scheduling queue" in n and "SchedulingGates" in n for n in ex.notes
    )
    assert ex.chosen == "idle"


def test_preemption_is_reported_as_not_enabled_without_default_preemption() -> None:
    fw, nodes = framework(["a"], filter=[TableFilter("F", {"a": _unschedulable("no")})])
    ex = explain_pod(fw, make_pod().name("p").model(), nodes)
    assert ex.preemption == NOT_ENABLED
    assert ex.nominated_node == ""
    assert ex.victims == ()


def test_explain_leaves_the_framework_usable_and_writes_nothing() -> None:
    nodes, pods = cluster()
    handle = FakeHandle(nodes=nodes, pods=pods)
    fw = build_test_framework(handle=handle)
    explain_pod(fw, web_pod(), handle.list_node_infos())
    assert handle.binds == []
    assert handle.events == []
    assert fw.next_start_node_index == 0
