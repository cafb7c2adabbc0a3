"""The device features of DRA, decided by kube-scheduler v1.37.2 and by kubesched on the
same cluster (as `test_dra_parity`): partitionable devices sharing a counter, a GPU whose
memory several claims consume, a DeviceTaintRule, admin access and a device with a binding
condition the example driver satisfies. The example driver's slices are used
(`kubesched.localcluster.dra_objects`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.localcluster.dra_driver import LocalDraDriver
from kubesched.localcluster.dra_objects import DRIVER, NodeGpus, device_taint_rule, node_slices
from tests.e2e.harness import ApiClient
from tests.e2e.harness.workloads import kwok_node, unique
from tests.e2e.test_dra_parity import (  # noqa: F401 - the module's fixtures, reused
    Published,
    claim,
    decide_both,
    dra,
    exactly,
    ns,
    pod_with,
    same,
)


def of_type(kind: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": f'device.attributes["{DRIVER}"].type == "{kind}"'}}]


def gpu_node(api: ApiClient, dra: Published, gpus: NodeGpus) -> str:  # noqa: F811
    node = unique("dev")
    api.create(kwok_node(node, cpu="8"))
    for body in node_slices(node, gpus):
        dra.create(body, "resourceslices")
    return node


@pytest.fixture
def cls(dra: Published) -> str:  # noqa: F811
    name = unique("gpu")
    dra.device_class(name, f'device.driver == "{DRIVER}"')
    return name


def test_partitions_of_one_gpu_exhaust_its_counter(
    ns: str,  # noqa: F811
    api: ApiClient,
    dra: Published,  # noqa: F811
    cls: str,
) -> None:
    gpu_node(api, dra, NodeGpus(gpus=0, partitionable=1))

    def two(tag: str) -> tuple[dict[str, Any], list[str]]:
        request = exactly("parts", cls, count=2, selectors=of_type("partition"))
        c = claim(dra, ns, f"c-{tag}", {"requests": [request]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, two, nodes=1)
    same(kube, ours)
    assert [d for _, _, d in ours[1][0]] == ["pgpu-0-half-0", "pgpu-0-half-1"]

    def three(tag: str) -> tuple[dict[str, Any], list[str]]:
        request = exactly("parts", cls, count=3, selectors=of_type("partition"))
        c = claim(dra, ns, f"c-{tag}", {"requests": [request]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, three, nodes=1)
    same(kube, ours)
    assert not ours[0].node


def test_claims_share_the_memory_of_one_gpu(
    ns: str,  # noqa: F811
    api: ApiClient,
    dra: Published,  # noqa: F811
    cls: str,
) -> None:
    gpu_node(api, dra, NodeGpus(gpus=0, shared=1))

    def sharing(count: int) -> Any:
        def scenario(tag: str) -> tuple[dict[str, Any], list[str]]:
            names = []
            for i in range(count):
                request = exactly(
                    "mem",
                    cls,
                    selectors=of_type("shared"),
                    capacity={"requests": {"memory": "40Gi"}},
                )
                names.append(claim(dra, ns, f"c{i}-{tag}", {"requests": [request]}))
            return pod_with(ns, f"p-{tag}", *names), names

        return scenario

    kube, ours = decide_both(api, ns, sharing(2), nodes=1)
    same(kube, ours)
    assert ours[0].node
    kube, ours = decide_both(api, ns, sharing(3), nodes=1)
    same(kube, ours)
    assert not ours[0].node


def test_a_device_taint_rule_keeps_a_device_free(
    ns: str,  # noqa: F811
    api: ApiClient,
    dra: Published,  # noqa: F811
    cls: str,
) -> None:
    node = gpu_node(api, dra, NodeGpus(gpus=2, numa=1))
    rule = device_taint_rule(unique("broken"), pool=node, device="gpu-0")
    dra.create(rule, "devicetaintrules")

    def one(tag: str) -> tuple[dict[str, Any], list[str]]:
        c = claim(dra, ns, f"c-{tag}", {"requests": [exactly("gpu", cls)]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, one, nodes=1)
    same(kube, ours)
    assert [d for _, _, d in ours[1][0]] == ["gpu-1"]


def test_admin_access_takes_a_device_in_use(
    ns: str,  # noqa: F811
    api: ApiClient,
    dra: Published,  # noqa: F811
    cls: str,
) -> None:
    api.patch(
        "Namespace",
        ns,
        {"metadata": {"labels": {"resource.kubernetes.io/admin-access": "true"}}},
        patch_type="merge",
    )
    gpu_node(api, dra, NodeGpus(gpus=1, numa=1))
    held = claim(dra, ns, "held", {"requests": [exactly("gpu", cls)]})
    holder = pod_with(ns, "holder", held)
    holder["spec"]["schedulerName"] = "default-scheduler"
    api.create(holder)

    def admin(tag: str) -> tuple[dict[str, Any], list[str]]:
        request = exactly("gpu", cls, adminAccess=True)
        c = claim(dra, ns, f"c-{tag}", {"requests": [request]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, admin, nodes=1)
    same(kube, ours)
    assert [d for _, _, d in ours[1][0]] == ["gpu-0"]


@pytest.fixture
def driver(workload_cluster: LocalCluster) -> Iterator[LocalDraDriver]:
    with LocalDraDriver(workload_cluster.kubeconfig_path, binding="attach") as running:
        yield running


def test_a_binding_condition_the_driver_satisfies(
    ns: str,  # noqa: F811
    api: ApiClient,
    dra: Published,  # noqa: F811
    cls: str,
    driver: LocalDraDriver,
) -> None:
    del driver
    gpu_node(api, dra, NodeGpus(gpus=0, fabric=1))

    def fabric(tag: str) -> tuple[dict[str, Any], list[str]]:
        c = claim(
            dra, ns, f"c-{tag}", {"requests": [exactly("gpu", cls, selectors=of_type("fabric"))]}
        )
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, fabric, nodes=1)
    same(kube, ours)
    assert [d for _, _, d in ours[1][0]] == ["fgpu-0"]
