"""The metric families kube-scheduler v1.37 registers only with the
`TopologyAwareWorkloadScheduling` feature gate (upstream `RecordGeneratedPlacements`,
`ObservePlacementEvaluation`). Same names, labels and buckets as upstream's.

`WorkloadMetrics.placements` registers them on the first pod-group cycle that generates
placements (only with the gate on): a labelled family without samples shows nothing upstream
either.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from kubesched.scheduler.prom import Counter, Histogram

FEASIBLE = "feasible"
INFEASIBLE = "infeasible"

_SECONDS_15 = tuple(0.001 * 2**i for i in range(15))  # 1 ms .. ~16 s
_EVALUATION_HELP = (
    "when scheduling pod groups, by result. 'feasible' means the pod group fit into the "
    "placement, while 'infeasible' means it did not."
)


class PlacementMetrics:
    """`scheduler_generated_placements_total`, `scheduler_placement_evaluations_total`,
    `scheduler_placement_evaluation_duration_seconds`."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.generated = Counter(
            "scheduler_generated_placements",
            "Number of candidate placements generated when scheduling pod groups.",
            ["profile"],
            registry=registry,
        )
        self.evaluations = Counter(
            "scheduler_placement_evaluations",
            f"Number of candidate placements evaluated {_EVALUATION_HELP}",
            ["result", "profile"],
            registry=registry,
        )
        self.evaluation_duration = Histogram(
            "scheduler_placement_evaluation_duration_seconds",
            f"Latency in seconds of evaluating a single candidate placement {_EVALUATION_HELP}",
            ["result", "profile"],
            buckets=_SECONDS_15,
            registry=registry,
        )

    def record_generated(self, profile: str, count: int) -> None:
        """Upstream `RecordGeneratedPlacements`."""
        self.generated.labels(profile).inc(count)

    def observe_evaluation(self, result: str, profile: str, seconds: float) -> None:
        """Upstream `ObservePlacementEvaluation`: one placement tried, FEASIBLE or not."""
        self.evaluations.labels(result, profile).inc()
        self.evaluation_duration.labels(result, profile).observe(seconds)


__all__ = ["FEASIBLE", "INFEASIBLE", "PlacementMetrics"]
