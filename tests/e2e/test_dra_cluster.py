"""The local cluster plays a DRA driver: with the example driver's slices on two kwok nodes,
the real kube-scheduler allocates a claim that the resourceclaim controller made from a
template, the pod binds and runs, the driver prepares the claim, and the claim goes away
with the pod. A fabric-attached device's binding condition, set by the driver, lets
kube-scheduler bind the pod it held in PreBind."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.localcluster.dra_driver import LocalDraDriver
from kubesched.localcluster.dra_objects import ATTACHED, DRIVER, NodeGpus, claim_template
from tests.e2e.harness import ApiClient, wait_for
from tests.e2e.harness.workloads import kwok_node, unique

RESOURCE = "/apis/resource.k8s.io/v1"


@pytest.fixture(scope="module")
def dra(workload_cluster: LocalCluster) -> Iterator[LocalDraDriver]:
    """The example driver (its DeviceClass published), preparing claims in the background."""
    with LocalDraDriver(workload_cluster.kubeconfig_path) as driver:
        driver.publish_classes()
        try:
            yield driver
        finally:
            driver.withdraw()


def gpu_pod(namespace: str, name: str, template: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "schedulerName": "default-scheduler",
            "terminationGracePeriodSeconds": 0,
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
            "containers": [
                {
                    "name": "main",
                    "image": "registry.k8s.io/pause:3.10",
                    "resources": {"claims": [{"name": "gpu"}]},
                }
            ],
        },
    }


def create_template(api: ApiClient, namespace: str, name: str, selector: str) -> None:
    body = claim_template(namespace, name, selectors=[selector])
    api.request("POST", f"{RESOURCE}/namespaces/{namespace}/resourceclaimtemplates", body=body)


def claim_of(api: ApiClient, pod: dict[str, Any]) -> dict[str, Any]:
    (status,) = pod["status"]["resourceClaimStatuses"]
    namespace = pod["metadata"]["namespace"]
    path = f"{RESOURCE}/namespaces/{namespace}/resourceclaims/{status['resourceClaimName']}"
    claim: dict[str, Any] = api.request("GET", path)
    return claim


def running(api: ApiClient, namespace: str, name: str) -> dict[str, Any]:
    return wait_for(
        lambda: api.get("Pod", name, namespace=namespace),
        until=lambda pod: pod["status"].get("phase") == "Running",
        timeout=30.0,
        message=f"pod {namespace}/{name} Running",
    )


def test_kube_scheduler_allocates_a_templated_claim_and_the_pod_runs(
    dra: LocalDraDriver, namespace: str, api: ApiClient
) -> None:
    a100, h100 = unique("gpu-a"), unique("gpu-b")
    for node in (a100, h100):
        api.create(kwok_node(node, cpu="8"))
    dra.publish(a100, NodeGpus(gpus=2, numa=1, model="A100"))
    dra.publish(h100, NodeGpus(gpus=4, numa=2, model="H100", partitionable=1, shared=1))
    model = f'device.attributes["{DRIVER}"].model == "H100"'
    numa = f'device.attributes["{DRIVER}"].numa == 1'
    create_template(api, namespace, "h100", f"{model} && {numa}")
    api.create(gpu_pod(namespace, "trainer", "h100"))

    pod = running(api, namespace, "trainer")

    assert pod["spec"]["nodeName"] == h100
    claim = claim_of(api, pod)
    owner = claim["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == (
        "Pod",
        "trainer",
        pod["metadata"]["uid"],
    )
    (result,) = claim["status"]["allocation"]["devices"]["results"]
    assert (result["driver"], result["pool"], result["request"]) == (DRIVER, h100, "gpu")
    assert result["device"] in {"gpu-2", "gpu-3"}, "the H100s on NUMA node 1"
    (consumer,) = claim["status"]["reservedFor"]
    assert (consumer["resource"], consumer["name"]) == ("pods", "trainer")
    assert consumer["uid"] == pod["metadata"]["uid"]
    prepared = wait_for(
        lambda: claim_of(api, pod)["status"].get("devices") or [],
        message="the driver prepared the claim",
    )
    assert [(d["device"], [c["type"] for c in d["conditions"]]) for d in prepared] == [
        (result["device"], ["Ready"])
    ]

    api.delete("Pod", "trainer", namespace=namespace, grace_period=0)
    path = f"{RESOURCE}/namespaces/{namespace}/resourceclaims/{claim['metadata']['name']}"
    wait_for(
        lambda: api.request("GET", f"{RESOURCE}/namespaces/{namespace}/resourceclaims")["items"],
        until=lambda items: not items,
        message=f"the resourceclaim controller deleted {path} with its pod",
    )


def test_the_driver_attaches_a_fabric_device_so_kube_scheduler_binds(
    dra: LocalDraDriver, namespace: str, api: ApiClient
) -> None:
    node = unique("fabric")
    api.create(kwok_node(node, cpu="8"))
    dra.publish(node, NodeGpus(gpus=1, fabric=1))
    create_template(api, namespace, "fabric", f'device.attributes["{DRIVER}"].type == "fabric"')
    api.create(gpu_pod(namespace, "attached", "fabric"))

    pod = running(api, namespace, "attached")

    assert pod["spec"]["nodeName"] == node
    claim = claim_of(api, pod)
    (result,) = claim["status"]["allocation"]["devices"]["results"]
    assert (result["device"], result["bindingConditions"]) == ("fgpu-0", [ATTACHED])
    (device,) = claim["status"]["devices"]
    assert {c["type"]: c["status"] for c in device["conditions"]} == {
        "Ready": "True",
        ATTACHED: "True",
    }
    reasons = [e.reason for e in api.events(namespace=namespace, regarding="attached")]
    assert "BindingConditionsPending" in reasons
