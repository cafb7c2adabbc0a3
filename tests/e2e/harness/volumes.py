"""Storage objects for the volume e2e tests, and running one scenario past both schedulers.

    decide_both(api, ns, scenario, nodes=2)  # kube-scheduler's outcome, then kubesched's

A scenario is `scenario(scheduler, tag) -> pod`: it creates what the pod needs (claims and
volumes named with `tag`, so each scheduler gets its own copies) and returns the pod to
create. The two schedulers run one after the other (the first pod is deleted before the
second is made), so they decide on the same cluster.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Self

from kubesched.testing import make_pod
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.parity import Outcome, wait_outcome
from tests.e2e.harness.waiting import wait_for
from tests.e2e.harness.workloads import unique

DEFAULT = "default-scheduler"
HOSTNAME = "kubernetes.io/hostname"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
Scenario = Callable[[str, str], dict[str, Any]]
# Each scheduler watches PVs, PVCs and pods on separate streams: a pod created in the same
# millisecond as its PV can be tried before the PV is seen, and kube-scheduler then reports it
# unschedulable until the PV event requeues it. The pause lets both informers see the
# scenario's objects first, so an outcome is about the cluster, not about watch latency.
SETTLE_SECONDS = 0.5


def storage_class(name: str, *, wait: bool = True, provisioner: str = "") -> dict[str, Any]:
    """A StorageClass; WaitForFirstConsumer with no provisioner by default (local PVs)."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner or "kubernetes.io/no-provisioner",
        "volumeBindingMode": "WaitForFirstConsumer" if wait else "Immediate",
    }


def volume(
    name: str,
    *,
    node: str = "",
    storage_class: str = "",
    size: str = "1Gi",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    labels: dict[str, str] | None = None,
    csi: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """A PersistentVolume: local, or CSI (`(driver, handle)`); pinned to `node` if given."""
    spec: dict[str, Any] = {
        "capacity": {"storage": size},
        "accessModes": list(modes),
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": storage_class,
    }
    if csi is not None:
        spec["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    else:
        spec["local"] = {"path": "/mnt/data"}
    if node:
        term = {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node]}]}
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
    }


def zonal_volume(name: str, *, zone: str) -> dict[str, Any]:
    """A PV labelled with a zone only (no node affinity), as cloud disks were."""
    return volume(
        name, csi=("zonal.example.com", name), labels={"topology.kubernetes.io/zone": zone}
    )


def claim(
    namespace: str,
    name: str,
    *,
    storage_class: str = "",
    volume_name: str = "",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "accessModes": list(modes),
        "storageClassName": storage_class,
        "resources": {"requests": {"storage": "1Gi"}},
    }
    if volume_name:
        spec["volumeName"] = volume_name
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def csi_node(node: str, *, driver: str, count: int) -> dict[str, Any]:
    """A CSINode reporting `driver` with an attach limit of `count` on `node`."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": node},
        "spec": {"drivers": [{"name": driver, "nodeID": node, "allocatable": {"count": count}}]},
    }


def csi_driver(name: str, *, storage_capacity: bool = False) -> dict[str, Any]:
    """A CSIDriver that needs no attach (so no VolumeAttachment outlives a test's pod);
    `storage_capacity`: the scheduler must check its CSIStorageCapacity objects."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIDriver",
        "metadata": {"name": name},
        "spec": {"attachRequired": False, "storageCapacity": storage_capacity},
    }


def storage_capacity(
    namespace: str, name: str, *, storage_class: str, node: str, capacity: str
) -> dict[str, Any]:
    """What a CSI driver publishes: `capacity` of `storage_class` on `node` (its topology)."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIStorageCapacity",
        "metadata": {"name": name, "namespace": namespace},
        "storageClassName": storage_class,
        "capacity": capacity,
        "nodeTopology": {"matchLabels": {HOSTNAME: node}},
    }


class FakeProvisioner:
    """The external provisioner's part (there is no CSI driver here): for every claim of
    `namespace` that a scheduler annotated with `volume.kubernetes.io/selected-node`, a PV
    pre-bound to it on that node, which the PV controller then binds.

        with FakeProvisioner(api, ns, driver="capacity.example.com"):
            ...
    """

    def __init__(self, api: ApiClient, namespace: str, *, driver: str) -> None:
        self._api, self._namespace, self._driver = api, namespace, driver
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.provisioned: dict[str, str] = {}
        """claim name -> node it was provisioned on."""

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            for item in self._api.list("PersistentVolumeClaim", namespace=self._namespace):
                self._provision(item)

    def _provision(self, item: dict[str, Any]) -> None:
        meta, spec = item["metadata"], item["spec"]
        node = (meta.get("annotations") or {}).get(SELECTED_NODE, "")
        if not node or spec.get("volumeName") or meta["name"] in self.provisioned:
            return
        pv = volume(
            f"pv-{meta['uid']}",
            node=node,
            storage_class=spec.get("storageClassName", ""),
            csi=(self._driver, meta["uid"]),
        )
        pv["spec"]["claimRef"] = {
            "namespace": self._namespace,
            "name": meta["name"],
            "uid": meta["uid"],
        }
        pv["metadata"]["annotations"] = {"pv.kubernetes.io/provisioned-by": self._driver}
        self._api.create(pv)
        self.provisioned[meta["name"]] = node


def pod_with_claims(namespace: str, name: str, scheduler: str, *claims: str) -> dict[str, Any]:
    pod = make_pod().name(name).namespace(namespace).scheduler(scheduler).obj()
    pod["spec"]["terminationGracePeriodSeconds"] = 0
    pod["spec"]["volumes"] = [
        {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)
    ]
    return pod


def wait_claim_bound(api: ApiClient, namespace: str, name: str) -> dict[str, Any]:
    return wait_for(
        lambda: api.get("PersistentVolumeClaim", name, namespace=namespace),
        until=lambda c: c.get("status", {}).get("phase") == "Bound",
        timeout=30,
        message=f"claim {namespace}/{name} is bound by the PV controller",
    )


def decide_both(
    api: ApiClient, namespace: str, scenario: Scenario, *, ours: str, nodes: int
) -> tuple[Outcome, Outcome]:
    """(kube-scheduler's outcome, kubesched's) for the scenario, run one after the other."""
    outcomes = []
    for scheduler in (DEFAULT, ours):
        pod = scenario(scheduler, unique("s"))
        time.sleep(SETTLE_SECONDS)
        api.create(pod)
        name = pod["metadata"]["name"]
        outcomes.append(wait_outcome(api, namespace, name, nodes=nodes, timeout=30))
        api.delete("Pod", name, namespace=namespace, grace_period=0)
        wait_for(
            lambda n=name: api.get_or_none("Pod", n, namespace=namespace),
            until=lambda p: p is None,
            timeout=30,
            message=f"pod {name} is gone",
        )
    return outcomes[0], outcomes[1]


def delete_storage(api: ApiClient) -> None:
    """Remove every PV, StorageClass and CSINode the volume tests made."""
    for kind in ("PersistentVolume", "StorageClass", "CSINode", "CSIDriver"):
        api.delete_all(kind, grace_period=None)
