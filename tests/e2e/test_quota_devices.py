"""ElasticQuotas count DRA devices under ResourceQuota's names, against the real API
server (kubesched's own: scheduler-plugins' CapacityScheduling counts no device).

A quota of at most 2 devices of class `<class>` (`<class>.deviceclass.resource.k8s.io/devices`)
and three pods, each with its own ResourceClaim for one device, on a node whose driver
publishes four: two bind, each on its own device, the third is refused at PreFilter with
scheduler-plugins' "more than Max" text although a device is free; once a bound pod is
deleted, the third binds."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, unschedulable_message, wait_for
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched
from tests.e2e.harness.pod_group_crd import kubesched_pod_group_crd_in_place
from tests.e2e.harness.scheduler_plugins import install_scheduler_plugins_crds

USES_SCHEDULER_PLUGINS = True  # its ElasticQuota CRD
RESOURCE = "resource.k8s.io/v1"
SCHEDULER = "quota-devices-scheduler"
PLUGINS = {
    "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
    "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]},
}


@pytest.fixture
def scheduler(
    local_cluster: LocalCluster, api: ApiClient, tmp_path: Path
) -> Iterator[KubeschedProcess]:
    install_scheduler_plugins_crds(api)
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(local_cluster.kubeconfig_path)},
        "leaderElection": {"leaderElect": False},
        "profiles": [{"schedulerName": SCHEDULER, "plugins": PLUGINS}],
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    proc = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--config={path}",
        workdir=tmp_path,
        name="kubesched-quota-devices",
        token=local_cluster.admin_token,
    )
    try:
        proc.wait_ready()
        yield proc
    finally:
        proc.stop()
        kubesched_pod_group_crd_in_place(api)  # later modules read kubesched's PodGroup CRD


def _claim(name: str, device_class: str) -> dict[str, Any]:
    request = {"name": "gpu", "exactly": {"deviceClassName": device_class}}
    return {
        "apiVersion": RESOURCE,
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": {"devices": {"requests": [request]}},
    }


def _pod(api: ApiClient, namespace: str, name: str, device_class: str, node: str) -> None:
    path = f"/apis/{RESOURCE}/namespaces/{namespace}/resourceclaims"
    api.request("POST", path, body=_claim(f"{name}-gpu", device_class))
    pod = make_pod().name(name).scheduler(SCHEDULER).req(cpu="100m")
    obj = pod.node_selector(**{"kubernetes.io/hostname": node}).obj()
    obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}]
    api.create(obj, namespace=namespace)


def _device(api: ApiClient, namespace: str, claim: str) -> str:
    """The device allocated to a claim."""
    path = f"/apis/{RESOURCE}/namespaces/{namespace}/resourceclaims/{claim}"
    results = api.request("GET", path)["status"]["allocation"]["devices"]["results"]
    return str(results[0]["device"])


def test_a_quota_of_two_devices_admits_two_pods_then_a_third_after_a_delete(
    scheduler: KubeschedProcess, api: ApiClient, namespace: str
) -> None:
    del scheduler
    suffix = secrets.token_hex(3)
    device_class, node = f"gpu-{suffix}.example.com", f"quota-devices-{suffix}"
    api.request(
        "POST",
        f"/apis/{RESOURCE}/deviceclasses",
        body={"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": device_class}}
        | {"spec": {"selectors": [{"cel": {"expression": f'device.driver == "{device_class}"'}}]}},
    )
    labelled = make_node().name(node).label("kubernetes.io/hostname", node)
    api.create(labelled.capacity(cpu="8", pods="20").obj())
    resource_slice = {
        "apiVersion": RESOURCE,
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpus"},
        "spec": {
            "driver": device_class,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{i}"} for i in range(4)],
        },
    }
    api.request("POST", f"/apis/{RESOURCE}/resourceslices", body=resource_slice)
    devices = f"{device_class}.deviceclass.resource.k8s.io/devices"
    limits = {"cpu": "4", devices: "2"}
    quota = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "ElasticQuota",
        "metadata": {"name": "team"},
        "spec": {"min": limits, "max": limits},
    }
    eq_path = f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{namespace}/elasticquotas"
    api.request("POST", eq_path, body=quota)
    try:
        for name in ("a", "b"):
            _pod(api, namespace, name, device_class, node)
            wait_for(lambda n=name: api.get("Pod", n, namespace=namespace), until=is_bound)
        _pod(api, namespace, "c", device_class, node)
        refused = wait_for(
            lambda: unschedulable_message(api.get("Pod", "c", namespace=namespace)),
            until=bool,
            message="the third pod refused",
        )
        text = (
            f"Pod {namespace}/c is rejected in PreFilter because "
            f"ElasticQuota {namespace} is more than Max."
        )
        assert re.match(rf"0/\d+ nodes are available: {re.escape(text)}", refused), refused
        assert len({_device(api, namespace, f"{name}-gpu") for name in ("a", "b")}) == 2
        api.delete("Pod", "a", namespace=namespace, grace_period=0)
        bound = wait_for(
            lambda: api.get("Pod", "c", namespace=namespace),
            until=is_bound,
            timeout=60,
            message="the third pod bound once the first is gone",
        )
        assert bound["spec"]["nodeName"] == node
    finally:
        api.request("DELETE", eq_path + "/team")
        api.request("DELETE", f"/apis/{RESOURCE}/resourceslices/{node}-gpus")
        api.request("DELETE", f"/apis/{RESOURCE}/deviceclasses/{device_class}")
