"""What every demo step shares: the `Demo` object, the names, and small kubectl helpers."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubesched.localcluster.cluster import LocalCluster
from kubesched.localcluster.errors import LocalClusterError

NAMESPACE = "default"
NODES = ("node-1", "node-2", "node-3")
CUSTOM_SCHEDULER = "my-scheduler"
KUBESCHED_NAMESPACE = "kubesched-system"
PAUSE_IMAGE = "registry.k8s.io/pause:3.8"
# The three pods of "Configure Multiple Schedulers" (pod1.yaml, pod2.yaml, pod3.yaml).
GUIDE_PODS = (
    ("no-annotation", "pod-with-no-annotation-container", None),
    ("annotation-default-scheduler", "pod-with-default-annotation-container", "default-scheduler"),
    ("annotation-second-scheduler", "pod-with-second-annotation-container", CUSTOM_SCHEDULER),
)
DEFAULT_PODS = ("no-annotation", "annotation-default-scheduler")
CUSTOM_POD = "annotation-second-scheduler"


@dataclass
class Demo:
    """What the steps share: the cluster, where to print, and what they learned."""

    cluster: LocalCluster
    out: Callable[[str], None] = print
    notes: dict[str, Any] = field(default_factory=dict)

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        """Run kubectl and return its stdout."""
        return self.cluster.kubectl(*args, stdin=stdin).stdout

    def get_json(self, *args: str) -> dict[str, Any]:
        """`kubectl get ARGS -o json`, parsed."""
        data: dict[str, Any] = json.loads(self.kubectl("get", *args, "-o", "json"))
        return data

    def show(self, *args: str) -> None:
        """Run kubectl and print the command and its output."""
        self.out(f"$ kubectl {' '.join(args)}")
        self.out(self.kubectl(*args).rstrip())


Step = Callable[[Demo], None]


def guide_pod(name: str, container: str, scheduler: str | None) -> dict[str, Any]:
    """A pod as in "Configure Multiple Schedulers", with a small request so that it is placed."""
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": container,
                "image": PAUSE_IMAGE,
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            }
        ]
    }
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    metadata = {"name": name, "namespace": NAMESPACE, "labels": {"name": "multischeduler-example"}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def as_list(items: list[dict[str, Any]]) -> str:
    """A kubectl `List` of `items` as JSON."""
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def wait_for_node_name(demo: Demo, pod: str, *, timeout: float, who: str) -> str:
    """The node `pod` (in NAMESPACE) is bound to, polled until `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        node = demo.kubectl("get", "pod", pod, "-n", NAMESPACE, "-o", "jsonpath={.spec.nodeName}")
        if node.strip():
            return node.strip()
        time.sleep(0.5)
    raise LocalClusterError(
        f"{NAMESPACE}/{pod} was not bound within {timeout:.0f} s; see the {who} log in "
        f"{demo.cluster.logs_dir}",
        details=demo.cluster.log_tails(lines=20),
    )
