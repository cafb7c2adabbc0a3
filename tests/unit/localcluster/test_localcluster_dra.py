"""The example DRA driver of the local cluster: its objects, and how it publishes slices and
prepares claims (against an in-memory API; the real one is in tests/e2e/test_dra_cluster.py)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from kubesched.kube.api import MERGE_PATCH
from kubesched.kube.errors import NotFound
from kubesched.localcluster import LocalClusterError
from kubesched.localcluster.controller_manager import CONTROLLERS
from kubesched.localcluster.dra_driver import SLICES, DraDriver, LocalDraDriver, example_node
from kubesched.localcluster.dra_objects import (
    ATTACH_FAILED,
    ATTACHED,
    DRIVER,
    NodeGpus,
    claim_template,
    device_class,
    device_statuses,
    device_taint_rule,
    node_slices,
)
from tests.unit.api_fakes import FakeApi, wait_for

NOW = "2026-01-01T00:00:00Z"


def devices(slices: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["name"]: d for d in slices[0]["spec"]["devices"]}


def attribute(device: dict[str, Any], name: str) -> object:
    (value,) = device["attributes"][name].values()
    return value


def test_the_controller_manager_runs_the_dra_controllers_of_the_default_set() -> None:
    assert "resourceclaim-controller" in CONTROLLERS
    assert "device-taint-eviction-controller" in CONTROLLERS


def test_the_device_class_selects_the_driver_and_can_back_an_extended_resource() -> None:
    plain = device_class()
    assert plain["metadata"]["name"] == DRIVER
    assert plain["spec"] == {
        "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]
    }
    backed = device_class("gpus", extended_resource_name="example.com/gpu")
    assert backed["spec"]["extendedResourceName"] == "example.com/gpu"


def test_whole_gpus_are_spread_over_numa_nodes_in_blocks() -> None:
    slices = node_slices("node-a", NodeGpus(gpus=4, numa=2, model="H100"))

    assert len(slices) == 1
    spec = slices[0]["spec"]
    assert (spec["driver"], spec["nodeName"]) == (DRIVER, "node-a")
    assert spec["pool"] == {"name": "node-a", "generation": 1, "resourceSliceCount": 1}
    found = devices(slices)
    assert [attribute(found[f"gpu-{i}"], "numa") for i in range(4)] == [0, 0, 1, 1]
    assert {attribute(d, "model") for d in found.values()} == {"H100"}
    assert {attribute(d, "type") for d in found.values()} == {"gpu"}
    assert found["gpu-0"]["capacity"] == {"memory": {"value": "80Gi"}}
    assert attribute(found["gpu-0"], "uuid") != attribute(
        devices(node_slices("b", NodeGpus()))["gpu-0"], "uuid"
    )


def test_partitionable_gpus_put_their_counters_in_a_second_slice_of_the_pool() -> None:
    slices = node_slices("n", NodeGpus(gpus=0, partitionable=1, memory="40Gi"), generation=3)

    assert [s["metadata"]["name"] for s in slices] == [
        "n-gpu.example.com",
        "n-gpu.example.com-counters",
    ]
    assert {s["spec"]["pool"]["resourceSliceCount"] for s in slices} == {2}
    assert {s["spec"]["pool"]["generation"] for s in slices} == {3}
    assert slices[1]["spec"]["sharedCounters"] == [
        {"name": "pgpu-0", "counters": {"memory": {"value": "40Gi"}}}
    ]
    assert "devices" not in slices[1]["spec"]
    found = devices(slices)
    assert list(found) == ["pgpu-0", "pgpu-0-half-0", "pgpu-0-half-1"]
    consumed = [d["consumesCounters"][0]["counters"]["memory"]["value"] for d in found.values()]
    assert consumed == ["40Gi", "20Gi", "20Gi"]


def test_odd_memory_is_halved_exactly_and_other_notations_are_refused() -> None:
    found = devices(node_slices("n", NodeGpus(gpus=0, partitionable=1, memory="5Gi")))
    assert found["pgpu-0-half-0"]["capacity"]["memory"]["value"] == "2560Mi"
    with pytest.raises(ValueError, match="<integer>Gi"):
        node_slices("n", NodeGpus(gpus=0, partitionable=1, memory="1.5G"))


def test_shared_fabric_and_tainted_devices() -> None:
    taint = {"key": "example.com/broken", "effect": "NoSchedule"}
    gpus = NodeGpus(gpus=1, shared=1, fabric=1, taints={"gpu-0": [taint]})
    found = devices(node_slices("n", gpus))

    assert found["gpu-0"]["taints"] == [taint]
    shared = found["sgpu-0"]
    assert shared["allowMultipleAllocations"] is True
    policy = shared["capacity"]["memory"]["requestPolicy"]
    assert policy == {"default": "10Gi", "validRange": {"min": "1Gi", "step": "1Gi"}}
    fabric = found["fgpu-0"]
    assert fabric["bindsToNode"] is True
    assert (fabric["bindingConditions"], fabric["bindingFailureConditions"]) == (
        [ATTACHED],
        [ATTACH_FAILED],
    )


def test_claim_template_and_taint_rule() -> None:
    template = claim_template("ns", "two", count=2, selectors=["device.attributes['x'].y"])
    request = template["spec"]["spec"]["devices"]["requests"][0]
    assert request["name"] == "gpu"
    assert request["exactly"]["count"] == 2
    assert request["exactly"]["selectors"] == [{"cel": {"expression": "device.attributes['x'].y"}}]
    rule = device_taint_rule("r", pool="n", device="gpu-0", effect="NoExecute")
    assert rule["spec"] == {
        "deviceSelector": {"driver": DRIVER, "pool": "n", "device": "gpu-0"},
        "taint": {"key": "gpu.example.com/unhealthy", "effect": "NoExecute"},
    }


def allocated(
    *results: dict[str, Any], devices: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    status: dict[str, Any] = {"allocation": {"devices": {"results": list(results)}}}
    if devices is not None:
        status["devices"] = devices
    return {"metadata": {"name": "c", "namespace": "ns", "resourceVersion": "7"}, "status": status}


def result(device: str, driver: str = DRIVER, **extra: Any) -> dict[str, Any]:
    return {"request": "gpu", "driver": driver, "pool": "n", "device": device, **extra}


def kinds(entry: dict[str, Any]) -> list[str]:
    return [c["type"] for c in entry["conditions"]]


def test_prepared_devices_are_ready_and_attached() -> None:
    claim = allocated(
        result("gpu-0", shareID="s1"),
        result("fgpu-0", bindingConditions=[ATTACHED], bindingFailureConditions=[ATTACH_FAILED]),
        result("x", driver="other.example.com"),
    )
    entries = device_statuses(claim, now=NOW)

    assert entries is not None
    assert [(e["device"], e.get("shareID"), kinds(e)) for e in entries] == [
        ("gpu-0", "s1", ["Ready"]),
        ("fgpu-0", None, ["Ready", ATTACHED]),
    ]
    failing = device_statuses(claim, binding="fail", now=NOW)
    assert failing is not None
    assert kinds(failing[1]) == ["Ready", ATTACH_FAILED]
    waiting = device_statuses(claim, binding="wait", now=NOW)
    assert waiting is not None
    assert kinds(waiting[1]) == ["Ready"]


def test_nothing_to_write_when_unallocated_foreign_or_already_prepared() -> None:
    assert device_statuses({"metadata": {}, "status": {}}, now=NOW) is None
    assert device_statuses(allocated(result("x", driver="other.example.com")), now=NOW) is None
    claim = allocated(result("gpu-0"))
    entries = device_statuses(claim, now=NOW)
    assert entries is not None
    assert device_statuses(allocated(result("gpu-0"), devices=entries), now="later") is None


def test_other_drivers_entries_are_kept() -> None:
    theirs = {"driver": "other.example.com", "pool": "p", "device": "d", "conditions": []}
    entries = device_statuses(allocated(result("gpu-0"), devices=[theirs]), now=NOW)
    assert entries is not None
    assert entries[0] == theirs


NODE = {"metadata": {"name": "node-a", "uid": "u-1"}}


def old_slice(name: str, generation: int) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"pool": {"generation": generation}}}


async def test_publish_bumps_the_generation_owns_the_slices_and_drops_stale_ones() -> None:
    old = [old_slice("node-a-gpu.example.com", 4), old_slice("node-a-gpu.example.com-counters", 4)]
    api = FakeApi(lists=[[NODE], [{"items": old}]])

    written = await DraDriver(api).publish("node-a", NodeGpus(gpus=2))

    assert [s["spec"]["pool"]["generation"] for s in written] == [5]
    owner = written[0]["metadata"]["ownerReferences"]
    assert owner == [{"apiVersion": "v1", "kind": "Node", "name": "node-a", "uid": "u-1"}]
    assert [c.path for c in api.posts()] == [SLICES]
    assert [c.path for c in api.of("DELETE")] == [f"{SLICES}/node-a-gpu.example.com-counters"]
    slices_get = api.gets()[1]
    assert slices_get.params == {
        "fieldSelector": "spec.nodeName=node-a,spec.driver=gpu.example.com"
    }


async def test_publish_for_a_missing_node_is_one_clear_error() -> None:
    api = FakeApi(lists=[NotFound(404, "NotFound", 'nodes "x" not found')])
    with pytest.raises(LocalClusterError, match="node x does not exist"):
        await DraDriver(api).publish("x")


async def test_prepare_patches_the_status_with_the_claim_s_version() -> None:
    api = FakeApi()
    assert await DraDriver(api).prepare(allocated(result("gpu-0")))

    (call,) = api.patches()
    assert call.path == "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c/status"
    assert call.content_type == MERGE_PATCH
    assert call.body["metadata"] == {"resourceVersion": "7"}
    assert [e["device"] for e in call.body["status"]["devices"]] == ["gpu-0"]
    assert not await DraDriver(api).prepare({"metadata": {}, "status": {}})


def test_an_unknown_binding_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="attach, fail or wait"):
        DraDriver(FakeApi(), binding="sometimes")


async def test_run_prepares_listed_then_watched_claims() -> None:
    listed = {"metadata": {"resourceVersion": "10"}, "items": [allocated(result("gpu-0"))]}
    later = allocated(result("gpu-1"))
    api = FakeApi(lists=[[listed]], watches=[[{"type": "MODIFIED", "object": later}]])
    ready = asyncio.Event()
    task = asyncio.create_task(DraDriver(api).run(ready=ready))
    try:
        await wait_for(lambda: len(api.patches()) == 2)
        assert ready.is_set()
        assert api.watch_calls[0]["resourceVersion"] == "10"
        devices_written = [c.body["status"]["devices"][0]["device"] for c in api.patches()]
        assert devices_written == ["gpu-0", "gpu-1"]
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def test_the_example_nodes_are_kwok_nodes() -> None:
    node = example_node("gpu-node-0")
    assert node["metadata"]["labels"]["kwok.x-k8s.io/node"] == "fake"
    assert node["status"]["allocatable"]["cpu"] == "32"


async def test_withdraw_deletes_every_slice_of_the_driver_and_its_class() -> None:
    api = FakeApi(lists=[[{"items": [old_slice("a-gpu.example.com", 1)]}]])

    await DraDriver(api).withdraw()

    assert api.gets()[0].params == {"fieldSelector": "spec.driver=gpu.example.com"}
    assert [c.path for c in api.of("DELETE")] == [
        f"{SLICES}/a-gpu.example.com",
        "/apis/resource.k8s.io/v1/deviceclasses/gpu.example.com",
    ]


def test_a_local_driver_without_a_cluster_is_one_error_and_leaves_no_thread(tmp_path: Path) -> None:
    missing = tmp_path / "no-kubeconfig"
    with pytest.raises(LocalClusterError, match="the example DRA driver"), LocalDraDriver(missing):
        pass
    assert not [t for t in threading.enumerate() if t.name == "dra-driver"]
