"""Faithfulness of the replay for pods with claims and volumes: `kubesched record` runs while
kube-scheduler v1.37.2 places them (kube-controller-manager's PV and resourceclaim
controllers answer its writes, a provisioner thread plays a CSI driver's, kwok runs the
pods). GPU pods each with a ResourceClaim, one more than there are GPUs (it waits until the
first pod is deleted and its claim deallocated), then one whose claim the controller makes
from a ResourceClaimTemplate once another GPU pod is deleted; pods with WaitForFirstConsumer
claims on local volumes pinned to nodes, and one whose volume is provisioned for the node
chosen. The trace replayed in process with kubesched's default profile binds every one of
them (the replay applies the claims' allocations and the volumes' bindings with the
controllers' answers) on kube-scheduler's node or one tied with it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.recording import assert_faithful, cli_env, record_around, replay_default
from tests.e2e.harness.volumes import FakeProvisioner, claim, delete_storage, storage_class, volume
from tests.e2e.harness.workloads import kwok_node, unique

DEFAULT = "default-scheduler"
RESOURCE = "resource.k8s.io/v1"
GPUS = (1, 2, 0)
"""GPUs on each node (published as a DRA driver would)."""


class Cluster:
    """This test's nodes, devices and storage classes (cluster-scoped, so unique names)."""

    def __init__(self, api: ApiClient, namespace: str) -> None:
        self.api, self.ns = api, namespace
        suffix = secrets.token_hex(3)
        self.nodes = [unique(f"rs-n{i}") for i in range(len(GPUS))]
        self.driver = f"gpu-{suffix}.example.com"
        self.device_class = f"rs-gpu-{suffix}"
        self.local, self.provisioned = f"rs-local-{suffix}", f"rs-disk-{suffix}"
        self.disk_driver = f"disk-{suffix}.example.com"

    def create(self) -> None:
        for i, (name, gpus) in enumerate(zip(self.nodes, GPUS, strict=True)):
            self.api.create(kwok_node(name, cpu=str(4 * (i + 1)), memory="16Gi", pods="110"))
            if gpus:
                self.api.create(self._slice(name, gpus))
        selector = {"cel": {"expression": f'device.driver == "{self.driver}"'}}
        self.api.create(
            {
                "apiVersion": RESOURCE,
                "kind": "DeviceClass",
                "metadata": {"name": self.device_class},
                "spec": {"selectors": [selector]},
            }
        )
        self.api.create(storage_class(self.local))
        self.api.create(storage_class(self.provisioned, provisioner=self.disk_driver))
        for i, node in enumerate(self.nodes[1:]):
            self.api.create(volume(f"rs-pv{i}-{node}", node=node, storage_class=self.local))

    def _slice(self, node: str, gpus: int) -> dict[str, Any]:
        return {
            "apiVersion": RESOURCE,
            "kind": "ResourceSlice",
            "metadata": {"name": f"{node}-gpus"},
            "spec": {
                "driver": self.driver,
                "nodeName": node,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": f"gpu-{i}"} for i in range(gpus)],
            },
        }

    def delete(self) -> None:
        for name in self.nodes:
            self.api.delete("ResourceSlice", f"{name}-gpus")
        self.api.delete("DeviceClass", self.device_class)
        delete_storage(self.api)


@pytest.fixture
def cluster(api: ApiClient, namespace: str) -> Iterator[Cluster]:
    made = Cluster(api, namespace)
    yield made
    made.delete()


def _pod(
    name: str, *, claims: tuple[str, ...] = (), gpu_claim: str = "", gpu_template: str = ""
) -> dict[str, Any]:
    pod = make_pod().name(name).scheduler(DEFAULT).req(cpu="500m").obj()
    pod["spec"]["terminationGracePeriodSeconds"] = 1
    pod["spec"]["volumes"] = [
        {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)
    ]
    if gpu_claim:
        pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": gpu_claim}]
    if gpu_template:
        pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": gpu_template}]
    return pod


class History:
    """GPU pods, then volume pods, each created once the one before is bound."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster, self.api, self.ns = cluster, cluster.api, cluster.ns

    def run(self) -> None:
        for i in range(4):
            self._gpu_claim(f"gpu{i}")
            self._create(_pod(f"rs-g{i}", gpu_claim=f"gpu{i}"), bound=i < 3)
        self.api.delete("Pod", "rs-g0", namespace=self.ns)
        self._wait_bound("rs-g3")
        self._template("gpu")
        self.api.delete("Pod", "rs-g1", namespace=self.ns)
        self._create(_pod("rs-t0", gpu_template="gpu"))
        for i in range(2):
            self.api.create(claim(self.ns, f"local{i}", storage_class=self.cluster.local))
            self._create(_pod(f"rs-v{i}", claims=(f"local{i}",)))
        self.api.create(claim(self.ns, "disk", storage_class=self.cluster.provisioned))
        with FakeProvisioner(self.api, self.ns, driver=self.cluster.disk_driver):
            self._create(_pod("rs-d", claims=("disk",)))

    def _template(self, name: str) -> None:
        """A ResourceClaimTemplate: the resourceclaim controller makes each pod's claim."""
        request = {"name": "gpu", "exactly": {"deviceClassName": self.cluster.device_class}}
        body = {
            "apiVersion": RESOURCE,
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": name},
            "spec": {"spec": {"devices": {"requests": [request]}}},
        }
        path = f"/apis/{RESOURCE}/namespaces/{self.ns}/resourceclaimtemplates"
        self.api.request("POST", path, body=body)

    def _gpu_claim(self, name: str) -> None:
        request = {"name": "gpu", "exactly": {"deviceClassName": self.cluster.device_class}}
        body = {
            "apiVersion": RESOURCE,
            "kind": "ResourceClaim",
            "metadata": {"name": name},
            "spec": {"devices": {"requests": [request]}},
        }
        self.api.create(body, namespace=self.ns)

    def _create(self, pod: dict[str, Any], *, bound: bool = True) -> None:
        self.api.create(pod, namespace=self.ns)
        if bound:
            self._wait_bound(pod["metadata"]["name"])

    def _wait_bound(self, name: str) -> None:
        wait_for(
            lambda: self.api.get("Pod", name, namespace=self.ns),
            until=is_bound,
            timeout=60,
            message=f"kube-scheduler binds {name}",
        )


def test_claims_and_volumes_replay_as_kube_scheduler_placed_them(
    workload_cluster: LocalCluster, api: ApiClient, cluster: Cluster, tmp_path: Path
) -> None:
    path = tmp_path / "storage.jsonl.gz"
    command = ["kubesched", "record", "--out", str(path), "--duration", "5m"]
    env = cli_env(workload_cluster.kubeconfig_path)

    def work() -> None:
        cluster.create()
        History(cluster).run()

    stderr = record_around(command, tmp_path, env, work)
    assert "ended by signal" in stderr, stderr
    report = replay_default(path)
    decisions = {d["pod"].split("/")[1]: d for d in report["decisions"]}
    ours = {name: d for name, d in decisions.items() if name.startswith("rs-")}
    assert sorted(ours) == ["rs-d", "rs-g0", "rs-g1", "rs-g2", "rs-g3", "rs-t0", "rs-v0", "rs-v1"]
    assert all(d["node"] for d in ours.values()), ours
    assert ours["rs-g3"]["bound_at"] > ours["rs-g0"]["created"], "g3 waited for g0's GPU"
    assert ours["rs-t0"]["bound_at"] > ours["rs-g3"]["bound_at"], "t0 took g1's GPU"
    assert_faithful(report, pods=8)
