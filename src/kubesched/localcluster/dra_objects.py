"""The objects of the example DRA driver of the local cluster, as pure functions (raw JSON).

`resource.k8s.io/v1` (GA in v1.37; served by kube-apiserver by default, with the beta
fields this driver uses — partitionable devices, consumable capacity, binding conditions,
device taints — on by default too):

    device_class("gpu.example.com")                    every device of the driver
    node_slices("node-a", NodeGpus(gpus=4, numa=2))    the ResourceSlices of one node's pool
    claim_template("ns", "one-gpu")                    a ResourceClaimTemplate for one device
    device_taint_rule("broken", pool="node-a", device="gpu-0")
    device_statuses(claim, driver=DRIVER)              what the driver writes once prepared

One pool per node, named after the node; its devices (see `NodeGpus`):

    gpu-<i>            a whole GPU: attributes type ("gpu"), model, numa, index, uuid,
                       driverVersion; capacity memory
    pgpu-<i>           a partitionable GPU, whole (consumes its counter set `pgpu-<i>`);
                       type "partition"
    pgpu-<i>-half-<j>  half of it (j = 0, 1: each consumes half of the counter memory);
                       type "partition"
    sgpu-<i>           a GPU shared by several claims (allowMultipleAllocations; capacity
                       memory consumed per claim: 10Gi by default, in steps of 1Gi); type
                       "shared"
    fgpu-<i>           a fabric-attached GPU: bindsToNode, binding condition
                       `gpu.example.com/attached` (failure: `gpu.example.com/attach-failed`);
                       type "fabric"

Select a kind with CEL, e.g. `device.attributes["gpu.example.com"].type == "gpu"`; the whole
GPUs come first in the slice.

Partitionable devices need a second slice: in `resource.k8s.io/v1` one ResourceSlice holds
either devices or shared counters, never both, so the pool then has two slices.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

API_VERSION = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"
"""The example driver's name (also the domain of its attributes and capacities)."""
ATTACHED = f"{DRIVER}/attached"
"""The binding condition of the fabric-attached GPUs (`fgpu-<i>`)."""
ATTACH_FAILED = f"{DRIVER}/attach-failed"
"""Their binding failure condition."""
READY = "Ready"
"""The device condition the driver sets once a claim's device is prepared."""
SHARED_DEFAULT = "10Gi"
"""Memory a claim consumes of a shared GPU (`sgpu-<i>`) when it asks for no amount."""


@dataclass(frozen=True)
class NodeGpus:
    """What one node offers (counts of each kind of device; see the module docstring)."""

    gpus: int = 4
    """Whole GPUs `gpu-<i>`."""
    numa: int = 2
    """NUMA nodes the whole GPUs are spread over, in contiguous blocks (4 GPUs on 2 NUMA
    nodes: gpu-0 and gpu-1 on numa 0, gpu-2 and gpu-3 on numa 1)."""
    model: str = "A100"
    """The `model` attribute of every GPU of the node."""
    memory: str = "80Gi"
    """The `memory` capacity of a whole GPU (and of a partitionable or shared one)."""
    driver_version: str = "1.0.0"
    """The `driverVersion` attribute (a semantic version)."""
    partitionable: int = 0
    """Partitionable GPUs `pgpu-<i>` (whole, or two halves)."""
    shared: int = 0
    """GPUs `sgpu-<i>` whose memory several claims consume."""
    fabric: int = 0
    """Fabric-attached GPUs `fgpu-<i>` with a binding condition."""
    taints: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    """Device name -> driver-set taints (`{"key": ..., "value": ..., "effect": ...}`)."""
    extra_devices: Sequence[Mapping[str, Any]] = ()
    """Devices of your own, published as written after the others."""


def device_class(
    name: str = DRIVER,
    *,
    driver: str = DRIVER,
    selectors: Iterable[str] = (),
    extended_resource_name: str | None = None,
) -> dict[str, Any]:
    """A DeviceClass selecting the devices of `driver` (and the CEL `selectors`); with
    `extended_resource_name`, pods asking for that extended resource get its devices."""
    expressions = [f'device.driver == "{driver}"', *selectors]
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": e}} for e in expressions]}
    if extended_resource_name:
        spec["extendedResourceName"] = extended_resource_name
    return {
        "apiVersion": API_VERSION,
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": spec,
    }


