"""Faithfulness of the replay for native gangs: `kubesched record` runs while a kube-scheduler
v1.37.2 with the `GenericWorkload` gate (profile `rr-gang-oracle`) places `scheduling.k8s.io`
PodGroups: a gang that fits binds at once; a gang too big for the free room binds none
until a node is added, then binds whole. The trace replayed in process with kubesched's
default profile under that name and gate (the pod-group cycle, `kubesched.replay.groups`)
puts every member on kube-scheduler's node.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.recording import assert_faithful, cli_env, record_around, replay_default

ORACLE, ORACLE_PROCESS = "rr-gang-oracle", "kube-scheduler-rr-gang"
PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"
NODE_LABEL = "rr-gang"
GATE = "--feature-gates=GenericWorkload=true"


@pytest.fixture(scope="module")
def oracle(local_cluster: LocalCluster) -> Iterator[None]:
    """A kube-scheduler with GenericWorkload on, for pods of `rr-gang-oracle` only."""
    local_cluster.start_extra_scheduler(
        ORACLE_PROCESS, scheduler_name=ORACLE, generic_workload=True
    )
    try:
        yield
    finally:
        local_cluster.stop_extra_scheduler(ORACLE_PROCESS)


class History:
    def __init__(self, api: ApiClient, namespace: str) -> None:
        self.api, self.ns = api, namespace

    def run(self) -> None:
        for i, cpu in enumerate((2, 3, 4)):
            self._node(f"rr-gang-{i}", cpu)
        self._gang("small", members=3, cpu="1")
        self._wait_bound("small", 3)
        self._gang("big", members=4, cpu="2")
        self._wait_pending("big", 4)
        self._node("rr-gang-3", 5)
        self._wait_bound("big", 4)

    def _node(self, name: str, cpu: int) -> None:
        node = make_node().name(name).label(NODE_LABEL, "yes").capacity(cpu=str(cpu), pods="20")
        self.api.create(node.obj())

    def _gang(self, group: str, *, members: int, cpu: str) -> None:
        body = {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": group},
            "spec": {"schedulingPolicy": {"gang": {"minCount": members}}},
        }
        self.api.request("POST", PG_PATH.format(ns=self.ns), body=body)
        for i in range(members):
            pod = make_pod().name(f"{group}-{i}").scheduler(ORACLE).pod_group(group).req(cpu=cpu)
            self.api.create(pod.node_selector(**{NODE_LABEL: "yes"}).obj(), namespace=self.ns)

    def _members(self, group: str) -> list[dict[str, Any]]:
        pods = self.api.list("Pod", namespace=self.ns)
        return [
            p for p in pods if (p["spec"].get("schedulingGroup") or {}).get("podGroupName") == group
        ]

    def _wait_bound(self, group: str, count: int) -> None:
        wait_for(
            lambda: self._members(group),
            until=lambda pods: len(pods) == count and all(is_bound(p) for p in pods),
            timeout=60,
            message=f"kube-scheduler binds the {count} members of {group}",
        )

    def _wait_pending(self, group: str, count: int) -> None:
        """Every member tried and refused (PodScheduled=False), none bound."""

        def refused(pods: list[dict[str, Any]]) -> bool:
            def said(pod: dict[str, Any]) -> bool:
                conditions = (pod.get("status") or {}).get("conditions") or []
                return any(
                    (c.get("type"), c.get("status")) == ("PodScheduled", "False")
                    for c in conditions
                )

            return len(pods) == count and all(said(p) and not is_bound(p) for p in pods)

        wait_for(lambda: self._members(group), until=refused, timeout=60, message=f"{group} waits")


def test_native_gangs_replay_as_kube_scheduler_placed_them(
    local_cluster: LocalCluster, oracle: None, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    path = tmp_path / "gangs.jsonl.gz"
    command = ["kubesched", "record", "--out", str(path), "--duration", "5m"]
    stderr = record_around(
        command, tmp_path, cli_env(local_cluster.kubeconfig_path), History(api, namespace).run
    )
    assert "ended by signal" in stderr, stderr
    config = tmp_path / "gang.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": ORACLE}],
            }
        )
    )
    report = replay_default(path, f"--config={config}", GATE)
    members = {d["pod"].split("/")[1]: d for d in report["decisions"]}
    assert sorted(members) == [*(f"big-{i}" for i in range(4)), *(f"small-{i}" for i in range(3))]
    big = [members[f"big-{i}"] for i in range(4)]
    assert len({d["bound_at"] for d in big}) == 1, "the big gang bound in one cycle"
    assert all(d["bound_at"] > members["small-0"]["bound_at"] for d in big)
    assert_faithful(report, pods=7)
