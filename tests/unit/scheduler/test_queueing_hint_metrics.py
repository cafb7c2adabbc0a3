"""`scheduler_queueing_hint_execution_duration_seconds{plugin,event,hint}`, kept in a plain
store and built at scrape time: served exactly as the Prometheus histogram of the same name,
labels, help text and buckets would serve it, only once a hint ran, and not when disabled."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram, generate_latest

from kubesched.runtime.plugin_metrics import DURATION_BUCKETS
from kubesched.scheduler.metrics import SchedulerMetrics

NAME = "scheduler_queueing_hint_execution_duration_seconds"
RUNS = [
    ("NodeResourcesFit", "AssignedPodDelete", "Queue", 0.00002),
    ("NodeResourcesFit", "AssignedPodDelete", "Queue", 0.0004),
    ("DefaultPreemption", "AssignedPodDelete", "QueueSkip", 0.000001),
    ("NodePorts", "NodeAdd", "Error", 3.0),
]


def _lines(text: bytes) -> list[str]:
    return [line for line in text.decode().splitlines() if NAME in line]


def test_the_hint_durations_read_as_a_prometheus_histogram_would() -> None:
    metrics = SchedulerMetrics()
    assert NAME not in {family.name for family in metrics.exported().collect()}
    reference = CollectorRegistry()
    histogram = Histogram(
        NAME,
        "Duration for running a queueing hint function of a plugin.",
        ["plugin", "event", "hint"],
        registry=reference,
        buckets=DURATION_BUCKETS,
    )
    for plugin, event, hint, seconds in RUNS:
        metrics.observe_queueing_hint(plugin, event, hint, seconds)
        histogram.labels(plugin, event, hint).observe(seconds)
    served = _lines(generate_latest(metrics.exported()))
    assert served
    assert sorted(served) == sorted(_lines(generate_latest(reference)))


def test_the_hint_durations_can_be_disabled() -> None:
    metrics = SchedulerMetrics(disabled=[NAME])
    metrics.observe_queueing_hint("NodePorts", "NodeAdd", "Queue", 0.001)
    assert _lines(generate_latest(metrics.exported())) == []
