"""Workloads on the whole local cluster (kube-controller-manager + kwok): builders for
Deployments, StatefulSets and Jobs, kwok-managed nodes, and who scheduled which pod.

    api.create(kwok_node("n1", cpu="4"))
    api.create(deployment(namespace, "web", replicas=20, scheduler="my-scheduler", cpu="200m"))
    wait_rolled_out(api, namespace, "web")
    schedulers_of(api, namespace)      # {pod uid: {"my-scheduler"}} from the Scheduled events
"""

from __future__ import annotations

import secrets
from typing import Any

from kubesched.localcluster.kwok import NODE_LABEL
from kubesched.testing import make_node, make_pod
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.waiting import wait_for

WORKLOAD_KINDS = ("Deployment", "StatefulSet", "Job")


def unique(name: str) -> str:
    """`name` with a random suffix (node names are cluster-wide; tests must not reuse them
    while the pod garbage collector may still be deleting pods bound to an old one)."""
    return f"{name}-{secrets.token_hex(2)}"


def kwok_node(name: str, **capacity: str) -> dict[str, Any]:
    """A Node that kwok manages (its kubelet is simulated): Lease heartbeats, pods Running."""
    return make_node().name(name).label(*NODE_LABEL).capacity(**capacity).obj()


def pod_template(app: str, *, scheduler: str, cpu: str, restart: str = "Always") -> dict[str, Any]:
    """A pod template labelled `app=<app>` for `scheduler`, requesting `cpu`."""
    pod = make_pod().scheduler(scheduler).req(cpu=cpu).obj()
    pod["spec"]["restartPolicy"] = restart
    pod["spec"]["terminationGracePeriodSeconds"] = 1
    return {"metadata": {"labels": {"app": app}}, "spec": pod["spec"]}


def _workload(kind: str, api_version: str, namespace: str, name: str, spec: dict[str, Any]) -> Any:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def deployment(
    namespace: str, name: str, *, replicas: int, scheduler: str, cpu: str
) -> dict[str, Any]:
    """A Deployment of `replicas` pods for `scheduler`."""
    spec = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": name}},
        "template": pod_template(name, scheduler=scheduler, cpu=cpu),
    }
    result: dict[str, Any] = _workload("Deployment", "apps/v1", namespace, name, spec)
    return result


def statefulset(
    namespace: str, name: str, *, replicas: int, scheduler: str, cpu: str
) -> dict[str, Any]:
    """A StatefulSet (ordered start: each pod waits for the one before to be Ready)."""
    spec = {
        "replicas": replicas,
        "serviceName": name,
        "selector": {"matchLabels": {"app": name}},
        "template": pod_template(name, scheduler=scheduler, cpu=cpu),
    }
    result: dict[str, Any] = _workload("StatefulSet", "apps/v1", namespace, name, spec)
    return result


def job(
    namespace: str, name: str, *, completions: int, parallelism: int, scheduler: str, cpu: str
) -> dict[str, Any]:
    """A Job whose pods kwok ends Succeeded a moment after they run."""
    spec = {
        "completions": completions,
        "parallelism": parallelism,
        "backoffLimit": 0,
        "template": pod_template(name, scheduler=scheduler, cpu=cpu, restart="Never"),
    }
    result: dict[str, Any] = _workload("Job", "batch/v1", namespace, name, spec)
    return result


def pods_of(api: ApiClient, namespace: str, app: str) -> list[dict[str, Any]]:
    """The pods labelled `app=<app>` that are not being deleted."""
    pods = api.list("Pod", namespace=namespace, label_selector=f"app={app}")
    return [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]


def rolled_out(deploy: dict[str, Any]) -> bool:
    """True once a Deployment's controller saw its latest spec and every replica is updated
    and available (what `kubectl rollout status` waits for)."""
    status: dict[str, int] = deploy.get("status", {})
    want: int = deploy["spec"]["replicas"]
    return (
        status.get("observedGeneration", 0) >= deploy["metadata"]["generation"]
        and status.get("updatedReplicas") == want
        and status.get("availableReplicas") == want
        and status.get("replicas") == want
    )


def wait_rolled_out(
    api: ApiClient, namespace: str, name: str, *, timeout: float = 60
) -> dict[str, Any]:
    """Wait until the Deployment is rolled out; return it."""
    found: dict[str, Any] = wait_for(
        lambda: api.get("Deployment", name, namespace=namespace),
        until=rolled_out,
        timeout=timeout,
        message=f"Deployment {namespace}/{name} rolled out",
    )
    return found


def schedulers_of(api: ApiClient, namespace: str) -> dict[str, set[str]]:
    """Pod uid -> the schedulers its Scheduled events (events.k8s.io/v1) name."""
    found: dict[str, set[str]] = {}
    for event in api.events(namespace, reason="Scheduled"):
        uid = (event.raw.get("regarding") or {}).get("uid", "")
        found.setdefault(uid, set()).add(event.reporting_controller)
    return found


def wait_all_scheduled_by(
    api: ApiClient, namespace: str, pods: list[dict[str, Any]], scheduler: str
) -> dict[str, set[str]]:
    """Wait until every pod of `pods` has a Scheduled event; each must name `scheduler`."""
    uids = {pod["metadata"]["uid"] for pod in pods}
    seen = wait_for(
        lambda: schedulers_of(api, namespace),
        until=lambda found: uids <= found.keys(),
        timeout=20,
        message=f"a Scheduled event for each of {len(uids)} pods",
    )
    wrong = {uid: seen[uid] for uid in uids if seen[uid] != {scheduler}}
    assert not wrong, f"pods not placed by {scheduler} alone: {wrong}"
    return seen


def delete_workloads(api: ApiClient, namespace: str) -> None:
    """Delete the namespace's workloads with their pods (foreground) and wait until no pod
    is left, so that no controller recreates pods while the harness cleans up. Pods stuck
    terminating on a node no kubelet serves any more are force-deleted, as an admin would."""
    for kind in WORKLOAD_KINDS:
        for item in api.list(kind, namespace=namespace):
            path = api.path(kind, namespace=namespace, name=item["metadata"]["name"])
            api.request("DELETE", path, body={"propagationPolicy": "Foreground"})

    def remaining() -> list[dict[str, Any]]:
        pods = [
            p for p in api.list("Pod", namespace=namespace) if p["metadata"].get("ownerReferences")
        ]
        for pod in pods:
            if pod["metadata"].get("deletionTimestamp"):
                api.delete("Pod", pod["metadata"]["name"], namespace=namespace, grace_period=0)
        return pods

    wait_for(
        remaining,
        until=lambda pods: not pods,
        timeout=30,
        message=f"every pod of the workloads of {namespace} deleted with them",
    )
