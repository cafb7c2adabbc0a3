"""Two copies of one Coscheduling scenario, one for scheduler-plugins' own build and one for
kubesched (tests/e2e/test_coscheduling_parity.py): each side's scheduler, namespace and nodes
(labelled with the side, selected by its pods), its configuration, and the normalizations that
make the two sides' texts comparable."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kubesched.localcluster import LocalCluster
from kubesched.plugins.coscheduling import POD_GROUP_LABEL
from kubesched.testing import make_node, make_pod
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.scheduler_plugins import start_scheduler_plugins_controller
from tests.e2e.harness.waiting import is_bound, unschedulable_message

SP, KS = "sp-cosched", "ks-cosched"
SIDE_LABEL = "parity.kubesched.io/side"
PG_PATH = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups"
PERMIT_WAIT = 20
BACKOFF = 10
"""podGroupBackoffSeconds: a group rejected in PostFilter with all its members present is
refused at PreFilter (`podGroup <ns>/<name> failed recently`) for this long."""


def profile(name: str, queue_sort: dict[str, Any]) -> dict[str, Any]:
    """A profile `name` with Coscheduling at every point and the module's timings."""
    return {
        "schedulerName": name,
        "plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}, "queueSort": queue_sort},
        "pluginConfig": [
            {
                "name": "Coscheduling",
                "args": {
                    "permitWaitingTimeSeconds": PERMIT_WAIT,
                    "podGroupBackoffSeconds": BACKOFF,
                },
            }
        ],
    }


def sp_config() -> dict[str, Any]:
    """As scheduler-plugins' manifests/coscheduling/scheduler-config.yaml."""
    sort = {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]}
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile(SP, sort)],
    }


def ks_config(path: Path, kubeconfig: Path) -> Path:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)},
        "leaderElection": {
            "leaderElect": True,
            "resourceNamespace": "kube-system",
            "resourceName": KS,
        },
        "profiles": [profile(KS, {"disabled": [{"name": "PrioritySort"}]})],
    }
    path.write_text(yaml.safe_dump(config))
    return path


@contextmanager
def scheduler_plugins_controller(cluster: LocalCluster) -> Iterator[None]:
    """scheduler-plugins' controller running for the `with` block."""
    start_scheduler_plugins_controller(cluster)
    try:
        yield
    finally:
        cluster.stop_scheduler_plugins_controller()


@dataclass(frozen=True)
class Side:
    """One copy of a scenario: its scheduler, namespace and node prefix."""

    scheduler: str
    namespace: str
    api: ApiClient

    @property
    def prefix(self) -> str:
        return self.scheduler[:2]

    def nodes(self, **cpus: str) -> None:
        for name, cpu in cpus.items():
            node = make_node().name(f"{self.prefix}-{name}").label(SIDE_LABEL, self.prefix)
            self.api.create(node.capacity(cpu=cpu, pods="20").obj())

    def group(self, name: str, min_member: int, **spec: Any) -> None:
        body = {
            "apiVersion": "scheduling.x-k8s.io/v1alpha1",
            "kind": "PodGroup",
            "metadata": {"name": name},
            "spec": {"minMember": min_member, **spec},
        }
        self.api.request("POST", PG_PATH.format(ns=self.namespace), body=body)

    def members(self, group: str, count: int, *, scheduler: str = "", first: int = 0) -> None:
        for i in range(first, first + count):
            pod = make_pod().name(f"{group}-{i}").label(POD_GROUP_LABEL, group)
            pod = pod.scheduler(scheduler or self.scheduler).node_selector(
                **{SIDE_LABEL: self.prefix}
            )
            self.api.create(pod.req(cpu="1").obj(), namespace=self.namespace)

    def pods(self) -> list[dict[str, Any]]:
        return self.api.list("Pod", namespace=self.namespace)

    def bound(self) -> int:
        return sum(1 for pod in self.pods() if is_bound(pod))

    def per_node(self) -> Counter[str]:
        """Bound members per node, node names without the side's prefix."""
        nodes = (pod["spec"].get("nodeName", "") for pod in self.pods() if is_bound(pod))
        return Counter(node.removeprefix(f"{self.prefix}-") for node in nodes)

    def messages(self) -> dict[str, str]:
        """Each pod's PodScheduled=False message, normalized to compare the two sides."""
        return {
            pod["metadata"]["name"]: self.normalize(unschedulable_message(pod))
            for pod in self.pods()
        }

    def normalize(self, text: str) -> str:
        text = text.replace(self.namespace, "NS").replace(self.scheduler, "SCHED")
        return re.sub(rf"\b{self.prefix}-", "", text)

    def notes(self) -> Counter[str]:
        """The FailedScheduling event notes, normalized, member names as `<group>-N`."""
        events = self.api.events(self.namespace, reason="FailedScheduling")
        return Counter(re.sub(r"-\d+\b", "-N", self.normalize(e.note)) for e in events)

    def touch(self, group: str) -> None:
        """An annotation on the group: one more event for whoever watches it."""
        self.api.request(
            "PATCH",
            PG_PATH.format(ns=self.namespace) + f"/{group}",
            body={"metadata": {"annotations": {"parity.kubesched.io/touched": "yes"}}},
            content_type="application/merge-patch+json",
        )

    def status(self, group: str) -> dict[str, Any]:
        path = PG_PATH.format(ns=self.namespace) + f"/{group}"
        status: dict[str, Any] = self.api.request("GET", path).get("status") or {}
        return status


def both(sides: tuple[Side, Side], act: Callable[[Side], None]) -> None:
    for side in sides:
        act(side)


WITH_THE_GROUP = {
    "0/1 nodes are available: 1 optimistic rejection in PostFilter.",
    "0/1 nodes are available: 1 rejection in Unreserve.",
}
V135_DRA_POSTFILTER = "no new claims to deallocate, "
"""kube-scheduler v1.35's DynamicResources PostFilter says this for a pod without claims;
v1.37 returns a plain Unschedulable (in-tree, not Coscheduling): left out of the comparison."""


def node_reasons(side: Side) -> set[str]:
    """The FailedScheduling notes that carry the nodes' reasons (not the arrival-order
    PreFilter refusals of members tried before their siblings existed)."""
    return {generic(note) for note in side.notes() if "Insufficient" in note}


def generic(text: str) -> str:
    """`text` without the v1.35-only fragment, member names as `<group>-N`."""
    return re.sub(r"-\d+\b", "-N", text.replace(V135_DRA_POSTFILTER, ""))


def set_phase(side: Side, phase: str) -> None:
    for pod in side.pods():
        path = f"/api/v1/namespaces/{side.namespace}/pods/{pod['metadata']['name']}/status"
        side.api.request(
            "PATCH",
            path,
            body={"status": {"phase": phase}},
            content_type="application/merge-patch+json",
        )
