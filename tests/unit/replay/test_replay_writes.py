"""A plugin's writes in a replay reach the replayed cluster with the controllers' answers:
VolumeBinding's PV binding and selected-node (then the PV controller and a provisioner),
DynamicResources' allocation and reservation (then the resourceclaim controller when the
pod goes), so such pods bind instead of failing their PreBind."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kubesched.config import load_config
from kubesched.replay import read_trace, trace
from kubesched.replay.cluster import ReplayedCluster
from kubesched.replay.engine import build_engine
from kubesched.replay.loop import Replay
from kubesched.testing.builders import make_node, make_pod
from tests.unit.replay.traces import at, listed, write

HOSTNAME = "kubernetes.io/hostname"


def _class(name: str, provisioner: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "uid": name, "resourceVersion": "1"},
        "provisioner": provisioner,
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def _claim(name: str, storage_class: str) -> dict[str, Any]:
    spec = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "1Gi"}},
        "storageClassName": storage_class,
    }
    meta = {"name": name, "namespace": "w", "uid": f"uid-{name}", "resourceVersion": "1"}
    return {"metadata": meta, "spec": spec, "status": {"phase": "Pending"}}


def _local_volume(name: str, node: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node]}]}
    spec = {
        "capacity": {"storage": "1Gi"},
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": "local",
        "local": {"path": "/mnt"},
        "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
    }
    meta = {"name": name, "uid": name, "resourceVersion": "1"}
    return {"metadata": meta, "spec": spec, "status": {"phase": "Available"}}


def _node(name: str, cpu: str) -> dict[str, Any]:
    return make_node().name(name).label(HOSTNAME, name).capacity(cpu=cpu).obj()


def _run(tmp_path: Path, records: list[dict[str, Any]], end: float) -> tuple[Any, ReplayedCluster]:
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=end))
    replay = Replay(build_engine(load_config([]).config), recorded, seed=1)
    result = asyncio.run(replay.run())
    return result, replay._cluster


def test_a_local_volume_is_bound_by_the_replays_pv_controller(tmp_path: Path) -> None:
    records = [
        listed("nodes", _node("big", "8")),
        listed("nodes", _node("small", "1")),
        listed("storage.k8s.io/storageclasses", _class("local", "kubernetes.io/no-provisioner")),
        listed("persistentvolumes", _local_volume("pv-small", "small")),
        listed("persistentvolumeclaims", _claim("data", "local")),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.0, trace.ADDED, "pods", make_pod().name("p").namespace("w").claim("data").obj()),
    ]
    result, cluster = _run(tmp_path, records, 5.0)
    [outcome] = result.outcomes.values()
    assert (outcome.node, outcome.bound_at) == ("small", 1.0), outcome.last_failure
    claim = cluster.writes.get("persistentvolumeclaims", "w/data")
    assert claim["spec"]["volumeName"] == "pv-small"
    assert claim["status"]["phase"] == "Bound"
    assert claim["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"
    volume = cluster.writes.get("persistentvolumes", "pv-small")
    assert volume["spec"]["claimRef"]["uid"] == "uid-data"
    assert volume["status"]["phase"] == "Bound"


def test_a_wait_for_first_consumer_claim_is_provisioned_on_the_chosen_node(
    tmp_path: Path,
) -> None:
    records = [
        listed("nodes", _node("big", "8")),
        listed("nodes", _node("small", "1")),
        listed("storage.k8s.io/storageclasses", _class("fast", "disk.example.com")),
        listed("persistentvolumeclaims", _claim("data", "fast")),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.0, trace.ADDED, "pods", make_pod().name("p").namespace("w").claim("data").obj()),
        # What the recording saw next: its scheduler's choice, the provisioned PV, the
        # binding; the replay's own claim and volume win over them.
        at(1.5, trace.MODIFIED, "persistentvolumeclaims", _claim("data", "fast")),
        at(1.6, trace.ADDED, "persistentvolumes", _recorded_pv()),
    ]
    result, cluster = _run(tmp_path, records, 5.0)
    [outcome] = result.outcomes.values()
    assert outcome.node == "big", outcome.last_failure
    claim = cluster.writes.get("persistentvolumeclaims", "w/data")
    annotations = claim["metadata"]["annotations"]
    assert annotations["volume.kubernetes.io/selected-node"] == "big"
    assert claim["spec"]["volumeName"] == "pvc-uid-data"
    volume = cluster.writes.get("persistentvolumes", "pvc-uid-data")
    [term] = volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": HOSTNAME, "operator": "In", "values": ["big"]}]
    assert cluster.writes.known("persistentvolumes", "recorded-pv") is None


def _recorded_pv() -> dict[str, Any]:
    volume = _local_volume("recorded-pv", "small")
    volume["spec"]["claimRef"] = {"namespace": "w", "name": "data", "uid": "uid-data"}
    return volume


DEVICE_CLASS = {
    "metadata": {"name": "gpu", "uid": "gpu", "resourceVersion": "1"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}


def _slice(node: str, devices: int) -> dict[str, Any]:
    return {
        "metadata": {"name": f"{node}-gpus", "uid": f"{node}-gpus", "resourceVersion": "1"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{i}"} for i in range(devices)],
        },
    }


def _resource_claim(name: str) -> dict[str, Any]:
    request = {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}
    meta = {"name": name, "namespace": "w", "uid": f"uid-{name}", "resourceVersion": "1"}
    return {"metadata": meta, "spec": {"devices": {"requests": [request]}}}


def _gpu_pod(name: str, claim: str) -> dict[str, Any]:
    pod = make_pod().name(name).namespace("w").obj()
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
    return pod


CLAIMS = "resource.k8s.io/resourceclaims"


def test_a_claim_is_allocated_reserved_and_released_when_its_pod_goes(tmp_path: Path) -> None:
    records = [
        listed("nodes", _node("n1", "4")),
        listed("resource.k8s.io/deviceclasses", DEVICE_CLASS),
        listed("resource.k8s.io/resourceslices", _slice("n1", 1)),
        listed(CLAIMS, _resource_claim("a")),
        listed(CLAIMS, _resource_claim("b")),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.0, trace.ADDED, "pods", _gpu_pod("first", "a")),
        at(2.0, trace.ADDED, "pods", _gpu_pod("second", "b")),
        at(3.0, trace.DELETED, "pods", _gpu_pod("first", "a")),
    ]
    result, cluster = _run(tmp_path, records, 40.0)
    outcomes = {outcome.pod: outcome for outcome in result.outcomes.values()}
    assert (outcomes["w/first"].node, outcomes["w/first"].bound_at) == ("n1", 1.0)
    second = outcomes["w/second"]
    assert second.node == "n1", second.last_failure
    assert second.bound_at == 3.0, "bound as soon as the first pod released the device"
    released = cluster.writes.get(CLAIMS, "w/a")
    assert "allocation" not in released["status"]
    assert "reservedFor" not in released["status"]
    assert released["metadata"].get("finalizers") is None
    held = cluster.writes.get(CLAIMS, "w/b")
    [result_] = held["status"]["allocation"]["devices"]["results"]
    assert (result_["pool"], result_["device"]) == ("n1", "gpu-0")
    assert held["status"]["reservedFor"] == [
        {"resource": "pods", "name": "second", "uid": "uid-second"}
    ]
    assert held["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
