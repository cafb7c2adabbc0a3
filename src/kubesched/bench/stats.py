"""Throughput and latency figures, computed the way kube-scheduler's scheduler_perf does.

Throughput: every `interval` seconds the number of bound measured pods is read. The first
non-zero reading only starts the clock (it is an outlier: sampling and pod creation start
independently). A reading with no new pod is not recorded as 0 pods/s: the interval is
folded into the next one that saw progress, and that throughput is recorded once for each
interval it spans, so percentiles stay weighted by time. Percentiles use the nearest rank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


def nearest_rank(sorted_values: Sequence[float], percent: float) -> float:
    """The value at rank ceil(n * percent / 100) (1-based) of ascending `sorted_values`."""
    if not sorted_values:
        return 0.0
    rank = max(math.ceil(len(sorted_values) * percent / 100), 1)
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass(slots=True)
class ThroughputSampler:
    """Feed it `(time, bound_count)` readings once per interval; it keeps pods/s samples."""

    interval: float = 1.0
    samples: list[float] = field(default_factory=list)
    _started: bool = False
    _last_count: int = 0
    _last_time: float = 0.0
    _skipped: int = 0

    def observe(self, now: float, bound: int) -> None:
        """One reading: `bound` measured pods are bound at monotonic time `now`."""
        if bound == 0:
            return
        if not self._started:
            self._started = True
            self._last_count, self._last_time = bound, now
            return
        new = bound - self._last_count
        if new == 0:
            self._skipped += 1
            return
        throughput = new / (now - self._last_time)
        self.samples.extend([throughput] * (self._skipped + 1))
        self._last_count, self._last_time, self._skipped = bound, now, 0


@dataclass(frozen=True, slots=True)
class Summary:
    """Average and percentiles of a list of samples."""

    average: float
    p50: float
    p90: float
    p99: float
    count: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Summary:
        ordered = sorted(samples)
        if not ordered:
            return cls(0.0, 0.0, 0.0, 0.0, 0)
        return cls(
            sum(ordered) / len(ordered),
            nearest_rank(ordered, 50),
            nearest_rank(ordered, 90),
            nearest_rank(ordered, 99),
            len(ordered),
        )