def node_slices(
    node: str, gpus: NodeGpus, *, driver: str = DRIVER, generation: int = 1
) -> list[dict[str, Any]]:
    """The ResourceSlices of `node`'s pool (named after the node): one for the devices, and
    one for the shared counters when the node has partitionable GPUs."""
    counters = _counter_sets(gpus)
    pool = {"name": node, "generation": generation, "resourceSliceCount": 2 if counters else 1}
    slices = [_slice(f"{node}-{driver}", node, driver, pool, {"devices": _devices(node, gpus)})]
    if counters:
        name = f"{node}-{driver}-counters"
        slices.append(_slice(name, node, driver, pool, {"sharedCounters": counters}))
    return slices


def _slice(
    name: str, node: str, driver: str, pool: dict[str, Any], content: dict[str, Any]
) -> dict[str, Any]:
    spec = {"driver": driver, "nodeName": node, "pool": dict(pool), **content}
    return {
        "apiVersion": API_VERSION,
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": spec,
    }


def _devices(node: str, gpus: NodeGpus) -> list[dict[str, Any]]:
    devices = [
        _gpu(node, gpus, f"gpu-{i}", i, numa=i * gpus.numa // gpus.gpus) for i in range(gpus.gpus)
    ]
    for i in range(gpus.partitionable):
        devices.extend(_partitions(node, gpus, i))
    for i in range(gpus.shared):
        device = _gpu(node, gpus, f"sgpu-{i}", i, numa=0, kind="shared")
        device["allowMultipleAllocations"] = True
        device["capacity"]["memory"]["requestPolicy"] = {
            "default": SHARED_DEFAULT,
            "validRange": {"min": "1Gi", "step": "1Gi"},
        }
        devices.append(device)
    for i in range(gpus.fabric):
        device = _gpu(node, gpus, f"fgpu-{i}", i, numa=0, kind="fabric")
        device.update(
            bindsToNode=True, bindingConditions=[ATTACHED], bindingFailureConditions=[ATTACH_FAILED]
        )
        devices.append(device)
    for device in devices:
        if taints := gpus.taints.get(device["name"]):
            device["taints"] = [dict(t) for t in taints]
    return [*devices, *(dict(d) for d in gpus.extra_devices)]


def _gpu(
    node: str, gpus: NodeGpus, name: str, index: int, *, numa: int, kind: str = "gpu"
) -> dict[str, Any]:
    uuid = hashlib.sha256(f"{node}/{name}".encode()).hexdigest()[:32]
    return {
        "name": name,
        "attributes": {
            "type": {"string": kind},
            "model": {"string": gpus.model},
            "numa": {"int": numa},
            "index": {"int": index},
            "uuid": {"string": f"GPU-{uuid}"},
            "driverVersion": {"version": gpus.driver_version},
        },
        "capacity": {"memory": {"value": gpus.memory}},
    }


def _partitions(node: str, gpus: NodeGpus, i: int) -> list[dict[str, Any]]:
    whole = _gpu(node, gpus, f"pgpu-{i}", i, numa=0, kind="partition")
    whole["consumesCounters"] = [
        {"counterSet": f"pgpu-{i}", "counters": {"memory": {"value": gpus.memory}}}
    ]
    halves = []
    half = _half(gpus.memory)
    for j in range(2):
        device = _gpu(node, gpus, f"pgpu-{i}-half-{j}", i, numa=0, kind="partition")
        device["capacity"]["memory"]["value"] = half
        device["consumesCounters"] = [
            {"counterSet": f"pgpu-{i}", "counters": {"memory": {"value": half}}}
        ]
        halves.append(device)
    return [whole, *halves]


def _half(memory: str) -> str:
    """Half of a memory quantity written as `<int>Gi` or `<int>Mi` (what NodeGpus takes)."""
    for suffix, smaller in (("Gi", "Mi"), ("Mi", "Ki")):
        if memory.endswith(suffix) and memory[: -len(suffix)].isdigit():
            value = int(memory[: -len(suffix)])
            return f"{value // 2}{suffix}" if value % 2 == 0 else f"{value * 512}{smaller}"
    raise ValueError(f"memory {memory!r}: write it as <integer>Gi or <integer>Mi")


def _counter_sets(gpus: NodeGpus) -> list[dict[str, Any]]:
    return [
        {"name": f"pgpu-{i}", "counters": {"memory": {"value": gpus.memory}}}
        for i in range(gpus.partitionable)
    ]


def claim_template(
    namespace: str,
    name: str,
    *,
    device_class_name: str = DRIVER,
    count: int = 1,
    selectors: Iterable[str] = (),
    request: str = "gpu",
) -> dict[str, Any]:
    """A ResourceClaimTemplate with one request `request` for `count` devices of the class
    (and the CEL `selectors`)."""
    exactly: dict[str, Any] = {"deviceClassName": device_class_name, "count": count}
    if chosen := [{"cel": {"expression": e}} for e in selectors]:
        exactly["selectors"] = chosen
    spec = {"devices": {"requests": [{"name": request, "exactly": exactly}]}}
    return {
        "apiVersion": API_VERSION,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"spec": spec},
    }


