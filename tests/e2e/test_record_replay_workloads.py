"""Faithfulness of the replay on a churning cluster: `kubesched record` runs while
kube-scheduler v1.37.2 places a Deployment's pods (kube-controller-manager makes them, kwok
runs them) through a seeded history (node sizes, replica counts and the drained node drawn
from the seed): scaled up, a node added, scaled up again and down, a node drained
(cordoned, its pods deleted and made again elsewhere, then deleted) and a high-priority pod
that only fits on the largest node by evicting the Deployment's pods there. The replay
evicts the pods kube-scheduler evicted (each once: kube-scheduler may send a victim a second
`Preempted` event, `recording.preempted`), but for pods one side placed on a node tied with
the other's, which may stand on the largest node on one side only. The trace replayed in
process with
kubesched's default profile puts at least 99 % of the pods on kube-scheduler's node or one
tied with it; every other pod is listed with both nodes.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.replay import read_trace
from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.recording import (
    assert_faithful,
    cli_env,
    evicted,
    preempted,
    record_around,
    replay_default,
    unexplained_evictions,
)
from tests.e2e.harness.workloads import deployment, kwok_node, pods_of, unique

DEFAULT = "default-scheduler"
ZONE = "topology.kubernetes.io/zone"
CPUS = (4, 6, 8, 10, 12, 14)
"""The first four nodes' CPUs are drawn from these (two apart, so that a pod of the largest
node's CPUs less one fits on no other node)."""
SEEDS = (1, 2)


@pytest.fixture
def priorities(api: ApiClient) -> Iterator[tuple[str, str]]:
    """(low, high) PriorityClass names of this test (cluster-scoped, so unique)."""
    suffix = secrets.token_hex(3)
    names = (f"rr-low-{suffix}", f"rr-high-{suffix}")
    for name, value in zip(names, (10, 1000), strict=True):
        api.create(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
        )
    yield names
    for name in names:
        api.delete("PriorityClass", name)


def _node(name: str, cpu: int, memory: int, zone: int) -> dict[str, Any]:
    node = kwok_node(name, cpu=str(cpu), memory=f"{memory}Gi", pods="110")
    node["metadata"]["labels"][ZONE] = f"zone-{'abc'[zone % 3]}"
    return node


class History:
    """The seeded history, step by step, each step waiting for kube-scheduler."""

    def __init__(self, api: ApiClient, namespace: str, low: str, high: str, *, seed: int) -> None:
        self.api, self.ns, self.high = api, namespace, high
        self.rng = random.Random(seed)
        self.cpus = self.rng.sample(CPUS, 4)
        self.nodes = [unique(f"rr-n{i}") for i in range(len(self.cpus) + 1)]
        self.largest = self.nodes[self.cpus.index(max(self.cpus))]
        self.app = "web"
        self.first = self.rng.randint(6, 9)
        self.remaining = 0
        """Replicas after the scale-down."""
        self._deployment = deployment(
            namespace, self.app, replicas=self.first, scheduler=DEFAULT, cpu="1"
        )
        self._deployment["spec"]["template"]["spec"]["priorityClassName"] = low

    def run(self) -> None:
        for i, cpu in enumerate(self.cpus):
            self.api.create(_node(self.nodes[i], cpu, 2 * cpu, i))
        self.api.create(self._deployment, namespace=self.ns)
        self._settle(self.first)
        self._scale(self.rng.randint(12, 15))
        self.api.create(_node(self.nodes[-1], self.rng.choice((4, 6)), 12, 1))
        self._scale(self.rng.randint(18, 20))
        self.remaining = self.rng.randint(8, 11)
        self._scale(self.remaining)
        self._drain(self.rng.choice([n for n in self.nodes[:-1] if n != self.largest]))
        self._preempt()

    def _scale(self, replicas: int) -> None:
        body = {"spec": {"replicas": replicas}}
        self.api.patch("Deployment", self.app, body, namespace=self.ns)
        self._settle(replicas)

    def _settle(self, replicas: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = wait_for(
            lambda: pods_of(self.api, self.ns, self.app),
            until=lambda pods: len(pods) == replicas and all(is_bound(p) for p in pods),
            timeout=60,
            message=f"{replicas} pods of {self.app} bound by kube-scheduler",
        )
        return found

    def _drain(self, node: str) -> None:
        """`kubectl drain`: cordon, delete the node's pods, wait for their replacements."""
        self.api.patch("Node", node, {"spec": {"unschedulable": True}})
        pods = pods_of(self.api, self.ns, self.app)
        for pod in pods:
            if pod["spec"].get("nodeName") == node:
                self.api.delete("Pod", pod["metadata"]["name"], namespace=self.ns)
        settled = self._settle(len(pods))
        assert all(p["spec"]["nodeName"] != node for p in settled)
        self.api.delete("Node", node)

    def _preempt(self) -> None:
        """A pod of the largest node's CPUs: only that node can hold it, once the pods of
        the Deployment there are evicted (they are made again elsewhere)."""
        cpu = str(max(self.cpus))
        pod = make_pod().name("rr-big").namespace(self.ns).req(cpu=cpu).obj()
        pod["spec"]["priorityClassName"] = self.high
        pod["spec"]["terminationGracePeriodSeconds"] = 1
        self.api.create(pod, namespace=self.ns)
        wait_for(
            lambda: self.api.get("Pod", "rr-big", namespace=self.ns),
            until=is_bound,
            timeout=60,
            message="the high-priority pod bound after its preemption",
        )
        self._settle(self.remaining)


@pytest.fixture
def histories(
    api: ApiClient, namespace: str, priorities: tuple[str, str]
) -> Callable[[int], History]:
    """`histories(seed)`: the seeded history in the test's namespace."""
    return lambda seed: History(api, namespace, *priorities, seed=seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_churning_deployment_replays_as_kube_scheduler_placed_it(
    workload_cluster: LocalCluster,
    api: ApiClient,
    histories: Callable[[int], History],
    tmp_path: Path,
    seed: int,
) -> None:
    history = histories(seed)
    namespace = history.ns
    path = tmp_path / "churn.jsonl.gz"
    command = ["kubesched", "record", "--out", str(path), "--duration", "5m"]
    env = cli_env(workload_cluster.kubeconfig_path)
    try:
        stderr = record_around(command, tmp_path, env, history.run)
    finally:
        api.request("DELETE", api.path("Deployment", namespace=namespace, name=history.app))
    assert "ended by signal" in stderr, stderr
    report = replay_default(path)
    victims = preempted(read_trace(path).records())
    assert victims, "kube-scheduler evicted pods for the high-priority pod"
    assert not unexplained_evictions(report, victims)
    assert report["evictions"] == len(evicted(report))
    big = next(d for d in report["decisions"] if d["pod"] == f"{namespace}/rr-big")
    assert big["node"] == big["recorded_node"] == history.largest
    assert_faithful(report, pods=20)
