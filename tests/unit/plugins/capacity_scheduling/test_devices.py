"""DRA devices counted against ElasticQuotas under ResourceQuota's names
(`<class>.deviceclass.resource.k8s.io/devices`), as kube-apiserver v1.37.2's quota evaluator
counts a ResourceClaim."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import CycleState
from kubesched.framework.listers import ClusterListers, IndexedStore
from kubesched.model import ApiObject, Pod
from kubesched.plugins import in_tree_registry
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS, CapacityScheduling
from kubesched.plugins.capacity_scheduling.devices import (
    ALL_DEVICES_WORST_CASE,
    CLAIMS,
    PodUsage,
    claim_devices,
    device_resource,
)
from kubesched.runtime import build_framework
from kubesched.testing import FakeHandle, make_node, make_pod

from .conftest import PROFILE, quota

GPU = device_resource("gpu.example.com")
NIC = device_resource("nic.example.com")


def exactly(device_class: str, count: int | None = None, mode: str = "") -> dict[str, Any]:
    request: dict[str, Any] = {"deviceClassName": device_class}
    if count is not None:
        request["count"] = count
    if mode:
        request["allocationMode"] = mode
    return {"name": "r", "exactly": request}


def claim(name: str, *requests: dict[str, Any], namespace: str = "ns1") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": list(requests)}},
    }


def pod_with_claims(
    name: str, *, named: tuple[str, ...] = (), generated: tuple[str, ...] = (), cpu: str = "1"
) -> Pod:
    obj = make_pod().name(name).uid(name).namespace("ns1").req(cpu=cpu).obj()
    sources = [{"name": f"c{i}", "resourceClaimName": n} for i, n in enumerate(named)]
    sources += [
        {"name": f"t{i}", "resourceClaimTemplateName": "tpl"} for i in range(len(generated))
    ]
    obj["spec"]["resourceClaims"] = sources
    obj["status"]["resourceClaimStatuses"] = [
        {"name": f"t{i}", "resourceClaimName": n} for i, n in enumerate(generated)
    ]
    return Pod.from_json(obj)


@pytest.mark.parametrize(
    ("requests", "charged"),
    [
        ([exactly("gpu.example.com")], {GPU: 1}),
        ([exactly("gpu.example.com", 3)], {GPU: 3}),
        ([exactly("gpu.example.com", mode="All")], {GPU: ALL_DEVICES_WORST_CASE}),
        ([exactly("gpu.example.com", 2, mode="Unknown")], {GPU: 0}),
        ([exactly("gpu.example.com", 2), exactly("nic.example.com")], {GPU: 2, NIC: 1}),
        ([exactly("gpu.example.com", 2), exactly("gpu.example.com", 1)], {GPU: 3}),
        (
            [
                {
                    "name": "any",
                    "firstAvailable": [
                        {"name": "a", "deviceClassName": "gpu.example.com", "count": 4},
                        {"name": "b", "deviceClassName": "gpu.example.com", "count": 2},
                        {"name": "c", "deviceClassName": "nic.example.com"},
                    ],
                }
            ],
            {GPU: 4, NIC: 1},
        ),
        ([{"name": "future"}], {}),
    ],
)
def test_a_claim_is_charged_as_resource_quota_charges_it(
    requests: list[dict[str, Any]], charged: dict[str, int]
) -> None:
    assert claim_devices(claim("c", *requests)["spec"]) == charged


def _claims(*objects: dict[str, Any]) -> IndexedStore[ApiObject]:
    store = IndexedStore[ApiObject]()
    for obj in objects:
        store.on_add(ApiObject.from_json(obj))
    return store


def test_a_pod_is_charged_its_named_and_generated_claims_that_exist() -> None:
    usage = PodUsage(
        _claims(
            claim("shared", exactly("gpu.example.com", 2)),
            claim("p-t0", exactly("gpu.example.com")),
        )
    )
    plain = make_pod().name("plain").namespace("ns1").req(cpu="1").model()
    assert usage(plain) is plain.fit_requests
    charged = usage(pod_with_claims("p", named=("shared",), generated=("p-t0",)))
    assert (charged.milli_cpu, charged.scalar) == (1000, {GPU: 3})
    missing = usage(pod_with_claims("q", named=("not-yet",)))
    assert (missing.milli_cpu, missing.scalar) == (1000, {})


def _cluster(*claims: dict[str, Any]) -> tuple[FakeHandle, CapacityScheduling]:
    nodes = [make_node().name("n").capacity(cpu="16", memory="64Gi", pods="110").model()]
    limits = {"cpu": "16", GPU: "2"}
    objects: list[Any] = [(ELASTIC_QUOTAS, quota("ns1", min_=limits, max_=limits))]
    objects += [(CLAIMS, obj) for obj in claims]
    handle = FakeHandle(nodes=nodes, objects=objects, listers=ClusterListers([CLAIMS]))
    framework = build_framework(profile=PROFILE, registry=in_tree_registry(), handle=handle)
    plugin = next(p for p in framework.plugins.post_filter if p.name == "CapacityScheduling")
    assert isinstance(plugin, CapacityScheduling)
    return handle, plugin


def _bind(handle: FakeHandle, pod: Pod) -> None:
    bound = pod.on_node("n")
    handle.add_pod(bound)
    handle.listers.pods.on_add(bound)


def test_devices_over_the_quotas_max_are_refused_at_prefilter() -> None:
    one_gpu = exactly("gpu.example.com")
    handle, plugin = _cluster(claim("a", one_gpu), claim("b", one_gpu), claim("c", one_gpu))
    _bind(handle, pod_with_claims("pa", generated=("a",)))
    assert plugin.book.infos["ns1"].used.scalar == {GPU: 1}
    nodes = handle.list_node_infos()
    assert plugin.pre_filter(CycleState(), pod_with_claims("pb", generated=("b",)), nodes) is None
    _bind(handle, pod_with_claims("pb", generated=("b",)))
    status = plugin.pre_filter(CycleState(), pod_with_claims("pc", generated=("c",)), nodes)
    assert status is not None
    assert (
        status.message
        == "Pod ns1/pc is rejected in PreFilter because ElasticQuota ns1 is more than Max"
    )
    assert plugin.pre_filter(CycleState(), pod_with_claims("plain"), nodes) is None


def test_a_claim_that_arrives_after_its_pod_was_counted_is_charged_then() -> None:
    handle, plugin = _cluster()
    pod = pod_with_claims("pa", named=("late",))
    _bind(handle, pod)
    info = plugin.book.infos["ns1"]
    assert (info.used.milli_cpu, info.used.scalar) == (1000, {})
    handle.listers.add(CLAIMS, ApiObject.from_json(claim("late", exactly("gpu.example.com", 2))))
    info = plugin.book.infos["ns1"]
    assert (info.used.milli_cpu, info.used.scalar) == (1000, {GPU: 2})
    handle.listers.pods.on_delete(pod.on_node("n"))
    assert (info.used.milli_cpu, info.used.scalar.get(GPU, 0)) == (0, 0)
