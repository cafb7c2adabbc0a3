"""`/metrics` as kube-scheduler's: after the same workload on the same control plane, every
family both export has the same type, label names and buckets, and the families dashboards
read (kubernetes-mixin's scheduler dashboard among them) are all there."""

from __future__ import annotations

from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, is_unschedulable, wait_for
from tests.e2e.test_serving import https_get

# What kubesched exports as kube-scheduler does. kube-scheduler's others are listed, with the
# reason kubesched lacks them, in docs/operations.md ("Metrics").
EXPECTED = (
    "scheduler_schedule_attempts",
    "scheduler_scheduling_attempt_duration_seconds",
    "scheduler_scheduling_algorithm_duration_seconds",
    "scheduler_pending_pods",
    "scheduler_pod_scheduling_attempts",
    "scheduler_pod_scheduling_sli_duration_seconds",
    "scheduler_framework_extension_point_duration_seconds",
    "scheduler_plugin_evaluation",
    "scheduler_queue_incoming_pods",
    "scheduler_queueing_hint_execution_duration_seconds",
    "scheduler_event_handling_duration_seconds",
    "scheduler_inflight_events",
    "scheduler_batch_attempts",
    "scheduler_batch_cache_flushed",
    "scheduler_get_node_hint_duration_seconds",
    "scheduler_store_schedule_results_duration_seconds",
    "scheduler_cache_size",
    "scheduler_preemption_attempts",
    "scheduler_preemption_victims",
    "scheduler_unschedulable_pods",
    "rest_client_requests",
    "rest_client_request_duration_seconds",
    "process_cpu_seconds",
    "process_resident_memory_bytes",
    "process_start_time_seconds",
    "process_open_fds",
    "process_max_fds",
    "process_virtual_memory_bytes",
    "leader_election_master_status",
)


_HINT = 'scheduler_queueing_hint_execution_duration_seconds_bucket{event="NodeAdd"'


def families(text: str) -> dict[str, tuple[str, tuple[str, ...], tuple[float, ...]]]:
    """Family name -> (type, label names, histogram bucket bounds)."""
    shapes: dict[str, tuple[str, tuple[str, ...], tuple[float, ...]]] = {}
    for family in text_string_to_metric_families(text):
        labels: set[str] = set()
        bounds: set[float] = set()
        for sample in family.samples:
            labels |= {name for name in sample.labels if name != "le"}
            if "le" in sample.labels:
                bounds.add(float(sample.labels["le"]))
        shapes[family.name] = (family.type, tuple(sorted(labels)), tuple(sorted(bounds)))
    return shapes


def workload(api: ApiClient, namespace: str, scheduler: str, prefix: str) -> None:
    """One pod that fits and one that fits nowhere, for `scheduler`."""
    fits = make_pod().name(f"{prefix}-fits").namespace(namespace).scheduler(scheduler).obj()
    huge = make_pod().name(f"{prefix}-huge").namespace(namespace).scheduler(scheduler)
    api.create(fits)
    api.create(huge.req(cpu="1000").obj())
    wait_for(
        lambda: api.get("Pod", f"{prefix}-fits", namespace=namespace),
        until=is_bound,
        message=f"{prefix}-fits is bound",
    )


def test_every_family_both_export_has_kube_schedulers_shape(
    kubesched: Any, api: ApiClient, namespace: str, local_cluster: LocalCluster
) -> None:
    api.create(make_node().name("metrics-node").obj())
    proc = kubesched(
        "--scheduler-name=metrics-scheduler",
        "-v=2",  # "Unable to schedule pod" is a V(2) line, as upstream's
        "--leader-elect=true",
        f"--leader-elect-resource-namespace={namespace}",
    )
    workload(api, namespace, "metrics-scheduler", "ours")
    workload(api, namespace, "default-scheduler", "theirs")
    proc.wait_log('"Unable to schedule pod" pod="' + namespace + '/ours-huge"')
    wait_for(
        lambda: api.get("Pod", "theirs-huge", namespace=namespace),
        until=is_unschedulable,
        message="kube-scheduler found no node for theirs-huge",
    )
    # A node too small for either huge pod: NodeResourcesFit's hint runs (and says skip).
    api.create(make_node().name("metrics-node-2").obj())
    token = local_cluster.admin_token
    port = local_cluster.scheduler_port
    assert port is not None
    # Gauges kubesched refreshes each second (pending and unschedulable pods).
    text = wait_for(
        lambda: https_get(proc.port, "/metrics", token)[1],
        until=lambda body: "scheduler_unschedulable_pods{" in body and _HINT in body,
        message="the unschedulable pod is counted and the hint timed",
    )
    ours = families(text)
    upstream = wait_for(
        lambda: https_get(port, "/metrics", token)[1],
        until=lambda body: _HINT in body,
        message="kube-scheduler timed the hint",
    )
    theirs = families(upstream)
    missing = [name for name in EXPECTED if name not in ours]
    assert not missing, f"kubesched lacks {missing}"
    absent_upstream = [name for name in EXPECTED if name not in theirs]
    assert not absent_upstream, f"kube-scheduler has no {absent_upstream}"
    different = {
        name: (ours[name], theirs[name])
        for name in ours
        if name in theirs
        and name.startswith(("scheduler_", "rest_client_", "leader_"))
        and ours[name] != theirs[name]
    }
    assert not different, different
    extra = [n for n in ours if n.startswith("scheduler_") and n not in theirs]
    assert not extra, f"families kube-scheduler does not export: {extra}"
