"""Per-plugin metrics: evaluations counted on every cycle as upstream's instrumented plugins
count them, durations only on sampled cycles, and both served in Prometheus' text format."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.runtime import Framework, schedule_pod
from kubesched.runtime.framework import PluginLists
from kubesched.runtime.instrument import status_label
from kubesched.runtime.plugin_metrics import DURATION_BUCKETS, PluginMetrics
from kubesched.scheduler.plugin_metrics import PluginMetricsCollector
from kubesched.testing import FakeHandle, make_node, make_pod
from tests.unit.runtime.fw_fakes import FakeFilter, FakePreFilter, FakeReserve, FakeScore

NAMES = ["a", "b", "c", "d"]
REJECT = Status(Code.UNSCHEDULABLE, "nope")


def framework(store: PluginMetrics, **lists: Any) -> tuple[Framework, list[NodeInfo]]:
    handle = FakeHandle(nodes=[make_node().name(n).model() for n in NAMES])
    fw = Framework(
        profile_name="prof",
        plugins=PluginLists(**lists),
        score_weights={pl.name: 1 for pl in lists.get("score", [])},
        percentage_of_nodes_to_score=None,
        handle=handle,
        plugin_metrics=store,
    )
    return fw, list(handle.list_node_infos())


def evaluations(store: PluginMetrics) -> dict[tuple[str, str], int]:
    _, counts = store.snapshot()
    return {(plugin, point): n for (plugin, point, _profile), n in counts.items()}


def run_cycle(fw: Framework, nodes: list[NodeInfo], *, sampled: bool) -> None:
    state = CycleState()
    state.record_plugin_metrics = sampled
    schedule_pod(fw, state, make_pod().model(), nodes)


def test_filter_evaluations_stop_at_the_rejecting_plugin() -> None:
    store = PluginMetrics()
    first = FakeFilter("First", reject={"a": REJECT})
    second = FakeFilter("Second", reject={"b": REJECT})
    score = FakeScore("S", dict.fromkeys(NAMES, 1))
    fw, nodes = framework(store, filter=[first, second], score=[score])
    run_cycle(fw, nodes, sampled=False)
    # First ran on 4 nodes, Second on the 3 that First let through, S scored the 2 left.
    assert evaluations(store) == {
        ("First", "Filter"): 4,
        ("Second", "Filter"): 3,
        ("S", "Score"): 2,
    }
    assert not store.durations


def test_a_pre_filter_skip_is_not_an_evaluation_and_skips_the_filter_count() -> None:
    store = PluginMetrics()
    skipper = SkippingFilter("Skipper")
    other = FakePreFilter("Other", None)
    fw, nodes = framework(store, pre_filter=[skipper, other], filter=[skipper])
    run_cycle(fw, nodes, sampled=False)
    fw.flush_filter_evaluations()
    assert evaluations(store) == {("Other", "PreFilter"): 1}


class SkippingFilter(FakeFilter):
    def pre_filter(self, *_: object) -> Status:
        return Status(Code.SKIP)


def test_sampled_cycles_time_each_plugin_call_with_its_status() -> None:
    store = PluginMetrics()
    log: list[str] = []
    fw, nodes = framework(
        store,
        filter=[FakeFilter("F", reject={"a": REJECT})],
        score=[FakeScore("S", dict.fromkeys(NAMES, 1))],
        reserve=[FakeReserve("R", log)],
    )
    run_cycle(fw, nodes, sampled=True)
    state = CycleState()
    state.record_plugin_metrics = True
    fw.run_reserve(state, make_pod().model(), "b")
    observed = {key: sum(series.counts) for key, series in store.durations.items()}
    assert observed == {
        ("F", "Filter", "Unschedulable"): 1,
        ("F", "Filter", "Success"): 3,
        ("S", "Score", "Success"): 3,
        ("R", "Reserve", "Success"): 1,
    }


def test_the_families_are_served_with_kube_schedulers_names_and_buckets() -> None:
    store = PluginMetrics()
    store.observe("F", "Filter", "Success", 0.00002)  # between 1.5e-05 and 2.25e-05
    store.evaluated("F", "Filter", "prof", 7)
    registry = CollectorRegistry()
    registry.register(PluginMetricsCollector(store))
    families = {
        f.name: f for f in text_string_to_metric_families(generate_latest(registry).decode())
    }
    (evaluation,) = families["scheduler_plugin_evaluation"].samples
    assert evaluation.labels == {"plugin": "F", "extension_point": "Filter", "profile": "prof"}
    assert evaluation.value == 7
    buckets = {
        float(s.labels["le"]): s.value
        for s in families["scheduler_plugin_execution_duration_seconds"].samples
        if s.name.endswith("_bucket")
    }
    assert len(buckets) == len(DURATION_BUCKETS) + 1
    assert buckets[DURATION_BUCKETS[1]] == 0
    assert buckets[DURATION_BUCKETS[2]] == 1
    assert buckets[float("inf")] == 1


def test_an_empty_store_serves_no_family() -> None:
    registry = CollectorRegistry()
    registry.register(PluginMetricsCollector(PluginMetrics()))
    assert "scheduler_plugin" not in generate_latest(registry).decode()


def test_status_labels() -> None:
    assert status_label(None) == "Success"
    assert status_label(REJECT) == "Unschedulable"
    assert status_label((REJECT, 10.0)) == "Unschedulable"
    assert status_label((None, Status(Code.ERROR, "x"))) == "Error"
