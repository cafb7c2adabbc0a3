"""What `Preemptions` reports to the metrics, as kube-scheduler's preemption does:
`scheduler_preemption_attempts_total`, `scheduler_preemption_victims` and the async
preemption runs (`scheduler_preemption_goroutines_execution_total`) always; with
`GenericWorkload`, the families of `workload_metrics` (evaluation and execution durations,
workload victims and disruptions, PDB violations)."""

from __future__ import annotations

from kubesched.framework import Code
from kubesched.plugins.default_preemption.victims import POD
from kubesched.scheduler.metrics import SchedulerMetrics


class PreemptionMetrics:
    """The preemption series of one process (nothing at all without `SchedulerMetrics`)."""

    def __init__(self, metrics: SchedulerMetrics | None) -> None:
        self._metrics = metrics
        self._workload = metrics.workload if metrics is not None else None

    def attempted(self, result: Code, seconds: float) -> None:
        """DefaultPreemption's PostFilter ran; its evaluation ended with `result`."""
        if self._metrics is not None:
            self._metrics.preemption_attempts.inc()
        if self._workload is not None:
            self._workload.evaluation_duration.labels(POD, str(result)).observe(seconds)

    def victims_chosen(
        self, preemptor: str, victims: int, *, group_disruptions: int = 0, pdb_violations: int = 0
    ) -> None:
        """A preemption starts (upstream `observeVictims`): a pod's victims count in
        `scheduler_preemption_victims`, a pod group's in the workload histogram."""
        if self._metrics is not None and preemptor == POD:
            self._metrics.preemption_victims.observe(victims)
        if self._workload is not None:
            self._workload.preemption_started(
                preemptor,
                victims=victims,
                group_disruptions=group_disruptions,
                pdb_violations=pdb_violations,
            )

    def run_ended(self, preemptor: str, *, failed: bool, seconds: float) -> None:
        """One background eviction run ended (an API call failed: `failed`)."""
        if self._metrics is None:
            return
        result = "error" if failed else "success"
        self._metrics.preemption_runs.labels(result).inc()
        if self._workload is not None:
            self._workload.execution_duration.labels(preemptor, result).observe(seconds)


__all__ = ["PreemptionMetrics"]
