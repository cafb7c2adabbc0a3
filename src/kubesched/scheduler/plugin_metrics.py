"""`scheduler_plugin_execution_duration_seconds` and `scheduler_plugin_evaluation_total`,
served from the plain store the Framework fills (`kubesched.runtime.plugin_metrics`), and
`scheduler_queueing_hint_execution_duration_seconds` from the same kind of store: the
families are built when /metrics is scraped, never on the scheduling or queueing path."""

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
        return histogram(
            DURATION_NAME,
            "Duration for running a plugin at a specific extension point.",
            ["plugin", "extension_point", "status"],
            durations,
        )

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


class DurationsCollector(Collector):
    """One histogram family of `DURATION_BUCKETS` served from `store` (labels -> series),
    once it has a series."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labels: list[str],
        store: dict[tuple[str, str, str], DurationSeries],
    ) -> None:
        self._name, self._documentation, self._labels = name, documentation, labels
        self._store = store

    def describe(self) -> Iterator[Metric]:
        return iter(())

    def collect(self) -> Iterator[Metric]:
        if self._store:
            yield histogram(self._name, self._documentation, self._labels, self._store)


def histogram(
    name: str,
    documentation: str,
    labels: list[str],
    durations: dict[tuple[str, str, str], DurationSeries],
) -> Metric:
    """A histogram family of `DURATION_BUCKETS` from plain series."""
    family = HistogramMetricFamily(name, documentation, labels=labels)
    for values, series in sorted(durations.items()):
        counts = list(cumulative(series.counts))
        buckets = list(zip(_BOUNDS, counts, strict=True))
        family.add_metric(list(values), buckets, series.total)
    return family
