"""`make demo`: a real control plane with kube-scheduler, and kubesched beside it.

The demo is a list of small steps run in order against one `LocalCluster`, so that more
(e.g. starting kubesched beside kube-scheduler) can be inserted without touching the rest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.localcluster import demo_kubesched
from kubesched.localcluster.cluster import LocalCluster
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.gobuild import Progress, default_progress
from kubesched.testing.builders import make_node, make_pod

NAMESPACE = "demo"
NODES = ("node-1", "node-2", "node-3")
DEFAULT_POD = "web-default"
CUSTOM_POD = "web-custom"
CUSTOM_SCHEDULER = "my-scheduler"


@dataclass
class Demo:
    """What the steps share: the cluster, where to print, and what they learned."""

    cluster: LocalCluster
    out: Callable[[str], None] = print
    notes: dict[str, Any] = field(default_factory=dict)

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        """Run kubectl and return its stdout."""
        return self.cluster.kubectl(*args, stdin=stdin).stdout

    def show(self, *args: str) -> None:
        """Run kubectl and print the command and its output."""
        self.out(f"$ kubectl {' '.join(args)}")
        self.out(self.kubectl(*args).rstrip())


Step = Callable[[Demo], None]


def start_default_scheduler(demo: Demo) -> None:
    """Start the real kube-scheduler (Lease kube-system/kube-scheduler)."""
    demo.cluster.start_default_scheduler()
    demo.out(f"kube-scheduler holds kube-system/kube-scheduler; API at {demo.cluster.server}")


def create_nodes(demo: Demo) -> None:
    """Create three Nodes (4 CPU, 32Gi, Ready, no kubelet: plain API objects)."""
    nodes = [make_node().name(name).obj() for name in NODES]
    demo.kubectl("create", "-f", "-", stdin=_as_list(nodes))
    demo.show("get", "nodes")


def create_pods(demo: Demo) -> None:
    """Create one Pod without schedulerName and one with `schedulerName: my-scheduler`."""
    demo.kubectl("create", "namespace", NAMESPACE)
    default = make_pod().name(DEFAULT_POD).namespace(NAMESPACE).req(cpu="100m", memory="64Mi")
    custom = default.obj()
    custom["metadata"]["name"] = CUSTOM_POD
    custom["spec"]["schedulerName"] = CUSTOM_SCHEDULER
    demo.kubectl("create", "-f", "-", stdin=_as_list([default.obj(), custom]))


def wait_for_default_pod(demo: Demo) -> None:
    """Wait until kube-scheduler has bound the pod without schedulerName."""
    node = _wait_for_node_name(demo, DEFAULT_POD, timeout=60.0)
    demo.notes["default_node"] = node
    demo.out(f"kube-scheduler bound {NAMESPACE}/{DEFAULT_POD} to {node}")


def check_custom_pod_pending(demo: Demo) -> None:
    """Check that the my-scheduler pod stays Pending: kube-scheduler leaves it alone."""
    time.sleep(3.0)
    pod = json.loads(demo.kubectl("get", "pod", CUSTOM_POD, "-n", NAMESPACE, "-o", "json"))
    if pod["spec"].get("nodeName") or pod["status"].get("phase") != "Pending":
        raise LocalClusterError(
            f"{NAMESPACE}/{CUSTOM_POD} was placed, yet no {CUSTOM_SCHEDULER} runs"
        )
    demo.out(
        f"{NAMESPACE}/{CUSTOM_POD} is Pending: no scheduler named {CUSTOM_SCHEDULER} is running"
    )


def show_pods(demo: Demo) -> None:
    """Show where the pods are."""
    demo.show("get", "pods", "-n", NAMESPACE, "-o", "wide")
    demo.out("(STATUS stays Pending: no kubelet runs containers; NODE is the scheduler's choice)")


def show_events(demo: Demo) -> None:
    """Show the events: each Scheduled event names the scheduler that placed the pod."""
    columns = "REASON:.reason,OBJECT:.involvedObject.name,FROM:.reportingComponent,MESSAGE:.message"
    demo.show("get", "events", "-n", NAMESPACE, "-o", f"custom-columns={columns}")


STEPS: tuple[Step, ...] = (
    start_default_scheduler,
    create_nodes,
    create_pods,
    wait_for_default_pod,
    check_custom_pod_pending,
    demo_kubesched.refuse_default_lease,
    demo_kubesched.start_kubesched,
    demo_kubesched.wait_for_custom_pod,
    show_pods,
    show_events,
    demo_kubesched.show_leases,
)


def run(
    *,
    steps: Sequence[Step] = STEPS,
    out: Callable[[str], None] = print,
    progress: Progress = default_progress,
    hold: Callable[[LocalCluster], None] | None = None,
) -> None:
    """Start a cluster, run `steps` in order, call `hold` (e.g. wait for Ctrl-C), stop."""
    with LocalCluster(progress=progress) as cluster:
        demo = Demo(cluster=cluster, out=out)
        for number, step in enumerate(steps, start=1):
            summary = (step.__doc__ or step.__name__).strip().splitlines()[0]
            out(f"\n[{number}/{len(steps)}] {summary}")
            step(demo)
        if hold is not None:
            hold(cluster)


def _as_list(items: list[dict[str, Any]]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def _wait_for_node_name(demo: Demo, pod: str, *, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        node = demo.kubectl("get", "pod", pod, "-n", NAMESPACE, "-o", "jsonpath={.spec.nodeName}")
        if node.strip():
            return node.strip()
        time.sleep(0.5)
    raise LocalClusterError(
        f"{NAMESPACE}/{pod} was not bound within {timeout:.0f} s; kube-scheduler log: "
        f"{demo.cluster.logs_dir / 'kube-scheduler.log'}",
        details=demo.cluster.log_tails(lines=20),
    )
