"""The metric families kube-scheduler v1.37 registers only with the `GenericWorkload`
feature gate: pod-group cycles, pod-group (workload) preemption, and the timing of every
preemption's evaluation and execution. Same names, labels and buckets as upstream's.

    metrics = SchedulerMetrics(generic_workload=True)
    metrics.workload.group_attempt(SCHEDULED, profile="p", seconds=0.02)

The `preemptor` labels are `victims.POD` and `victims.PODGROUP` (upstream's entity types).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from kubesched.plugins.default_preemption.victims import PODGROUP
from kubesched.scheduler.placement_metrics import PlacementMetrics
from kubesched.scheduler.prom import Counter, Histogram

SCHEDULED = "scheduled"
UNSCHEDULABLE = "unschedulable"
WAITING_ON_PREEMPTION = "waiting_on_preemption"
ERROR = "error"

_SECONDS_15 = tuple(0.001 * 2**i for i in range(15))  # 1 ms .. ~16 s
_SECONDS_16 = tuple(0.001 * 2**i for i in range(16))  # 1 ms .. ~32.8 s
_UNITS = tuple(float(2**i) for i in range(11))  # 1 .. 1024


class WorkloadMetrics:
    """The `GenericWorkload` families, on the process's registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        r = registry
        self._registry = registry
        self._placements: PlacementMetrics | None = None
        self.group_attempts = Counter(
            "scheduler_podgroup_schedule_attempts",
            "Number of attempts to schedule pod group, by the result. 'unschedulable' means a "
            "pod group could not be scheduled, while 'error' means an internal scheduler "
            "problem.",
            ["result", "profile"],
            registry=r,
        )
        self.group_attempt_duration = Histogram(
            "scheduler_podgroup_scheduling_attempt_duration_seconds",
            "Pod group scheduling attempt latency in seconds",
            ["result", "profile"],
            buckets=_SECONDS_15,
            registry=r,
        )
        self.group_algorithm_duration = Histogram(
            "scheduler_podgroup_scheduling_algorithm_duration_seconds",
            "Pod group scheduling algorithm latency in seconds",
            buckets=_SECONDS_15,
            registry=r,
        )
        self.preemption_attempts = Counter(
            "scheduler_workload_preemption_attempts",
            "Total preemption attempts initiated by workload (including pod groups) in the "
            "cluster till now.",
            ["result"],
            registry=r,
        )
        self.preemption_victims = Histogram(
            "scheduler_workload_preemption_victims",
            "Number of pod preemption victims caused by workload preemption.",
            buckets=_UNITS,
            registry=r,
        )
        self.disruptions = Histogram(
            "scheduler_preemption_workload_disruptions",
            "Number of workload preemption units being preempted. A single preemption unit "
            "can be all pods in a pod group (in case of DisruptionMode=all), or a single pod "
            "(in case of DisruptionMode=single).",
            ["preemptor"],
            buckets=_UNITS,
            registry=r,
        )
        self.evaluation_duration = Histogram(
            "scheduler_preemption_evaluation_duration_seconds",
            "Duration in seconds for identifying the target preemption victims.",
            ["preemptor", "result"],
            buckets=_SECONDS_16,
            registry=r,
        )
        self.execution_duration = Histogram(
            "scheduler_preemption_execution_duration_seconds",
            "Duration in seconds for preempting the target preemption victims. With async "
            "preemption enabled, preemption execution does not block the scheduling of "
            "other pods.",
            ["preemptor", "result"],
            buckets=_SECONDS_16,
            registry=r,
        )
        self.pdb_violations = Counter(
            "scheduler_preemption_pdb_violations",
            "Total number of pod disruption budget violations caused by preemption.",
            ["preemptor"],
            registry=r,
        )

    @property
    def placements(self) -> PlacementMetrics:
        """The `TopologyAwareWorkloadScheduling` families, registered on first use."""
        if self._placements is None:
            self._placements = PlacementMetrics(self._registry)
        return self._placements

    def group_attempt(self, result: str, *, profile: str, seconds: float) -> None:
        """One pod-group cycle ended with `result` (SCHEDULED, UNSCHEDULABLE, ...)."""
        self.group_attempts.labels(result, profile).inc()
        self.group_attempt_duration.labels(result, profile).observe(seconds)

    def preemption_started(
        self, preemptor: str, *, victims: int, group_disruptions: int, pdb_violations: int
    ) -> None:
        """A preemption's victims were chosen (upstream `observeVictims`, for what this
        module holds; a pod's victims go to `scheduler_preemption_victims`)."""
        if preemptor == PODGROUP:
            self.preemption_victims.observe(victims)
        if group_disruptions > 0:
            self.disruptions.labels(preemptor).observe(group_disruptions)
        if pdb_violations > 0:
            self.pdb_violations.labels(preemptor).inc(pdb_violations)


__all__ = [
    "ERROR",
    "SCHEDULED",
    "UNSCHEDULABLE",
    "WAITING_ON_PREEMPTION",
    "WorkloadMetrics",
]
