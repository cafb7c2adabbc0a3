"""OpportunisticBatching's families (kube-scheduler v1.37 `pkg/scheduler/metrics`), filled by
each profile's batch (`kubesched.runtime.batch`) through a `ProfileBatchMetrics`."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from kubesched.runtime.batch import BatchMetrics
from kubesched.scheduler.prom import Counter, Histogram

_HINT_BUCKETS = tuple(0.00001 * 2**i for i in range(12))
"""Upstream `ExponentialBuckets(0.00001, 2, 12)`: 10 us up to about 20 ms."""


class BatchFamilies:
    """The six families, once per process; `for_profile` binds a profile's label."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.attempts = Counter(
            "scheduler_batch_attempts",
            "Counts of results when we attempt to use batching.",
            ["profile", "result"],
            registry=registry,
        )
        self.cache_flushed = Counter(
            "scheduler_batch_cache_flushed",
            "Counts of cache flushes by reason.",
            ["profile", "reason"],
            registry=registry,
        )
        self.rescore_attempts = Counter(
            "scheduler_batch_rescore_attempts",
            "Counts of rescore attempts during opportunistic batching.",
            ["profile"],
            registry=registry,
        )
        self.get_node_hint_duration = Histogram(
            "scheduler_get_node_hint_duration_seconds",
            "Latency for getting a node hint.",
            ["hinted", "profile"],
            buckets=_HINT_BUCKETS,
            registry=registry,
        )
        self.store_schedule_results_duration = Histogram(
            "scheduler_store_schedule_results_duration_seconds",
            "Latency for storing scheduling results.",
            ["profile"],
            buckets=_HINT_BUCKETS,
            registry=registry,
        )
        self.rescore_duration = Histogram(
            "scheduler_batch_rescore_duration_seconds",
            "Latency for rescoring a node during opportunistic batching.",
            ["profile"],
            buckets=_HINT_BUCKETS,
            registry=registry,
        )

    def for_profile(self, profile: str) -> BatchMetrics:
        return ProfileBatchMetrics(self, profile)


class ProfileBatchMetrics:
    """One profile's `BatchMetrics` (a series' child is looked up once, then kept)."""

    def __init__(self, families: BatchFamilies, profile: str) -> None:
        self._families = families
        self._profile = profile
        self._attempts: dict[str, Counter] = {}
        self._flushed: dict[str, Counter] = {}
        self._hint: dict[str, Histogram] = {}
        self._store: Histogram | None = None  # made on first use: served once it has a series

    def attempt(self, result: str) -> None:
        child = self._attempts.get(result)
        if child is None:
            child = self._attempts[result] = self._families.attempts.labels(self._profile, result)
        child.inc()

    def flushed(self, reason: str) -> None:
        child = self._flushed.get(reason)
        if child is None:
            child = self._flushed[reason] = self._families.cache_flushed.labels(
                self._profile, reason
            )
        child.inc()

    def hint_duration(self, hinted: str, seconds: float) -> None:
        child = self._hint.get(hinted)
        if child is None:
            child = self._hint[hinted] = self._families.get_node_hint_duration.labels(
                hinted, self._profile
            )
        child.observe(seconds)

    def store_duration(self, seconds: float) -> None:
        if self._store is None:
            self._store = self._families.store_schedule_results_duration.labels(self._profile)
        self._store.observe(seconds)

    def rescored(self, seconds: float) -> None:
        self._families.rescore_attempts.labels(self._profile).inc()
        self._families.rescore_duration.labels(self._profile).observe(seconds)
