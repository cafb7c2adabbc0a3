"""The templates of scheduler_perf's DRA subfolders (kubernetes/kubernetes
`test/integration/scheduler_perf/dra/templates/`, v1.37) that `dra_templates` does not
have: the `firstAvailable` and toleration claim templates, the DeviceTaintRule, the
extended-resource DeviceClasses and pods, the partitionable and consumable-capacity slices,
claims and templates, and the PodGroups and member pods of `workloadresourceclaims`.

As in `dra_templates`, pods get fixed names instead of `generateName` and the benchmark's
scheduler name; DeviceClasses are written as `resource.k8s.io/v1` (upstream writes two of
them as `v1beta2`, the same object).
"""

from __future__ import annotations

from typing import Any

from kubesched.bench.dra_templates import API, CLASS, DRIVER, TEMPLATE, dra_node_name
from kubesched.bench.templates import PodTemplate
from kubesched.bench.templates_podgroups import PODGROUP_API

NO_DEVICES_CLASS = "no-devices-class"
TAINT_KEY = "example.com/taint"
INDEX_ATTRIBUTE = "dra.example.com/index"
_PAUSE = "registry.k8s.io/pause:3.10.1"


def _object(kind: str, name: str, spec: dict[str, Any], namespace: str = "") -> dict[str, Any]:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec}


def _template(namespace: str, devices: dict[str, Any]) -> dict[str, Any]:
    return _object("ResourceClaimTemplate", TEMPLATE, {"spec": {"devices": devices}}, namespace)


def _exactly(count: int = 1, **more: Any) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": CLASS, **more}
    if count != 1:
        exactly["count"] = count
    return exactly


def deviceclass_no_devices() -> dict[str, Any]:
    """`deviceclass-no-devices.yaml`: a class no device matches."""
    cel = {"cel": {"expression": 'device.driver == "no-such-driver.cdi.k8s.io"'}}
    return _object("DeviceClass", NO_DEVICES_CLASS, {"selectors": [cel]})


def resourceclaimtemplate_first_available(namespace: str) -> dict[str, Any]:
    """`resourceclaimtemplate-first-available.yaml`: subrequest sub-0 (the class without
    devices) first, then sub-1 (test-class)."""
    subrequests = [
        {"name": "sub-0", "deviceClassName": NO_DEVICES_CLASS},
        {"name": "sub-1", "deviceClassName": CLASS},
    ]
    return _template(namespace, {"requests": [{"name": "req-0", "firstAvailable": subrequests}]})


def devicetaintrule() -> dict[str, Any]:
    """`devicetaintrule.yaml`: a NoSchedule taint on every device (no selector)."""
    taint = {"key": TAINT_KEY, "value": "tainted", "effect": "NoSchedule"}
    return _object("DeviceTaintRule", "taint-all-devices", {"taint": taint})


def resourceclaimtemplate_toleration(namespace: str) -> dict[str, Any]:
    """`resourceclaimtemplate-toleration.yaml`: one device that tolerates the taint."""
    tolerations = [{"key": TAINT_KEY, "operator": "Exists"}]
    request = {"name": "req-0", "exactly": _exactly(tolerations=tolerations)}
    return _template(namespace, {"requests": [request]})


def resourceclaimtemplate_count(namespace: str, count: int) -> dict[str, Any]:
    """`resourceclaimtemplate-for-two-devices.yaml` (2), `-backtracking.yaml` (7)."""
    return _template(namespace, {"requests": [{"name": "req-0", "exactly": _exactly(count)}]})


def resourceclaim_count(index: int, namespace: str, count: int) -> dict[str, Any]:
    """`resourceclaim-partitionable.yaml` (2), `-partitionable-backtracking.yaml` (7)."""
    devices = {"requests": [{"name": "req-0", "exactly": _exactly(count)}]}
    return _object("ResourceClaim", f"test-claim-{index}", {"devices": devices}, namespace)


def deviceclass_extended_resource(index: int, *, explicit: bool) -> dict[str, Any]:
    """`deviceclass-extended-resource.yaml`: `test-class-<index>`, every device of the
    driver, with `extendedResourceName: example.com/gpu-<index>` when `explicit`."""
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}
    if explicit:
        spec["extendedResourceName"] = f"example.com/gpu-{index}"
    return _object("DeviceClass", f"test-class-{index}", spec)


