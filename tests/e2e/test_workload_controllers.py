"""kubesched serving the real workload controllers of kube-controller-manager, on nodes whose
kubelets kwok plays: Deployments roll out and restart, a StatefulSet starts in order, Job
pods that succeed make room for the pending ones, and kube-scheduler's workloads share the
same nodes without any overcommit (the oracle runs after every test)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from harness import ApiClient, is_unschedulable, node_name, wait_for
from harness.workload_fixtures import WORKLOAD_SCHEDULER
from harness.workloads import (
    deployment,
    job,
    kwok_node,
    pods_of,
    statefulset,
    unique,
    wait_all_scheduled_by,
    wait_rolled_out,
)

DEFAULT = "default-scheduler"


def running(pods: list[dict[str, Any]], count: int) -> bool:
    """True when there are `count` pods, all bound and Running."""
    return len(pods) == count and all(
        node_name(p) and p["status"].get("phase") == "Running" for p in pods
    )


def test_deployment_of_20_rolls_out_and_restarts_all_placed_by_kubesched(
    workload_namespace: str, api: ApiClient
) -> None:
    ns = workload_namespace
    nodes = [unique("web") for _ in range(3)]
    for name in nodes:
        api.create(kwok_node(name, cpu="4"))
    api.create(deployment(ns, "web", replicas=20, scheduler=WORKLOAD_SCHEDULER, cpu="200m"))

    wait_rolled_out(api, ns, "web")
    first = pods_of(api, ns, "web")
    assert running(first, 20), [(p["metadata"]["name"], p["status"].get("phase")) for p in first]
    assert {node_name(p) for p in first} <= set(nodes)
    wait_all_scheduled_by(api, ns, first, WORKLOAD_SCHEDULER)

    restarted_at = dt.datetime.now(dt.UTC).isoformat()
    annotation = {"kubectl.kubernetes.io/restartedAt": restarted_at}
    api.patch(
        "Deployment",
        "web",
        {"spec": {"template": {"metadata": {"annotations": annotation}}}},
        namespace=ns,
    )
    old = {p["metadata"]["uid"] for p in first}
    second = wait_for(
        lambda: pods_of(api, ns, "web"),
        until=lambda pods: running(pods, 20) and not old & {p["metadata"]["uid"] for p in pods},
        timeout=60,
        message="rollout restart replaced all 20 pods with Running ones",
    )
    wait_rolled_out(api, ns, "web")
    wait_all_scheduled_by(api, ns, second, WORKLOAD_SCHEDULER)


def test_statefulset_starts_in_order_placed_by_kubesched(
    workload_namespace: str, api: ApiClient
) -> None:
    ns = workload_namespace
    api.create(kwok_node(unique("sts"), cpu="2"))
    api.create(statefulset(ns, "db", replicas=3, scheduler=WORKLOAD_SCHEDULER, cpu="500m"))

    pods = wait_for(
        lambda: pods_of(api, ns, "db"),
        until=lambda found: running(found, 3),
        timeout=45,
        message="StatefulSet db has 3 Running pods",
    )
    assert sorted(p["metadata"]["name"] for p in pods) == ["db-0", "db-1", "db-2"]
    started = sorted(pods, key=lambda p: p["status"]["startTime"])
    assert [p["metadata"]["name"] for p in started] == ["db-0", "db-1", "db-2"]
    wait_all_scheduled_by(api, ns, pods, WORKLOAD_SCHEDULER)


def test_job_pods_that_succeed_free_room_for_the_pending_ones(
    workload_namespace: str, api: ApiClient
) -> None:
    ns = workload_namespace
    node = unique("batch")
    api.create(kwok_node(node, cpu="2"))
    api.create(
        job(ns, "crunch", completions=6, parallelism=6, scheduler=WORKLOAD_SCHEDULER, cpu="1")
    )

    # Room for two at a time: the other four wait, reported unschedulable.
    waiting = wait_for(
        lambda: [p for p in pods_of(api, ns, "crunch") if is_unschedulable(p)],
        until=lambda found: len(found) == 4,
        timeout=20,
        message="4 of the Job's 6 pods wait for room",
    )
    message = waiting[0]["status"]["conditions"][0]["message"]
    assert message.startswith("0/1 nodes are available: 1 Insufficient cpu."), message

    finished = wait_for(
        lambda: api.get("Job", "crunch", namespace=ns),
        until=lambda j: j.get("status", {}).get("succeeded") == 6,
        timeout=60,
        message="Job crunch: 6 pods Succeeded (each placed once room was freed)",
    )
    assert finished["status"].get("failed", 0) == 0
    pods = api.list("Pod", namespace=ns, label_selector="app=crunch")
    assert {node_name(p) for p in pods} == {node}
    wait_all_scheduled_by(api, ns, pods, WORKLOAD_SCHEDULER)


def test_kube_scheduler_and_kubesched_share_the_nodes_without_overcommit(
    workload_namespace: str, api: ApiClient
) -> None:
    ns = workload_namespace
    for name in (unique("shared"), unique("shared")):
        api.create(kwok_node(name, cpu="2"))
    # 10 pods of 500m for 4 CPU: 8 fit, whoever places them; 2 must wait.
    api.create(deployment(ns, "theirs", replicas=4, scheduler=DEFAULT, cpu="500m"))
    api.create(deployment(ns, "ours", replicas=6, scheduler=WORKLOAD_SCHEDULER, cpu="500m"))

    def all_settled() -> list[dict[str, Any]]:
        pods = pods_of(api, ns, "theirs") + pods_of(api, ns, "ours")
        return (
            pods
            if len(pods) == 10 and all(node_name(p) or is_unschedulable(p) for p in pods)
            else []
        )

    pods = wait_for(
        lambda: [p for p in all_settled() if node_name(p)],
        until=lambda bound: len(bound) == 8,
        timeout=30,
        message="8 of the 10 pods bound, the other 2 reported unschedulable",
    )
    for app, scheduler in (("theirs", DEFAULT), ("ours", WORKLOAD_SCHEDULER)):
        placed = [p for p in pods if p["metadata"]["labels"]["app"] == app]
        wait_all_scheduled_by(api, ns, placed, scheduler)
