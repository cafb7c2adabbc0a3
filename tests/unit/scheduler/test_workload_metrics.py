"""kube-scheduler v1.37 registers the pod-group and workload-preemption families only with the
`GenericWorkload` gate, and the async-preemption run families always; so does kubesched."""

from __future__ import annotations

from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption_metrics import PreemptionMetrics

GATED = {
    "scheduler_podgroup_schedule_attempts",
    "scheduler_podgroup_scheduling_attempt_duration_seconds",
    "scheduler_podgroup_scheduling_algorithm_duration_seconds",
    "scheduler_workload_preemption_attempts",
    "scheduler_workload_preemption_victims",
    "scheduler_preemption_workload_disruptions",
    "scheduler_preemption_evaluation_duration_seconds",
    "scheduler_preemption_execution_duration_seconds",
    "scheduler_preemption_pdb_violations",
}
ALWAYS = {"scheduler_preemption_goroutines_execution", "scheduler_permit_wait_duration_seconds"}


def names(metrics: SchedulerMetrics) -> set[str]:
    return {family.name for family in metrics.registry.collect()}


def test_the_workload_families_come_with_the_gate_only() -> None:
    assert not names(SchedulerMetrics()) & GATED
    assert names(SchedulerMetrics(generic_workload=True)) >= GATED
    assert names(SchedulerMetrics()) >= ALWAYS


def test_a_labelled_family_is_served_once_it_has_a_series() -> None:
    metrics = SchedulerMetrics()
    served = {family.name for family in metrics.exported().collect()}
    assert "scheduler_preemption_goroutines_execution" not in served
    assert "scheduler_preemption_attempts" in served  # unlabelled: 0 from the start
    metrics.preemption_runs.labels("success").inc()
    served = {family.name for family in metrics.exported().collect()}
    assert "scheduler_preemption_goroutines_execution" in served


def test_a_groups_victims_disruptions_and_pdb_violations() -> None:
    metrics = SchedulerMetrics(generic_workload=True)
    PreemptionMetrics(metrics).victims_chosen("podgroup", 5, group_disruptions=2, pdb_violations=1)

    def value(name: str, **labels: str) -> float | None:
        return metrics.registry.get_sample_value(name, labels)

    assert value("scheduler_workload_preemption_victims_sum") == 5
    assert value("scheduler_preemption_victims_count") == 0  # a pod's metric, not a group's
    assert value("scheduler_preemption_workload_disruptions_sum", preemptor="podgroup") == 2
    assert value("scheduler_preemption_pdb_violations_total", preemptor="podgroup") == 1
    bounds = "scheduler_workload_preemption_victims_bucket"
    assert value(bounds, le="1024.0") == 1  # 1, 2, 4, ..., 1024 as upstream


def test_without_metrics_nothing_is_reported() -> None:
    PreemptionMetrics(None).victims_chosen("pod", 3)
    PreemptionMetrics(None).run_ended("pod", failed=True, seconds=0.1)
