"""kubesched serving the real workload controllers of kube-controller-manager, on nodes whose
kubelets kwok plays: Deployments roll out and restart, a StatefulSet starts in order, Job
pods that succeed make room for the pending ones, and kube-scheduler's workloads share the
same nodes without any overcommit (the oracle runs after every test). The PersistentVolume
controller binds claims, so the volume tests have a real binder to run against."""

from __future__ import annotations

import datetime as dt
from typing import Any

from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient, is_unschedulable, node_name, wait_for
from tests.e2e.harness.workload_fixtures import WORKLOAD_SCHEDULER
from tests.e2e.harness.workloads import (
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


def settle(api: ApiClient, ns: str, apps: dict[str, int]) -> list[dict[str, Any]]:
    """Wait until each app has its number of pods, each bound or reported unschedulable;
    return them."""

    def observe() -> list[dict[str, Any]]:
        pods = [pod for app in apps for pod in pods_of(api, ns, app)]
        counts = {app: sum(p["metadata"]["labels"]["app"] == app for p in pods) for app in apps}
        settled = all(node_name(p) or is_unschedulable(p) for p in pods)
        return pods if counts == apps and settled else []

    found: list[dict[str, Any]] = wait_for(
        observe, timeout=30, message=f"pods of {apps} bound or reported unschedulable"
    )
    return found


def test_kube_scheduler_and_kubesched_share_the_nodes_without_overcommit(
    workload_namespace: str, api: ApiClient
) -> None:
    """Each scheduler counts the pods the other placed. (Two schedulers deciding about the
    same node in the same instant can both place a pod there: that race is resolved by the
    kubelet's admission, which kwok does not play. So the workloads arrive one after the
    other, as the oracle needs.)"""
    ns = workload_namespace
    for name in (unique("shared"), unique("shared")):
        api.create(kwok_node(name, cpu="2"))
    # 4 CPU: kube-scheduler places 2 CPU worth of pods, kubesched fills the rest ...
    api.create(deployment(ns, "theirs", replicas=4, scheduler=DEFAULT, cpu="500m"))
    wait_rolled_out(api, ns, "theirs")
    api.create(deployment(ns, "ours", replicas=6, scheduler=WORKLOAD_SCHEDULER, cpu="500m"))
    pods = settle(api, ns, {"theirs": 4, "ours": 6})
    ours = [p for p in pods if p["metadata"]["labels"]["app"] == "ours"]
    assert sum(bool(node_name(p)) for p in ours) == 4, "kubesched saw kube-scheduler's pods"
    # ... and then kube-scheduler finds no room left by kubesched's pods.
    api.patch("Deployment", "theirs", {"spec": {"replicas": 6}}, namespace=ns)
    pods = settle(api, ns, {"theirs": 6, "ours": 6})
    theirs = [p for p in pods if p["metadata"]["labels"]["app"] == "theirs"]
    waiting = [p for p in theirs if not node_name(p)]
    assert len(waiting) == 2, "kube-scheduler saw kubesched's pods"
    for app, scheduler in (("theirs", DEFAULT), ("ours", WORKLOAD_SCHEDULER)):
        placed = [p for p in pods if p["metadata"]["labels"]["app"] == app and node_name(p)]
        wait_all_scheduled_by(api, ns, placed, scheduler)


def test_the_pv_controller_binds_claims_for_volume_aware_scheduling(
    workload_namespace: str, api: ApiClient
) -> None:
    """The local cluster binds claims (kube-controller-manager's PV binder), and kubesched,
    like kube-scheduler, takes the pod to its bound volume's node, not to the roomier one
    (tests/e2e/test_volume_parity.py compares both schedulers case by case)."""
    ns = workload_namespace
    near, far = unique("vol-near"), unique("vol-far")
    api.create(kwok_node(far, cpu="8"))
    api.create(kwok_node(near, cpu="1"))
    volume = unique("pv")
    api.create(local_volume(volume, node=near))
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": ns},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "",
            "resources": {"requests": {"storage": "1Gi"}},
        },
    }
    api.create(claim)
    bound = wait_for(
        lambda: api.get("PersistentVolumeClaim", "data", namespace=ns),
        until=lambda c: c.get("status", {}).get("phase") == "Bound",
        timeout=30,
        message="kube-controller-manager's PV binder bound the claim",
    )
    assert bound["spec"]["volumeName"] == volume
    pod = make_pod().name("uses-data").namespace(ns).scheduler(WORKLOAD_SCHEDULER).obj()
    pod["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    api.create(pod)
    placed = wait_for(
        lambda: api.get("Pod", "uses-data", namespace=ns),
        until=lambda p: p["status"].get("phase") == "Running",
        timeout=30,
        message="the pod runs where its volume is",
    )
    assert node_name(placed) == near, "the roomier node cannot reach the volume"
    api.delete("Pod", "uses-data", namespace=ns, grace_period=0)
    api.delete("PersistentVolumeClaim", "data", namespace=ns)
    api.delete("PersistentVolume", volume)


def local_volume(name: str, *, node: str) -> dict[str, Any]:
    """A 1Gi local PersistentVolume that only `node` can reach."""
    term = {
        "matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]
    }
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": "",
            "local": {"path": "/mnt/data"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
        },
    }
