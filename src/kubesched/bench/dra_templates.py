"""The DRA object templates of kube-scheduler's scheduler_perf
(kubernetes/kubernetes `test/integration/scheduler_perf/dra/templates/`, v1.37), as
builders: the node of the test driver, its per-node ResourceSlice of basic devices, the
DeviceClass, ResourceClaims, the ResourceClaimTemplate and the pods that use them.

As in `templates`, pods get fixed names instead of `generateName` and the benchmark's
scheduler name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.bench.templates import node_default

API = "resource.k8s.io/v1"
DRIVER = "test-driver.cdi.k8s.io"
CLASS = "test-class"
TEMPLATE = "test-claim-template"
SELECTOR = (
    f'device.attributes["{DRIVER}"].driverVersion.major() >= 1 && '
    f'device.capacity["{DRIVER}"].memory.isGreaterThan(quantity("1Mi"))'
)
"""The CEL selector of the `selector_*` variants (every device matches)."""
PCI_ROOT = "resource.kubernetes.io/pciRoot"
_PAUSE = "registry.k8s.io/pause:3.10.1"


def dra_node_name(index: int) -> str:
    return f"scheduler-perf-dra-{index}"


def node_with_dra_test_driver(index: int) -> dict[str, Any]:
    """`node-with-dra-test-driver.yaml`: `node-default.yaml` with the `node-with-dra` label
    (+ the hostname label of upstream's node preparer)."""
    return node_default(dra_node_name(index), {"node-with-dra": "true"})


def _device(index: int, pci_roots: int) -> dict[str, Any]:
    root = index % pci_roots
    attributes = {
        "driver": {"string": "xe"},
        "driverVersion": {"version": "1.2.3"},
        "resource.k8s.io/pciRoot": {"string": str(root)},
        "family": {"string": "Arc Pro B-Series"},
        "health": {"string": "Healthy"},
        "model": {"string": "B60"},
        "pciAddress": {"string": f"0000:0{index}:00.0"},
        "pciId": {"string": "0xe211"},
        "pciRoot": {"string": f"0{root}"},
        "resource.kubernetes.io/pciBusID": {"string": f"0000:0{index}:00.0"},
        PCI_ROOT: {"string": f"pci0000:0{root}"},
        "sriov": {"bool": True},
        "type": {"string": "gpu"},
    }
    capacity = {"memory": {"value": "24480Mi"}, "millicores": {"value": "1k"}}
    return {"name": f"basic-device-{index}", "attributes": attributes, "capacity": capacity}


def resourceslice_basic_devices(
    index: int, *, devices: int = 10, pci_roots: int = 2
) -> dict[str, Any]:
    """`resourceslice-basic-devices.yaml`: one pool of `devices` GPUs on node `index`."""
    name = f"resourceslice-{index}"
    return {
        "apiVersion": API,
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "driver": DRIVER,
            "nodeName": dra_node_name(index),
            "devices": [_device(i, pci_roots) for i in range(devices)],
        },
    }


def deviceclass() -> dict[str, Any]:
    """`deviceclass.yaml`: every device of the test driver."""
    return {
        "apiVersion": API,
        "kind": "DeviceClass",
        "metadata": {"name": CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def resourceclaim(index: int, namespace: str) -> dict[str, Any]:
    """`resourceclaim.yaml`: `test-claim-<index>`, one device of the class."""
    return {
        "apiVersion": API,
        "kind": "ResourceClaim",
        "metadata": {"name": f"test-claim-{index}", "namespace": namespace},
        "spec": {
            "devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": CLASS}}]}
        },
    }


def resourceclaimtemplate(
    namespace: str,
    *,
    requests: int = 1,
    selectors: Sequence[str] = (),
    match_attribute: str = "",
) -> dict[str, Any]:
    """`resourceclaimtemplate.yaml` with its `numRequests`, `selectors` (CEL) and a
    `matchAttribute` constraint."""
    exactly: dict[str, Any] = {"deviceClassName": CLASS}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    devices: dict[str, Any] = {
        "requests": [{"name": f"req-{i}", "exactly": dict(exactly)} for i in range(requests)]
    }
    if match_attribute:
        devices["constraints"] = [{"matchAttribute": match_attribute}]
    return {
        "apiVersion": API,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": TEMPLATE, "namespace": namespace},
        "spec": {"spec": {"devices": devices}},
    }


def _pod(
    name: str, namespace: str, scheduler: str, image: str, claim: dict[str, Any]
) -> dict[str, Any]:
    container = {"image": image, "name": "pause", "resources": {"claims": [{"name": "resource"}]}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "schedulerName": scheduler,
            "containers": [container],
            "resourceClaims": [{"name": "resource", **claim}],
        },
    }


def pod_with_claim_template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-claim-template.yaml`: one claim made from `test-claim-template`."""
    return _pod(name, namespace, scheduler, _PAUSE, {"resourceClaimTemplateName": TEMPLATE})


def pod_with_claim_ref(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-claim-ref.yaml`: five pods share `test-claim-<index // 5>` (the index is
    the number at the end of the pod's name)."""
    index = int(name.rsplit("-", 1)[-1])
    claim = {"resourceClaimName": f"test-claim-{index // 5}"}
    return _pod(name, namespace, scheduler, "registry.k8s.io/pause:3.9", claim)
