"""Per-plugin metrics: `scheduler_plugin_execution_duration_seconds` (plugin, extension_point,
status) and `scheduler_plugin_evaluation_total` (plugin, extension_point, profile), as
kube-scheduler v1.37 records them.

- Durations are taken on sampled cycles only: the scheduler marks 10 % of its cycles
  (`CycleState.record_plugin_metrics`, upstream `pluginMetricsSamplePercent`), and every
  plugin call of such a cycle is timed, Filter and Score per node as upstream. The timed calls
  are a second list of callables, so a cycle that is not sampled runs exactly the code it ran
  before.
- Evaluations are counted on every cycle, for PreFilter and PreScore (when the plugin did not
  return Skip) and for Filter and Score per node, as upstream's instrumented plugins count
  them. A result kubesched reuses from its memo (`kubesched.runtime.memo`) is not an
  evaluation: the plugin did not run, as upstream's batched pods do not run it.

The storage is plain Python (a bisect into the buckets, integer counts): a Prometheus
histogram costs a lock and a label look-up per observation, which a per-node hot loop cannot
pay. `kubesched.scheduler.metrics` turns it into the two families at scrape time.
"""

from __future__ import annotations

import functools
import time
from bisect import bisect_left
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kubesched.runtime.instrument import status_label

PLUGIN_METRICS_SAMPLE_PERCENT = 10
"""Upstream `pluginMetricsSamplePercent`: the share of cycles whose plugin calls are timed."""


def _exponential_buckets(start: float, factor: float, count: int) -> tuple[float, ...]:
    """As Prometheus' Go client computes them (each bound the previous one times `factor`),
    so the bounds are the same floats as kube-scheduler's."""
    bounds = [start]
    while len(bounds) < count:
        bounds.append(bounds[-1] * factor)
    return tuple(bounds)


DURATION_BUCKETS: tuple[float, ...] = _exponential_buckets(0.00001, 1.5, 20)
"""Upstream `ExponentialBuckets(0.00001, 1.5, 20)`: 10 us up to about 22 ms."""


@dataclass(slots=True)
class DurationSeries:
    """One (plugin, extension_point, status) series: cumulative-ready bucket counts."""

    counts: list[int] = field(default_factory=lambda: [0] * (len(DURATION_BUCKETS) + 1))
    total: float = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(DURATION_BUCKETS, seconds)] += 1
        self.total += seconds


class PluginMetrics:
    """The storage of both families for the whole process (all profiles)."""

    def __init__(self) -> None:
        self.durations: dict[tuple[str, str, str], DurationSeries] = {}
        self.evaluations: dict[tuple[str, str, str], int] = {}
        self._flushers: list[Callable[[], None]] = []

    def observe(self, plugin: str, point: str, status: str, seconds: float) -> None:
        """One timed plugin call."""
        key = (plugin, point, status)
        series = self.durations.get(key)
        if series is None:
            series = self.durations[key] = DurationSeries()
        series.observe(seconds)

    def evaluated(self, plugin: str, point: str, profile: str, count: int = 1) -> None:
        """`count` evaluations of `plugin` at `point` in `profile`."""
        if count:
            key = (plugin, point, profile)
            self.evaluations[key] = self.evaluations.get(key, 0) + count

    def add_flusher(self, flush: Callable[[], None]) -> None:
        """Called before the evaluations are read (a Framework adds its pending counts)."""
        self._flushers.append(flush)

    def snapshot(
        self,
    ) -> tuple[dict[tuple[str, str, str], DurationSeries], dict[tuple[str, str, str], int]]:
        """Both stores, after every pending count was added."""
        for flush in self._flushers:
            flush()
        return self.durations, self.evaluations


F = TypeVar("F", bound=Callable[..., Any])


def timed_call(metrics: PluginMetrics, plugin: str, point: str, call: F) -> F:
    """`call` with each invocation timed into `metrics` (a raise is labelled Error)."""

    @functools.wraps(call)
    def timed(*args: Any) -> Any:
        started = time.perf_counter()
        label = "Error"
        try:
            result = call(*args)
            label = status_label(result)
            return result
        finally:
            metrics.observe(plugin, point, label, time.perf_counter() - started)

    return timed  # type: ignore[return-value]


async def timed_await(
    metrics: PluginMetrics | None, plugin: str, point: str, awaitable: Awaitable[Any]
) -> Any:
    """Await a plugin's (possibly asynchronous) result, timing it when `metrics` is set."""
    if metrics is None:
        return await awaitable
    started = time.perf_counter()
    label = "Error"
    try:
        result = await awaitable
        label = status_label(result)
        return result
    finally:
        metrics.observe(plugin, point, label, time.perf_counter() - started)


def cumulative(counts: list[int]) -> Iterator[int]:
    """Bucket counts as Prometheus wants them: each bucket includes the smaller ones."""
    running = 0
    for count in counts:
        running += count
        yield running
