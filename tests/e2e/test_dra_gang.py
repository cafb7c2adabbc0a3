"""A gang of GPU pods: four members, each with its own ResourceClaim for one GPU, fits only
whole. With the native PodGroup API (the GenericWorkload gate) the gated kube-scheduler and
kubesched get the same scenario at once, each on its own nodes: with three GPUs free none
binds and both say why alike; once the driver publishes a fourth GPU all four bind, each on
its own device. With Coscheduling (kubesched only) the same, all or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.plugins.coscheduling import POD_GROUP_LABEL
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, unschedulable_message, wait_for
from tests.e2e.test_gang_coscheduling import ELECTION, podgroup_crd  # noqa: F401 - its CRD fixture
from tests.e2e.test_gang_coscheduling import PG_PATH as COSCHED_PG_PATH
from tests.e2e.test_gang_coscheduling import SCHEDULER as COSCHED
from tests.e2e.test_gang_coscheduling import _bound as cosched_bound
from tests.e2e.test_gang_coscheduling import _config as cosched_config
from tests.e2e.test_gang_coscheduling import _group as cosched_group
from tests.e2e.test_gang_coscheduling import _never_partial as never_partial
from tests.e2e.test_gang_native import (  # noqa: F401 - the module's fixtures, reused
    NODE_LABEL,
    ORACLE,
    OURS,
    SCHEDULERS,
    _condition,
    _group,
    _reasons,
    _seen_nodes,
    _wait_gangs_scheduled,
    both,
    oracle,
)

RESOURCE = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"


def _slice(node: str, gpus: int, generation: int) -> dict[str, Any]:
    return {
        "apiVersion": RESOURCE,
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": generation, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{i}"} for i in range(gpus)],
        },
    }


def _gpu_nodes(api: ApiClient, scheduler: str, gpus: tuple[int, ...]) -> list[str]:
    names = []
    for i, count in enumerate(gpus):
        name = f"{scheduler}-gpu-{i}"
        node = make_node().name(name).label(NODE_LABEL, scheduler)
        api.create(node.capacity(cpu="8", pods="20").obj())
        api.request("POST", f"/apis/{RESOURCE}/resourceslices", body=_slice(name, count, 1))
        names.append(name)
    return names


def _members(api: ApiClient, scheduler: str, ns: str, cls: str) -> list[str]:
    names = [f"train-{i}" for i in range(4)]
    for name in names:
        claim = {
            "apiVersion": RESOURCE,
            "kind": "ResourceClaim",
            "metadata": {"name": f"{name}-gpu"},
            "spec": {
                "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": cls}}]}
            },
        }
        api.request("POST", f"/apis/{RESOURCE}/namespaces/{ns}/resourceclaims", body=claim)
        pod = make_pod().name(name).scheduler(scheduler).pod_group("train")
        obj = pod.node_selector(**{NODE_LABEL: scheduler}).obj()
        obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}]
        api.create(obj, namespace=ns)
    return names


def _devices(api: ApiClient, ns: str) -> list[tuple[str, str]]:
    claims = api.request("GET", f"/apis/{RESOURCE}/namespaces/{ns}/resourceclaims")["items"]
    found = []
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation") or {}
        found += [(r["pool"], r["device"]) for r in allocation["devices"]["results"]]
    return sorted(found)


def test_a_gpu_gang_binds_only_whole(api: ApiClient, both: dict[str, str]) -> None:  # noqa: F811
    cls = f"gang-{DRIVER}"
    body = {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": cls}}
    api.request("POST", f"/apis/{RESOURCE}/deviceclasses", body=body | {"spec": {}})
    nodes = {scheduler: _gpu_nodes(api, scheduler, (2, 1)) for scheduler in SCHEDULERS}
    try:
        _seen_nodes(api, both, 4)
        members = {}
        for scheduler, ns in both.items():
            _group(api, ns, "train", 4)
            members[scheduler] = _members(api, scheduler, ns, cls)
        reasons = {s: _reasons(api, ns, members[s]) for s, ns in both.items()}
        assert reasons[OURS] == reasons[ORACLE]
        conditions = {
            s: wait_for(lambda ns=ns: _condition(api, ns, "train"), message=f"{s}'s condition")
            for s, ns in both.items()
        }
        assert conditions[OURS] == conditions[ORACLE]
        for scheduler in SCHEDULERS:  # the driver publishes a second GPU on the small node
            small = nodes[scheduler][1]
            path = f"/apis/{RESOURCE}/resourceslices/{small}-gpus"
            current = api.request("GET", path)
            updated = _slice(small, 2, 2)
            updated["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            api.request("PUT", path, body=updated)
        _wait_gangs_scheduled(api, both, "train", size=4, timeout=60)
        for scheduler, ns in both.items():
            devices = _devices(api, ns)
            assert len(set(devices)) == 4, f"{scheduler}: {devices}"
    finally:
        for scheduler in SCHEDULERS:
            for node in nodes.get(scheduler, ()):
                api.request("DELETE", f"/apis/{RESOURCE}/resourceslices/{node}-gpus")
        api.request("DELETE", f"/apis/{RESOURCE}/deviceclasses/{cls}")


@pytest.mark.usefixtures("podgroup_crd")
def test_a_coscheduling_gpu_gang_binds_only_whole(
    kubesched: Any, api: ApiClient, namespace: str, tmp_path: Path, local_cluster: Any
) -> None:
    """The same gang with scheduler-plugins' Coscheduling (kubesched only: kube-scheduler
    has no Coscheduling): with three GPUs none of the four binds, never a part; a fourth GPU
    (and a touch of the group, which is what requeues members rejected at Permit) lets all
    four in, each with its own device."""
    cls = f"cosched-{DRIVER}"
    body = {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": cls}}
    api.request("POST", f"/apis/{RESOURCE}/deviceclasses", body=body | {"spec": {}})
    nodes = _gpu_nodes(api, "cosched", (2, 1))
    try:
        kubesched(cosched_config(tmp_path, namespace, local_cluster.kubeconfig_path), *ELECTION)
        cosched_group(api, namespace, "train", 4)
        members = []
        for i in range(4):
            name = f"train-{i}"
            claim = {
                "apiVersion": RESOURCE,
                "kind": "ResourceClaim",
                "metadata": {"name": f"{name}-gpu"},
                "spec": {
                    "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": cls}}]}
                },
            }
            api.request(
                "POST", f"/apis/{RESOURCE}/namespaces/{namespace}/resourceclaims", body=claim
            )
            builder = make_pod().name(name).scheduler(COSCHED).label(POD_GROUP_LABEL, "train")
            obj = builder.node_selector(**{NODE_LABEL: "cosched"}).obj()
            obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}]
            api.create(obj, namespace=namespace)
            members.append(name)
        for pod in members:
            wait_for(
                lambda pod=pod: unschedulable_message(api.get("Pod", pod, namespace=namespace)),
                timeout=30,
                message=f"{pod} says why",
            )
        never_partial(api, namespace, "train", 4, seconds=2)
        small = nodes[1]
        path = f"/apis/{RESOURCE}/resourceslices/{small}-gpus"
        current = api.request("GET", path)
        updated = _slice(small, 2, 2)
        updated["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        api.request("PUT", path, body=updated)
        api.request(
            "PATCH",
            COSCHED_PG_PATH.format(ns=namespace) + "/train",
            body={"metadata": {"annotations": {"example.com/gpus": "added"}}},
            content_type="application/merge-patch+json",
        )
        wait_for(
            lambda: cosched_bound(api, namespace, "train"),
            until=lambda n: n == 4,
            timeout=40,
            message="all 4 bound",
        )
        devices = _devices(api, namespace)
        assert len(set(devices)) == 4, devices
    finally:
        for node in nodes:
            api.request("DELETE", f"/apis/{RESOURCE}/resourceslices/{node}-gpus")
        api.request("DELETE", f"/apis/{RESOURCE}/deviceclasses/{cls}")
