"""A node whose heartbeat stops: kube-controller-manager's node lifecycle controller marks it
NotReady and taints it, and kubesched places nothing new there. A pod that fits nowhere
else is reported exactly as kube-scheduler reports the same pod."""

from __future__ import annotations

from typing import Any

from kubesched.localcluster.kwok import NODE_LABEL
from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient, condition, node_name, wait_for
from tests.e2e.harness.parity import wait_outcome
from tests.e2e.harness.workload_fixtures import WORKLOAD_SCHEDULER
from tests.e2e.harness.workloads import deployment, kwok_node, pods_of, unique, wait_rolled_out

UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT = "default-scheduler"


def ready_status(node: dict[str, Any]) -> str:
    """The status of the node's Ready condition ("True", "False", "Unknown")."""
    for entry in node.get("status", {}).get("conditions", []):
        if entry.get("type") == "Ready":
            return str(entry.get("status"))
    return ""


def taint_effects(node: dict[str, Any], key: str) -> set[str]:
    """The effects of the node's taints with `key`."""
    return {t["effect"] for t in node.get("spec", {}).get("taints", []) or [] if t["key"] == key}


def stop_heartbeat(api: ApiClient, node: str) -> dict[str, Any]:
    """Take the node away from kwok (as if its kubelet died); wait until the node lifecycle
    controller has marked it NotReady and tainted it unreachable (NoSchedule and NoExecute)."""
    api.patch("Node", node, {"metadata": {"labels": {NODE_LABEL[0]: None}}})
    found: dict[str, Any] = wait_for(
        lambda: api.get("Node", node),
        until=lambda n: (
            ready_status(n) == "Unknown"
            and taint_effects(n, UNREACHABLE) == {"NoSchedule", "NoExecute"}
        ),
        timeout=30,
        message=f"node {node} is NotReady and tainted {UNREACHABLE}",
    )
    return found


def test_node_without_heartbeat_is_tainted_and_kubesched_places_nothing_there(
    workload_namespace: str, api: ApiClient
) -> None:
    ns = workload_namespace
    alive, doomed = unique("alive"), unique("doomed")
    api.create(kwok_node(alive, cpu="2"))
    api.create(kwok_node(doomed, cpu="4"))
    # The roomier node is the better one while it lives.
    api.create(deployment(ns, "before", replicas=1, scheduler=WORKLOAD_SCHEDULER, cpu="1"))
    wait_rolled_out(api, ns, "before")
    assert [node_name(p) for p in pods_of(api, ns, "before")] == [doomed]

    stop_heartbeat(api, doomed)

    small = make_pod().name("small").namespace(ns).scheduler(WORKLOAD_SCHEDULER).req(cpu="500m")
    api.create(small.obj())
    assert wait_outcome(api, ns, "small", nodes=2).node == alive, "only the live node is left"
    for name, scheduler in (("big-ours", WORKLOAD_SCHEDULER), ("big-theirs", DEFAULT)):
        api.create(make_pod().name(name).namespace(ns).scheduler(scheduler).req(cpu="2").obj())
    ours = wait_outcome(api, ns, "big-ours", nodes=2)
    theirs = wait_outcome(api, ns, "big-theirs", nodes=2)
    assert not ours.bound
    assert not theirs.bound
    assert ours.full_message == theirs.full_message, (ours.describe(), theirs.describe())
    assert ours.reasons == {"Insufficient cpu": 1, "node(s) had untolerated taint(s)": 1}
    scheduled = condition(ours.pod, "PodScheduled") or {}
    assert scheduled.get("reason") == "Unschedulable"
