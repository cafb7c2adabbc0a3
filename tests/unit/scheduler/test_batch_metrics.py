"""OpportunisticBatching's families with kube-scheduler v1.37's names, labels, help texts and
buckets, served once they have a series."""

from __future__ import annotations

from prometheus_client import generate_latest

from kubesched.scheduler.metrics import SchedulerMetrics


def served(metrics: SchedulerMetrics) -> str:
    return generate_latest(metrics.exported()).decode()


def test_nothing_is_served_before_a_batch_reports() -> None:
    metrics = SchedulerMetrics()
    metrics.batch_metrics("default-scheduler")  # as the server makes one per profile
    text = served(metrics)
    assert "batch" not in text
    assert "node_hint" not in text
    assert "store_schedule_results" not in text


def test_a_profiles_reports_land_in_upstreams_families() -> None:
    metrics = SchedulerMetrics()
    batch = metrics.batch_metrics("default-scheduler")
    batch.attempt("no_hint")
    batch.attempt("no_hint")
    batch.flushed("pod_not_batchable")
    batch.hint_duration("no_hint", 0.00002)
    batch.store_duration(0.00001)
    batch.rescored(0.0001)
    text = served(metrics)
    profile = 'profile="default-scheduler"'
    for line in (
        "# HELP scheduler_batch_attempts_total Counts of results when we attempt to use batching.",
        f'scheduler_batch_attempts_total{{{profile},result="no_hint"}} 2.0',
        "# HELP scheduler_batch_cache_flushed_total Counts of cache flushes by reason.",
        f'scheduler_batch_cache_flushed_total{{{profile},reason="pod_not_batchable"}} 1.0',
        (
            "# HELP scheduler_batch_rescore_attempts_total"
            " Counts of rescore attempts during opportunistic batching."
        ),
        f"scheduler_batch_rescore_attempts_total{{{profile}}} 1.0",
        "# HELP scheduler_get_node_hint_duration_seconds Latency for getting a node hint.",
        f'scheduler_get_node_hint_duration_seconds_count{{hinted="no_hint",{profile}}} 1.0',
        (
            "# HELP scheduler_store_schedule_results_duration_seconds"
            " Latency for storing scheduling results."
        ),
        f"scheduler_store_schedule_results_duration_seconds_count{{{profile}}} 1.0",
        (
            "# HELP scheduler_batch_rescore_duration_seconds"
            " Latency for rescoring a node during opportunistic batching."
        ),
        f"scheduler_batch_rescore_duration_seconds_count{{{profile}}} 1.0",
    ):
        assert line in text, line
    # ExponentialBuckets(0.00001, 2, 12): 1e-05 ... 0.02048, then +Inf.
    bounds = [
        line.split('le="')[1].split('"')[0]
        for line in text.splitlines()
        if line.startswith("scheduler_get_node_hint_duration_seconds_bucket")
    ]
    assert bounds[0] == "1e-05"
    assert bounds[-2:] == ["0.02048", "+Inf"]
    assert len(bounds) == 13