def deviceclass_extended_resource_scoring(index: int) -> dict[str, Any]:
    """`deviceclass-extended-resource-scoring.yaml`: `scoring-test-class-<index>`, every
    device of the driver, all classes providing the same `example.com/gpu`."""
    spec = {
        "selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}],
        "extendedResourceName": "example.com/gpu",
    }
    return _object("DeviceClass", f"scoring-test-class-{index}", spec)


def pod_with_extended_resource_scoring(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """`pod-with-extended-resource-scoring.yaml`: one `example.com/gpu`."""
    return _pod_with_resources(name, namespace, scheduler, {"example.com/gpu": "1"})


def _pod_with_resources(
    name: str, namespace: str, scheduler: str, amount: dict[str, str]
) -> dict[str, Any]:
    container = {
        "image": "registry.k8s.io/pause:3.9",
        "name": "pause",
        "resources": {"requests": amount, "limits": dict(amount)},
    }
    spec = {"schedulerName": scheduler, "containers": [container]}
    metadata = {"name": name, "namespace": namespace}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def pod_with_extended_resource(resource: str, classes: int) -> PodTemplate:
    """`pod-with-extended-resource.yaml`: pod i requests one `<resource>-<i % classes>`."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        index = int(name.rsplit("-", 1)[-1])
        amount = {f"{resource}-{index % classes}": "1"}
        return _pod_with_resources(name, namespace, scheduler, amount)

    return template


def _slice(name: str, pool: str, count: int, **spec: Any) -> dict[str, Any]:
    pool_spec = {"name": pool, "generation": 1, "resourceSliceCount": count}
    return _object("ResourceSlice", name, {"pool": pool_spec, "driver": DRIVER, **spec})


def _consumes(*sets: tuple[str, dict[str, str]]) -> list[dict[str, Any]]:
    return [
        {"counterSet": name, "counters": {c: {"value": v} for c, v in counters.items()}}
        for name, counters in sets
    ]


def resourceslices_partitionable(index: int) -> list[dict[str, Any]]:
    """`resourceslice-partitionable-countersets.yaml` (counter1..4 of 1 each) and
    `-devices.yaml` (device-1 takes counter1+2, device-2 counter3+4): one pool, two
    slices, on node `index`."""
    pool, node = f"resourceslice-{index}", dra_node_name(index)
    counters = {f"counter{i}": {"value": "1"} for i in range(1, 5)}
    devices = [
        {
            "name": f"device-{d}",
            "consumesCounters": _consumes(
                ("counter-set", {f"counter{2 * d - 1}": "1", f"counter{2 * d}": "1"})
            ),
        }
        for d in (1, 2)
    ]
    shared = [{"name": "counter-set", "counters": counters}]
    return [
        _slice(f"resourceslice-countersets-{index}", pool, 2, nodeName=node, sharedCounters=shared),
        _slice(f"resourceslice-devices-{index}", pool, 2, nodeName=node, devices=devices),
    ]


def resourceslices_backtracking(index: int) -> list[dict[str, Any]]:
    """`resourceslice-partitionable-backtracking-{countersets,devices}.yaml`: cpu1..8 of 1
    and mem of 70Gi; device-1 takes cpu1 and 20Gi, device-d (2..8) cpu<d> and 10Gi."""
    pool, node = f"resourceslice-{index}", dra_node_name(index)
    shared = [
        {
            "name": "counter-set-for-cpu",
            "counters": {f"cpu{i}": {"value": "1"} for i in range(1, 9)},
        },
        {"name": "counter-set-for-mem", "counters": {"mem": {"value": "70Gi"}}},
    ]
    devices = [
        {
            "name": f"device-{d}",
            "consumesCounters": _consumes(
                ("counter-set-for-cpu", {f"cpu{d}": "1"}),
                ("counter-set-for-mem", {"mem": "20Gi" if d == 1 else "10Gi"}),
            ),
        }
        for d in range(1, 9)
    ]
    return [
        _slice(f"resourceslice-countersets-{index}", pool, 2, nodeName=node, sharedCounters=shared),
        _slice(f"resourceslice-devices-{index}", pool, 2, nodeName=node, devices=devices),
    ]


def resourceslice_consumablecapacity(index: int) -> dict[str, Any]:
    """`resourceslice-consumablecapacity.yaml`: four shareable devices of 10G bandwidth
    (device 2: 10Gi, as upstream writes it), request policy 1M default, min 1M, step 8."""
    policy = {"default": "1M", "validRange": {"min": "1M", "step": "8"}}
    devices = [
        {
            "name": f"shareable-device-{d}",
            "allowMultipleAllocations": True,
            "attributes": {INDEX_ATTRIBUTE: {"int": d}},
            "capacity": {
                "bandwidth": {"requestPolicy": policy, "value": "10Gi" if d == 2 else "10G"}
            },
        }
        for d in range(4)
    ]
    name = f"resourceslice-{index}"
    return _slice(name, name, 1, nodeName=dra_node_name(index), devices=devices)


def deviceclass_consumablecapacity() -> dict[str, Any]:
    """`deviceclass-consumablecapacity.yaml`: the driver's shareable devices."""
    expression = f'device.driver == "{DRIVER}" &&\ndevice.allowMultipleAllocations == true'
    return _object("DeviceClass", CLASS, {"selectors": [{"cel": {"expression": expression}}]})


def resourceclaimtemplate_consumablecapacity(namespace: str) -> dict[str, Any]:
    """`resourceclaimtemplate-consumablecapacity.yaml`: two devices of 2500M bandwidth
    each, with distinct `dra.example.com/index`."""
    capacity = {"requests": {"bandwidth": "2500M"}}
    request = {"name": "req-0", "exactly": _exactly(2, capacity=capacity)}
    constraint = {"requests": ["req-0"], "distinctAttribute": INDEX_ATTRIBUTE}
    return _template(namespace, {"requests": [request], "constraints": [constraint]})


def resourceslice_podgroup(index: int) -> dict[str, Any]:
    """`resourceslice-podgroup.yaml`: one device `device`, on every node labelled
    `node-with-dra`."""
    term = {"matchExpressions": [{"key": "node-with-dra", "operator": "In", "values": ["true"]}]}
    return _slice(
        f"resourceslice-podgroup-{index}",
        f"resourceslice-{index}",
        1,
        nodeSelector={"nodeSelectorTerms": [term]},
        devices=[{"name": "device"}],
    )


def podgroup_with_claim(index: int, namespace: str, *, template: bool) -> dict[str, Any]:
    """`podgroup-with-claim-{ref,template}.yaml`: PodGroup `test-dra-<index>` (basic policy)
    declaring claim `resource`: `test-claim-<index>`, or one from the claim template."""
    claim = (
        {"resourceClaimTemplateName": TEMPLATE}
        if template
        else {"resourceClaimName": f"test-claim-{index}"}
    )
    return {
        "apiVersion": PODGROUP_API,
        "kind": "PodGroup",
        "metadata": {"name": f"test-dra-{index}", "namespace": namespace},
        "spec": {
            "resourceClaims": [{"name": "resource", **claim}],
            "schedulingPolicy": {"basic": {}},
        },
    }


def pod_in_podgroup(groups: int, *, template: bool) -> PodTemplate:
    """`pod-in-podgroup-with-claim-{ref,template}.yaml`: pod i joins PodGroup
    `test-dra-<i % groups>` and uses its claim `resource` (`test-claim-<i % groups>`, or
    the claim template, which the PodGroup's claim is made from)."""

    def build(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        group = int(name.rsplit("-", 1)[-1]) % groups
        claim = (
            {"resourceClaimTemplateName": TEMPLATE}
            if template
            else {"resourceClaimName": f"test-claim-{group}"}
        )
        container = {
            "image": _PAUSE,
            "name": "pause",
            "resources": {"claims": [{"name": "resource"}]},
        }
        spec = {
            "schedulerName": scheduler,
            "containers": [container],
            "resourceClaims": [{"name": "resource", **claim}],
            "schedulingGroup": {"podGroupName": f"test-dra-{group}"},
        }
        metadata = {"name": name, "namespace": namespace}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}

    return build
