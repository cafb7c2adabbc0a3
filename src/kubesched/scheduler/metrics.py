"""Metric definitions with kube-scheduler's names, so existing dashboards and alerts work.

One `SchedulerMetrics` per process, on its own registry (tests can create several).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from prometheus_client import CollectorRegistry, ProcessCollector, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from kubesched.runtime.batch import BatchMetrics
from kubesched.runtime.plugin_metrics import DurationSeries, PluginMetrics
from kubesched.scheduler.batch_metrics import BatchFamilies
from kubesched.scheduler.plugin_metrics import DurationsCollector, PluginMetricsCollector
from kubesched.scheduler.prom import Counter, Gauge, Histogram
from kubesched.scheduler.workload_metrics import WorkloadMetrics

# kube-scheduler exports no `*_created` series; nor does kubesched.
disable_created_metrics()  # type: ignore[no-untyped-call]

_ATTEMPT_BUCKETS = tuple(0.001 * 2**i for i in range(15))
_SLI_BUCKETS = tuple(0.01 * 2**i for i in range(20))
# client-go's rest_client_request_duration_seconds buckets.
_REST_CLIENT_BUCKETS = (0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
_EXTENSION_BUCKETS = tuple(0.0001 * 2**i for i in range(12))
_VICTIM_BUCKETS = tuple(float(2**i) for i in range(7))  # 1, 2, 4, ..., 64


class SchedulerMetrics:
    """The `scheduler_*` series kube-scheduler exports that kubesched can fill in."""

    def __init__(
        self,
        registry: CollectorRegistry | None = None,
        *,
        disabled: Iterable[str] = (),
        generic_workload: bool = False,
    ) -> None:
        """`disabled`: `--disabled-metrics` (full names, comma lists allowed; a counter may be
        named with or without `_total`). `generic_workload`: the feature gate, which adds
        the families of `workload_metrics` (as kube-scheduler registers them with it)."""
        self.registry = registry or CollectorRegistry()
        self._disabled = frozenset(
            name.strip() for item in disabled for name in item.split(",") if name.strip()
        )
        r = self.registry
        self.plugin_metrics = PluginMetrics()
        """For `build_framework(plugin_metrics=...)`: the store behind
        `scheduler_plugin_execution_duration_seconds` and `scheduler_plugin_evaluation_total`."""
        r.register(PluginMetricsCollector(self.plugin_metrics))
        self._scheduling_families(r)
        self._queue_families(r)
        self._client_families(r)
        ProcessCollector(registry=r)
        self._preemption_families(r)
        self.permit_wait_duration = Histogram(
            "scheduler_permit_wait_duration_seconds",
            "Duration of waiting on permit.",
            ["result"],
            buckets=_ATTEMPT_BUCKETS,
            registry=r,
        )
        self.workload = WorkloadMetrics(r) if generic_workload else None
        self._batch = BatchFamilies(r)
        self.events_dropped = Counter(
            "kubesched_events_dropped",
            "Events that could not be written, by reason (queue_full, write_failed, "
            "forbidden). kube-scheduler has no such metric; kubesched counts every drop.",
            ["reason"],
            registry=r,
        )
        for reason in ("queue_full", "write_failed", "forbidden"):
            self.events_dropped.labels(reason)  # exported as 0 from the start, for alerts
        self._election_families(r)

    def _scheduling_families(self, r: CollectorRegistry) -> None:
        """Attempts, their latency, pending pods, the SLI, extension points."""
        self.schedule_attempts = Counter(
            "scheduler_schedule_attempts",
            "Number of attempts to schedule pods, by the result.",
            ["result", "profile"],
            registry=r,
        )
        self.attempt_duration = Histogram(
            "scheduler_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
            ["result", "profile"],
            buckets=_ATTEMPT_BUCKETS,
            registry=r,
        )
        self.pending_pods = Gauge(
            "scheduler_pending_pods",
            "Number of pending pods, by the queue type.",
            ["queue"],
            registry=r,
        )
        self.pod_scheduling_attempts = Histogram(
            "scheduler_pod_scheduling_attempts",
            "Number of attempts to successfully schedule a pod.",
            buckets=(1, 2, 4, 8, 16),
            registry=r,
        )
        self.pod_scheduling_sli_duration = Histogram(
            "scheduler_pod_scheduling_sli_duration_seconds",
            "E2e latency for a pod being scheduled, from the time the pod enters the "
            "scheduling queue until it is bound.",
            ["attempts"],
            buckets=_SLI_BUCKETS,
            registry=r,
        )
        self.extension_point_duration = Histogram(
            "scheduler_framework_extension_point_duration_seconds",
            "Latency for running all plugins of a specific extension point.",
            ["extension_point", "status", "profile"],
            buckets=_EXTENSION_BUCKETS,
            registry=r,
        )

    def _queue_families(self, r: CollectorRegistry) -> None:
        """The queue, its hints, event handling, the cache, the algorithm."""
        self.queue_incoming_pods = Counter(
            "scheduler_queue_incoming_pods",
            "Number of pods added to scheduling queues by event and queue type.",
            ["queue", "event"],
            registry=r,
        )
        self.unschedulable_pods = Gauge(
            "scheduler_unschedulable_pods",
            "The number of unschedulable pods broken down by plugin name.",
            ["plugin", "profile"],
            registry=r,
        )
        self.queueing_hint_durations: dict[tuple[str, str, str], DurationSeries] = {}
        """`scheduler_queueing_hint_execution_duration_seconds` by (plugin, event, hint): a
        plain store (a Prometheus histogram's lock and per-bucket counters cost more than
        the hint it times, once per waiting pod per event)."""
        r.register(
            DurationsCollector(
                "scheduler_queueing_hint_execution_duration_seconds",
                "Duration for running a queueing hint function of a plugin.",
                ["plugin", "event", "hint"],
                self.queueing_hint_durations,
            )
        )
        self._request_children: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}
        """(code, method, host) -> its request counter and duration histogram."""
        self.event_handling_duration = Histogram(
            "scheduler_event_handling_duration_seconds",
            "Event handling latency in seconds.",
            ["event"],
            registry=r,
            buckets=_EXTENSION_BUCKETS,
        )
        self.cache_size = Gauge(
            "scheduler_cache_size",
            "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
            ["type"],
            registry=r,
        )
        self.algorithm_duration = Histogram(
            "scheduler_scheduling_algorithm_duration_seconds",
            "Scheduling algorithm latency in seconds",
            buckets=_ATTEMPT_BUCKETS,
            registry=r,
        )

    def _client_families(self, r: CollectorRegistry) -> None:
        """client-go's rest_client_* families."""
        self.rest_client_requests = Counter(
            "rest_client_requests",
            "Number of HTTP requests, partitioned by status code, method, and host.",
            ["code", "method", "host"],
            registry=r,
        )
        self.rest_client_duration = Histogram(
            "rest_client_request_duration_seconds",
            "Request latency in seconds. Broken down by verb, and host.",
            ["verb", "host"],
            buckets=_REST_CLIENT_BUCKETS,
            registry=r,
        )
        # client-go counts every attempt after the first here (rest/with_retry.go `After`);
        # each attempt is also one of rest_client_requests_total.
        self.rest_client_retries = Counter(
            "rest_client_request_retries",
            "Number of request retries, partitioned by status code, verb, and host.",
            ["code", "verb", "host"],
            registry=r,
        )

    def _preemption_families(self, r: CollectorRegistry) -> None:
        """Preemption attempts, victims and runs."""
        self.preemption_attempts = Counter(
            "scheduler_preemption_attempts",
            "Total preemption attempts in the cluster till now",
            registry=r,
        )
        self.preemption_victims = Histogram(
            "scheduler_preemption_victims",
            "Number of selected preemption victims for preemption initiated by a single pod",
            # As upstream: more than 64 victims is rare, [64, +Inf) is one bucket.
            buckets=_VICTIM_BUCKETS,
            registry=r,
        )
        # Async preemption (on by default upstream): one "goroutine" per preemption with
        # victims to evict; kubesched's is an asyncio task. (Its duration histogram is
        # deprecated and hidden in kube-scheduler v1.37: not exported.)
        self.preemption_runs = Counter(
            "scheduler_preemption_goroutines_execution",
            "Number of preemption goroutines executed.",
            ["result"],
            registry=r,
        )

    def _election_families(self, r: CollectorRegistry) -> None:
        """client-go's leader election families."""
        self.leader = Gauge(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
            "backup, 1 indicates master. 'name' is the string used to identify the lease.",
            ["name"],
            registry=r,
        )
        self.leader_slowpath = Counter(
            "leader_election_slowpath",
            "Total number of slow path exercised in renewing leader leases. 'name' is the "
            "string used to identify the lease.",
            ["name"],
            registry=r,
        )

    def extension_point_observer(self, profile: str) -> Callable[[str, str, float], None]:
        """For `build_framework(observe=...)`: one profile's extension point durations."""
        histogram = self.extension_point_duration
        children: dict[tuple[str, str], Histogram] = {}  # `labels()` costs a lookup per call

        def observe(point: str, status: str, seconds: float) -> None:
            child = children.get((point, status))
            if child is None:
                child = children[point, status] = histogram.labels(point, status, profile)
            child.observe(seconds)

        return observe

    def batch_metrics(self, profile: str) -> BatchMetrics:
        """For `build_framework(batch_metrics=...)`: one profile's OpportunisticBatching
        series (`scheduler_batch_*`, the node hint and store durations)."""
        return self._batch.for_profile(profile)

    def observe_queueing_hint(self, plugin: str, event: str, hint: str, seconds: float) -> None:
        """A queueing hint ran (a `kubesched.runtime.queueing.HintObserver`)."""
        key = (plugin, event, hint)
        series = self.queueing_hint_durations.get(key)
        if series is None:
            series = self.queueing_hint_durations[key] = DurationSeries()
        series.observe(seconds)

    def observe_event_handling(self, event: str, seconds: float) -> None:
        """An informer event was handled (cache and queue)."""
        self.event_handling_duration.labels(event).observe(seconds)

    def watch_inflight_events(self, counts: Mapping[str, int]) -> None:
        """`scheduler_inflight_events{event}` from the queue's counts, read at scrape time."""
        self.registry.register(_InFlightEventsCollector(counts))

    def observe_request(self, method: str, host: str, code: str, seconds: float) -> None:
        """A finished API request (a `kubesched.kube.observers.RequestObserver`)."""
        counted = self._request_children.get((code, method, host))
        if counted is None:
            counted = self._request_children[code, method, host] = (
                self.rest_client_requests.labels(code, method, host),
                self.rest_client_duration.labels(method, host),
            )
        counted[0].inc()
        counted[1].observe(seconds)

    def observe_retry(self, method: str, host: str, code: str) -> None:
        """A retried API request's attempt (a `kubesched.kube.observers.RetryObserver`)."""
        self.rest_client_retries.labels(code, method, host).inc()

    def exported(self) -> Collector:
        """What /metrics serves: every family but the disabled ones."""
        return _Exported(self.registry, self._disabled)

    def count_dropped_event(self, reason: str) -> None:
        """`EventRecorder(on_drop=...)`: one event lost for `reason`."""
        self.events_dropped.labels(reason).inc()

    def election(self, lease_name: str) -> ElectionMetricsAdapter:
        """The hooks the leader elector reports through, for one Lease."""
        return ElectionMetricsAdapter(self, lease_name)


