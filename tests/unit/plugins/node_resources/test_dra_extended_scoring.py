"""NodeResourcesFit and NodeResourcesBalancedAllocation score an extended resource a
DeviceClass backs by the node's devices of that class (DRAExtendedResource; upstream
`calculateDRAExtendedResourceAllocatableRequest`)."""

from __future__ import annotations

from typing import Any

from kubesched.framework import NodeInfo
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.plugins import NodeResourcesBalancedAllocation, NodeResourcesFit
from kubesched.plugins.dynamic_resources.resources import ALL, CLAIMS, DEVICE_CLASSES, SLICES
from kubesched.testing import FakeHandle, make_node, make_pod, run_score_plugin

DRIVER = "gpu.example.com"
GPU = "example.com/gpu"


def _class(expression: str | None = None) -> ApiObject:
    selectors = [{"cel": {"expression": expression}}] if expression else []
    spec = {"selectors": selectors, "extendedResourceName": GPU}
    return ApiObject.from_json({"metadata": {"name": "gpu", "uid": "uid-gpu"}, "spec": spec})


def _slice(node: str, devices: int, *, model: str = "a100") -> ApiObject:
    spec = {
        "driver": DRIVER,
        "nodeName": node,
        "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
        "devices": [
            {"name": f"gpu-{i}", "attributes": {"model": {"string": model}}} for i in range(devices)
        ],
    }
    meta = {"name": f"{node}-gpus", "uid": f"uid-{node}", "resourceVersion": "1"}
    return ApiObject.from_json({"metadata": meta, "spec": spec})


def _allocated_claim(node: str, device: str) -> ApiObject:
    result = {"request": "r", "driver": DRIVER, "pool": node, "device": device}
    return ApiObject.from_json(
        {
            "metadata": {"name": "used", "namespace": "default", "uid": "uid-used"},
            "spec": {
                "devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}
            },
            "status": {"allocation": {"devices": {"results": [result]}}},
        }
    )


def _handle(*objects: tuple[Any, ApiObject]) -> FakeHandle:
    h = FakeHandle()
    h.listers = ClusterListers(ALL)
    for spec, obj in objects:
        h.listers.add(spec, obj)
    return h


def _nodes() -> list[NodeInfo]:
    return [
        NodeInfo(node=make_node().name(n).capacity(cpu="8", memory="16Gi").model())
        for n in ("n1", "n2")
    ]


def _gpu_pod(gpus: str = "1") -> Pod:
    return make_pod().req(cpu="1", memory="1Gi").req_named({GPU: gpus}).model()


def _fit(h: FakeHandle, strategy: str = "LeastAllocated") -> NodeResourcesFit:
    args = {"scoringStrategy": {"type": strategy, "resources": [{"name": GPU, "weight": 1}]}}
    return NodeResourcesFit(args=args, handle=h)


CLUSTER = (
    (DEVICE_CLASSES, _class()),
    (SLICES, _slice("n1", 4)),
    (SLICES, _slice("n2", 3)),
    (CLAIMS, _allocated_claim("n1", "gpu-0")),
)


def test_least_allocated_counts_the_devices_of_the_class_and_those_in_use() -> None:
    # n1: 4 devices, 1 in use, +1 -> (4 - 2) * 100 / 4; n2: 3 devices -> (3 - 1) * 100 / 3
    assert run_score_plugin(_fit(_handle(*CLUSTER)), _gpu_pod(), _nodes()) == {"n1": 50, "n2": 66}


def test_most_allocated_with_the_same_counts() -> None:
    fit = _fit(_handle(*CLUSTER), "MostAllocated")
    assert run_score_plugin(fit, _gpu_pod(), _nodes()) == {"n1": 50, "n2": 33}


def test_the_class_selectors_pick_the_devices_counted() -> None:
    h = _handle(
        (DEVICE_CLASSES, _class('device.attributes["gpu.example.com"].model == "a100"')),
        (SLICES, _slice("n1", 4)),
        (SLICES, _slice("n2", 3, model="t4")),
    )
    # n2's devices are not of the class: the resource is left out there (score 0)
    assert run_score_plugin(_fit(h), _gpu_pod(), _nodes()) == {"n1": 75, "n2": 0}


def test_a_selector_error_leaves_the_resource_out() -> None:
    h = _handle(
        (DEVICE_CLASSES, _class('device.attributes["gpu.example.com"].memory > 1')),
        (SLICES, _slice("n1", 4)),
    )
    assert run_score_plugin(_fit(h), _gpu_pod(), _nodes()) == {"n1": 0, "n2": 0}


def test_without_a_class_the_resource_is_left_out_as_a_missing_one() -> None:
    h = _handle((SLICES, _slice("n1", 4)))
    assert run_score_plugin(_fit(h), _gpu_pod(), _nodes()) == {"n1": 0, "n2": 0}


def test_balanced_allocation_counts_the_devices_too() -> None:
    args = {"resources": [{"name": "cpu"}, {"name": GPU}]}
    plugin = NodeResourcesBalancedAllocation(args=args, handle=_handle(*CLUSTER))
    # n1: cpu 1/8, gpu 2/4 with the pod (std 0.1875 -> 81); without: 0, 1/4 (0.125 -> 87)
    # n2: cpu 1/8, gpu 1/3 (std 0.104 -> 89); without: 0, 0 -> 100
    assert run_score_plugin(plugin, _gpu_pod(), _nodes()) == {
        "n1": 50 + (50 + 81 - 87) // 2,
        "n2": 50 + (50 + 89 - 100) // 2,
    }


def test_a_pod_with_a_class_backed_request_is_not_signable() -> None:
    h = _handle(*CLUSTER)
    pod = _gpu_pod()
    assert _fit(h).sign_pod(pod) is None
    assert NodeResourcesBalancedAllocation(args={}, handle=h).sign_pod(pod) is None
    plain = make_pod().req(cpu="1").model()
    assert _fit(h).sign_pod(plain) is not None
