"""`make demo`: a whole local cluster with kube-scheduler, and kubesched beside it.

The demo is a list of small steps run in order against one `LocalCluster` (etcd,
kube-apiserver, kube-controller-manager, kube-scheduler and kwok), so that more can be
inserted without touching the rest: kube-scheduler and three kwok nodes; the three pods of
"Configure Multiple Schedulers"; the Lease bug of the guide on leader-election conflicts
refused; kubesched applied from `kubesched manifests` and run as 2 replicas with its
ServiceAccount's token; the three pods Running; a Deployment placed by kubesched; who
placed what; both Leases; the kubesched leader killed and the standby taking over.

Simulated: kwok plays the kubelets (no container runs), and the kubesched replicas run as
local processes rather than as the pods of their Deployment.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from kubesched.localcluster import demo_failover, demo_kubesched, demo_workloads
from kubesched.localcluster.cluster import LocalCluster
from kubesched.localcluster.demo_base import (
    CUSTOM_POD,
    CUSTOM_SCHEDULER,
    DEFAULT_PODS,
    GUIDE_PODS,
    NAMESPACE,
    NODES,
    Demo,
    Step,
    as_list,
    guide_pod,
    wait_for_node_name,
)
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.gobuild import Progress, default_progress
from kubesched.localcluster.kwok import NODE_LABEL
from kubesched.testing.builders import make_node

__all__ = ["STEPS", "Demo", "Step", "run"]


def start_default_scheduler(demo: Demo) -> None:
    """Start the real kube-scheduler (Lease kube-system/kube-scheduler)."""
    demo.cluster.start_default_scheduler()
    demo.out(f"kube-scheduler holds kube-system/kube-scheduler; API at {demo.cluster.server}")
    demo.out(
        "kube-controller-manager runs the workload and node controllers; kwok plays the "
        "kubelets of the nodes labelled " + "=".join(NODE_LABEL) + " (no container runs)"
    )


def create_nodes(demo: Demo) -> None:
    """Create three Nodes managed by kwok (4 CPU, 32Gi; kwok renews their Leases)."""
    nodes = [make_node().name(name).label(*NODE_LABEL).obj() for name in NODES]
    demo.kubectl("create", "-f", "-", stdin=as_list(nodes))
    demo.show("get", "nodes")


def create_pods(demo: Demo) -> None:
    """Create the three pods of "Configure Multiple Schedulers" (none, default-, my-scheduler)."""
    pods = [guide_pod(*pod) for pod in GUIDE_PODS]
    demo.out(demo.kubectl("create", "-f", "-", stdin=as_list(pods)).rstrip())


def wait_for_default_pods(demo: Demo) -> None:
    """Wait until kube-scheduler has bound the two pods that are not for my-scheduler."""
    for pod in DEFAULT_PODS:
        node = wait_for_node_name(demo, pod, timeout=60.0, who="kube-scheduler")
        demo.out(f"kube-scheduler bound {NAMESPACE}/{pod} to {node}")


def check_custom_pod_pending(demo: Demo) -> None:
    """Check that the my-scheduler pod stays Pending: kube-scheduler leaves it alone."""
    time.sleep(3.0)
    pod = demo.get_json("pod", CUSTOM_POD, "-n", NAMESPACE)
    if pod["spec"].get("nodeName") or pod["status"].get("phase") != "Pending":
        raise LocalClusterError(
            f"{NAMESPACE}/{CUSTOM_POD} was placed, yet no {CUSTOM_SCHEDULER} runs"
        )
    demo.out(
        f"{NAMESPACE}/{CUSTOM_POD} is Pending: no scheduler named {CUSTOM_SCHEDULER} is running"
    )


STEPS: tuple[Step, ...] = (
    start_default_scheduler,
    create_nodes,
    create_pods,
    wait_for_default_pods,
    check_custom_pod_pending,
    demo_kubesched.refuse_default_lease,
    demo_kubesched.apply_manifests,
    demo_kubesched.start_replicas,
    demo_kubesched.wait_for_custom_pod,
    demo_workloads.show_pods_running,
    demo_workloads.deploy_with_kubesched,
    demo_failover.show_placements,
    demo_failover.show_leases,
    demo_failover.kill_leader,
    demo_failover.schedule_after_failover,
)


def run(
    *,
    steps: Sequence[Step] = STEPS,
    out: Callable[[str], None] = print,
    progress: Progress = default_progress,
    hold: Callable[[LocalCluster], None] | None = None,
) -> None:
    """Start a cluster, run `steps` in order, call `hold` (e.g. wait for Ctrl-C), stop."""
    with LocalCluster(controller_manager=True, kwok=True, progress=progress) as cluster:
        demo = Demo(cluster=cluster, out=out)
        for number, step in enumerate(steps, start=1):
            summary = (step.__doc__ or step.__name__).strip().splitlines()[0]
            out(f"\n[{number}/{len(steps)}] {summary}")
            step(demo)
        if hold is not None:
            hold(cluster)