class ElectionMetricsAdapter:
    """`leader_election_master_status` and `leader_election_slowpath_total` for one Lease."""

    def __init__(self, metrics: SchedulerMetrics, lease_name: str) -> None:
        self._metrics = metrics
        self._name = lease_name
        metrics.leader.labels(lease_name).set(0)

    def set_leading(self, leading: bool) -> None:
        self._metrics.leader.labels(self._name).set(1 if leading else 0)

    def slowpath_exercised(self) -> None:
        self._metrics.leader_slowpath.labels(self._name).inc()


class _Exported(Collector):
    """The registry without the disabled families, nor the labelled ones with no series
    yet (kube-scheduler prints a metric vector only once it has a child)."""

    def __init__(self, registry: CollectorRegistry, disabled: frozenset[str]) -> None:
        self._registry = registry
        self._disabled = disabled

    def collect(self) -> Iterator[Metric]:
        for family in self._registry.collect():
            disabled = family.name in self._disabled or f"{family.name}_total" in self._disabled
            if not disabled and family.samples:
                yield family


class _InFlightEventsCollector(Collector):
    """Events the queue keeps for pods in flight (`PodPopped`: the pods), as a gauge."""

    def __init__(self, counts: Mapping[str, int]) -> None:
        self._counts = counts

    def describe(self) -> Iterator[Metric]:
        return iter(())

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "scheduler_inflight_events",
            "Number of events currently tracked in the scheduling queue.",
            labels=["event"],
        )
        for label, value in sorted(self._counts.items()):
            family.add_metric([label], value)
        yield family
