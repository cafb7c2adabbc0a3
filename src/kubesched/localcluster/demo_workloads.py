"""The demo's workload steps, on the whole local cluster: the three pods of "Configure
Multiple Schedulers" end Running, and a Deployment for my-scheduler rolls out with every
replica placed by kubesched.

What is real and what is simulated: kube-controller-manager (the Deployment and ReplicaSet
controllers) and both schedulers are the real programs; kwok plays the kubelets, so a pod
is "Running" once kwok says so, and no container runs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kubesched.localcluster.demo_base import (
    CUSTOM_SCHEDULER,
    GUIDE_PODS,
    NAMESPACE,
    PAUSE_IMAGE,
)
from kubesched.localcluster.errors import LocalClusterError

if TYPE_CHECKING:
    from kubesched.localcluster.demo_base import Demo

DEPLOYMENT = "web"
REPLICAS = 6


def show_pods_running(demo: Demo) -> None:
    """The three pods end Running (kwok plays the kubelets: no container runs)."""
    names = [name for name, _, _ in GUIDE_PODS]
    _wait(demo, lambda: all(_phase(demo, name) == "Running" for name in names), "Running")
    demo.show("get", "pods", "-o", "wide")


def deploy_with_kubesched(demo: Demo) -> None:
    """Roll out a Deployment of 6 replicas for my-scheduler: kubesched places every one.

    kube-controller-manager's Deployment and ReplicaSet controllers make the pods."""
    demo.out(demo.kubectl("create", "-f", "-", stdin=json.dumps(_deployment())).rstrip())
    demo.show("rollout", "status", f"deployment/{DEPLOYMENT}", "--timeout=60s")
    demo.show("get", "pods", "-l", f"app={DEPLOYMENT}", "-o", "wide")
    pods = demo.get_json("pods", "-l", f"app={DEPLOYMENT}", "-n", NAMESPACE)["items"]
    uids = {pod["metadata"]["uid"] for pod in pods}
    _wait(demo, lambda: uids <= _scheduled_by(demo).keys(), "their Scheduled events")
    columns = "POD:.involvedObject.name,SCHEDULER:.reportingComponent,MESSAGE:.message"
    demo.out(
        f"$ kubectl get events --field-selector reason=Scheduled -o custom-columns={columns}"
        f" | grep -E '^(POD|{DEPLOYMENT}-)'"
    )
    events = demo.kubectl(
        "get", "events", "--field-selector=reason=Scheduled", f"-o=custom-columns={columns}"
    )
    shown = [line for line in events.splitlines() if line.startswith(("POD", f"{DEPLOYMENT}-"))]
    demo.out("\n".join(shown))
    placed_by = _scheduled_by(demo)
    wrong = sorted(uid for uid in uids if placed_by[uid] != CUSTOM_SCHEDULER)
    if wrong:
        raise LocalClusterError(f"{len(wrong)} pods of {DEPLOYMENT} not placed by kubesched")
    demo.out(f"all {len(uids)} replicas of {DEPLOYMENT} were placed by {CUSTOM_SCHEDULER}")


def _deployment() -> dict[str, Any]:
    container = {
        "name": "pause",
        "image": PAUSE_IMAGE,
        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
    }
    template = {
        "metadata": {"labels": {"app": DEPLOYMENT}},
        "spec": {"schedulerName": CUSTOM_SCHEDULER, "containers": [container]},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": DEPLOYMENT, "namespace": NAMESPACE},
        "spec": {
            "replicas": REPLICAS,
            "selector": {"matchLabels": {"app": DEPLOYMENT}},
            "template": template,
        },
    }


def _phase(demo: Demo, pod: str) -> str:
    return demo.kubectl("get", "pod", pod, "-n", NAMESPACE, "-o", "jsonpath={.status.phase}")


def _scheduled_by(demo: Demo) -> dict[str, str]:
    """Pod uid -> the component its Scheduled event names."""
    found: dict[str, str] = {}
    for event in demo.get_json("events", "-n", NAMESPACE).get("items", []):
        if event.get("reason") == "Scheduled":
            source = event.get("source") or {}
            who = event.get("reportingComponent") or source.get("component") or "?"
            found[event["involvedObject"].get("uid", "")] = str(who)
    return found


def _wait(demo: Demo, check: Callable[[], bool], what: str, *, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise LocalClusterError(
                f"pods not {what} after {timeout:.0f} s; logs: {demo.cluster.logs_dir}",
                details=demo.cluster.log_tails(lines=20),
            )
        time.sleep(0.5)