def device_taint_rule(
    name: str,
    *,
    driver: str = DRIVER,
    pool: str | None = None,
    device: str | None = None,
    key: str = f"{DRIVER}/unhealthy",
    value: str = "",
    effect: str = "NoSchedule",
) -> dict[str, Any]:
    """A DeviceTaintRule tainting the devices of `driver` (in `pool`, named `device`)."""
    selector = {"driver": driver}
    selector.update({k: v for k, v in (("pool", pool), ("device", device)) if v is not None})
    taint = {"key": key, "effect": effect, **({"value": value} if value else {})}
    return {
        "apiVersion": API_VERSION,
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {"deviceSelector": selector, "taint": taint},
    }


def device_statuses(
    claim: Mapping[str, Any], *, driver: str = DRIVER, binding: str = "attach", now: str
) -> list[dict[str, Any]] | None:
    """The claim's `status.devices` once `driver` prepared its allocated devices (each
    `Ready`; binding conditions True when `binding` is "attach", the failure condition
    True when "fail", left alone when "wait"), the other drivers' entries kept; None when
    there is nothing to write (not allocated, no device of `driver`, already written)."""
    status = claim.get("status") or {}
    results = [
        r
        for r in ((status.get("allocation") or {}).get("devices") or {}).get("results") or []
        if r.get("driver") == driver
    ]
    if not results:
        return None
    current = list(status.get("devices") or [])
    ours = [_device_status(r, binding=binding, now=now) for r in results]
    others = [d for d in current if d.get("driver") != driver]
    if _same(current, ours, driver):
        return None
    return [*others, *ours]


def _device_status(result: Mapping[str, Any], *, binding: str, now: str) -> dict[str, Any]:
    conditions = [_condition(READY, "Prepared", "prepared by the example driver", now)]
    if binding == "attach":
        conditions += [
            _condition(c, "Attached", "attached by the example driver", now)
            for c in result.get("bindingConditions") or []
        ]
    elif binding == "fail":
        conditions += [
            _condition(c, "AttachFailed", "the example driver failed to attach it", now)
            for c in result.get("bindingFailureConditions") or []
        ]
    entry: dict[str, Any] = {
        "driver": result["driver"],
        "pool": result["pool"],
        "device": result["device"],
        "conditions": conditions,
    }
    if share := result.get("shareID"):
        entry["shareID"] = share
    return entry


def _condition(kind: str, reason: str, message: str, now: str) -> dict[str, Any]:
    return {
        "type": kind,
        "status": "True",
        "reason": reason,
        "message": message,
        "lastTransitionTime": now,
    }


def _same(current: list[dict[str, Any]], ours: list[dict[str, Any]], driver: str) -> bool:
    """True when `current` already holds an entry with the same conditions for each of ours."""

    def key(entry: Mapping[str, Any]) -> tuple[Any, ...]:
        kinds = sorted((c.get("type"), c.get("status")) for c in entry.get("conditions") or [])
        return (entry.get("pool"), entry.get("device"), entry.get("shareID"), tuple(kinds))

    mine = [d for d in current if d.get("driver") == driver]
    return sorted(map(key, mine)) == sorted(map(key, ours))
