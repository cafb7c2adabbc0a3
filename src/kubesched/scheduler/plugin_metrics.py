"""`scheduler_plugin_execution_duration_seconds` and `scheduler_plugin_evaluation_total`,
served from the plain store the Framework fills (`kubesched.runtime.plugin_metrics`): the
families are built when /metrics is scraped, never on the scheduling path."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from kubesched.runtime.plugin_metrics import (
    DURATION_BUCKETS,
    DurationSeries,
    PluginMetrics,
    cumulative,
)

DURATION_NAME = "scheduler_plugin_execution_duration_seconds"
EVALUATION_NAME = "scheduler_plugin_evaluation"
_BOUNDS = [repr(bound) for bound in DURATION_BUCKETS] + ["+Inf"]


class PluginMetricsCollector(Collector):
    """Both families, with kube-scheduler's help texts and labels."""

    def __init__(self, store: PluginMetrics) -> None:
        self._store = store

    def describe(self) -> Iterator[Metric]:
        """Nothing up front: the families exist once a plugin ran (as kube-scheduler's)."""
        return iter(())

    def collect(self) -> Iterator[Metric]:
        durations, evaluations = self._store.snapshot()
        if durations:
            yield self._durations(durations)
        if evaluations:
            yield self._evaluations(evaluations)

    @staticmethod
    def _durations(durations: dict[tuple[str, str, str], DurationSeries]) -> Metric:
        family = HistogramMetricFamily(
            DURATION_NAME,
            "Duration for running a plugin at a specific extension point.",
            labels=["plugin", "extension_point", "status"],
        )
        for labels, series in sorted(durations.items()):
            counts = list(cumulative(series.counts))
            buckets = list(zip(_BOUNDS, counts, strict=True))
            family.add_metric(list(labels), buckets, series.total)
        return family

    @staticmethod
    def _evaluations(evaluations: dict[tuple[str, str, str], int]) -> Metric:
        family = CounterMetricFamily(
            EVALUATION_NAME,
            "Number of attempts to schedule pods by each plugin and the extension point"
            " (available only in PreFilter, Filter, PreScore, and Score).",
            labels=["plugin", "extension_point", "profile"],
        )
        for labels, count in sorted(evaluations.items()):
            family.add_metric(list(labels), count)
        return family
