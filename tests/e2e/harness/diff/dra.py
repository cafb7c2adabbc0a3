"""Dynamic resource allocation in a random scenario: ResourceSlices published for some nodes
as DRA drivers would, DeviceClasses with CEL selectors, and ResourceClaims for some incoming
pods (see `scenario`).

    world = dra_world(seed, nodes, may_back_extended=True)  # classes, slices (`world.objects`)
    claims = claims_for(world, pod)       # the pod's claims (`spec.resourceClaims` set)

Both drivers publish one pool per node. `gpu.example.com`: whole GPUs `gpu-<i>` (attributes
type, model, numa, index, driverVersion and the qualified `resource.kubernetes.io/pcieRoot`;
capacity memory), sometimes one tainted, sometimes a partitionable GPU (`pgpu-0`, whole or
two halves, consuming the counter set of the pool's second slice: in resource.k8s.io/v1 one
ResourceSlice holds devices or shared counters, never both) and sometimes a GPU several
claims share (`sgpu-0`: allowMultipleAllocations, memory consumed per claim by its
requestPolicy). `nic.example.com` (some seeds): two NICs with the same pcieRoot attribute.
In half of the seeds whose profile allows it the GPU class backs `example.com/gpu`
(DRAExtendedResource), so pods requesting it may get GPUs on nodes whose allocatable lacks
it. Never with the `affinity` profile: kube-scheduler v1.37.2 exits (nil CEL cache in
NodeResourcesBalancedAllocation's Score) when that plugin's scored resources name an extended
resource a DeviceClass with CEL selectors backs. Nor does a pod that requests the GPU resource
get claims of its own in those seeds: kube-scheduler v1.37.2 fails PreBind for such a pod on a
node that offers the resource in its allocatable ("nil or empty request mappings, no update
of pod ... ExtendedResourceClaimStatus": its Filter keeps an extended-resource claim without
requests whenever the pod has a claim of its own), and retries it without end; kubesched binds it.

Every CEL expression comes from `SELECTORS`, which also holds the same test in Python: the
allocation checks (`harness.diff.devices`) judge an allocation with them, independently of
either scheduler. Names are seed-unique (classes, slices, pools), so a seed never sees
another's objects. Generation draws from its own random stream (`dra_world`), so the rest
of each seed's scenario is the one it was before DRA content was added.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.harness.diff.profiles import GPU

RESOURCE = "resource.k8s.io/v1"
GPU_DRIVER = "gpu.example.com"
NIC_DRIVER = "nic.example.com"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
NUMA = f"{GPU_DRIVER}/numa"
TAINT_KEY = "parity.example.com/broken"
SHARED_DEFAULT = "10Gi"
GI = 1024**3

Device = Mapping[str, Any]
Test = Callable[[str, Device], bool]
"""(driver, device JSON of a ResourceSlice) -> whether a CEL expression is true for it."""


def attribute(driver: str, device: Device, name: str) -> Any:
    """A device attribute's value: `name` qualified, or in the driver's domain."""
    domain, _, short = name.rpartition("/")
    attributes = device.get("attributes") or {}
    raw = attributes.get(name) or (attributes.get(short) if domain in ("", driver) else None)
    return next(iter(raw.values())) if raw else None


def gibibytes(quantity: str) -> float:
    """The few quantities the scenarios write (`<n>Gi`, `<n>Mi`, bytes)."""
    for suffix, factor in (("Gi", 1.0), ("Mi", 1 / 1024), ("Ki", 1 / 1024**2)):
        if quantity.endswith(suffix):
            return float(quantity[: -len(suffix)]) * factor
    return float(quantity) / GI


def _memory(driver: str, device: Device) -> float:
    capacity = (device.get("capacity") or {}).get("memory") or {}
    return gibibytes(capacity["value"]) if driver == GPU_DRIVER and capacity else 0.0


def _version(driver: str, device: Device) -> tuple[int, ...]:
    value = attribute(driver, device, "driverVersion") if driver == GPU_DRIVER else None
    return tuple(int(part) for part in value.split(".")) if value else ()


def _gpu(test: Callable[[Device], bool]) -> Test:
    return lambda driver, device: driver == GPU_DRIVER and test(device)


def _attr_is(name: str, value: Any) -> Test:
    return _gpu(lambda device: attribute(GPU_DRIVER, device, name) == value)


SELECTORS: dict[str, Test] = {
    f'device.driver == "{GPU_DRIVER}"': lambda driver, _: driver == GPU_DRIVER,
    f'device.driver == "{NIC_DRIVER}"': lambda driver, _: driver == NIC_DRIVER,
    f'device.attributes["{GPU_DRIVER}"].model == "a100"': _attr_is("model", "a100"),
    f'device.attributes["{GPU_DRIVER}"].model == "h100"': _attr_is("model", "h100"),
    f'device.attributes["{GPU_DRIVER}"].type == "gpu"': _attr_is("type", "gpu"),
    f'device.attributes["{GPU_DRIVER}"].numa == 0': _attr_is("numa", 0),
    f'device.capacity["{GPU_DRIVER}"].memory.compareTo(quantity("80Gi")) >= 0': (
        lambda driver, device: _memory(driver, device) >= 80
    ),
    f'device.attributes["{GPU_DRIVER}"].driverVersion.isGreaterThan(semver("1.5.0"))': (
        lambda driver, device: _version(driver, device) > (1, 5, 0)
    ),
}
"""Every CEL expression a scenario writes, with its meaning."""
_GPU, _NIC = f'device.driver == "{GPU_DRIVER}"', f'device.driver == "{NIC_DRIVER}"'
CLASS_SELECTORS = {
    "gpu": [_GPU],
    "a100": [_GPU, f'device.attributes["{GPU_DRIVER}"].model == "a100"'],
    "big": [_GPU, f'device.capacity["{GPU_DRIVER}"].memory.compareTo(quantity("80Gi")) >= 0'],
    "whole": [_GPU, f'device.attributes["{GPU_DRIVER}"].type == "gpu"'],
    "nic": [_NIC],
}
EXTENDED_SHARE = 0.5
"""Of the seeds that may, those whose GPU class backs `example.com/gpu` (drawn apart)."""
REQUEST_SELECTORS = [  # on GPU classes only (another driver's device has no such attribute)
    f'device.attributes["{GPU_DRIVER}"].model == "h100"',
    f'device.attributes["{GPU_DRIVER}"].numa == 0',
    f'device.attributes["{GPU_DRIVER}"].type == "gpu"',
    f'device.attributes["{GPU_DRIVER}"].driverVersion.isGreaterThan(semver("1.5.0"))',
]


@dataclass
class DraWorld:
    """A seed's DRA objects and what the claim generator draws from."""

    seed: int
    rng: random.Random
    classes: dict[str, str] = field(default_factory=dict)
    """Kind (a key of `CLASS_SELECTORS`) -> the seed's DeviceClass name."""
    objects: list[dict[str, Any]] = field(default_factory=list)
    """DeviceClasses, then ResourceSlices (created before the first step)."""
    tainted: bool = False
    shared: bool = False
    backs_extended: bool = False
    """The GPU class backs `example.com/gpu` (its `extendedResourceName`)."""

    def gpu_classes(self) -> list[str]:
        return [name for kind, name in self.classes.items() if kind != "nic"]


def dra_world(seed: int, nodes: list[dict[str, Any]], *, may_back_extended: bool) -> DraWorld:
    """The classes and slices of `seed` for the scenario's first `nodes`; where
    `may_back_extended`, in some seeds the GPU class backs `example.com/gpu`."""
    world = DraWorld(seed=seed, rng=random.Random(f"dra-{seed}"))
    rng = world.rng
    share = 0.15 if len(nodes) > 50 else rng.choice((0.3, 0.5, 0.7))
    with_gpus = [n["metadata"]["name"] for n in nodes if rng.random() < share]
    if not with_gpus:
        with_gpus = [nodes[rng.randrange(len(nodes))]["metadata"]["name"]]
    nics = rng.random() < 0.5
    kinds = ["gpu", *(k for k in ("a100", "big", "whole") if rng.random() < 0.6)]
    world.classes = {k: f"parity-{seed}-{k}" for k in [*kinds, *(["nic"] if nics else [])]}
    world.objects += [_device_class(name, CLASS_SELECTORS[k]) for k, name in world.classes.items()]
    extended = random.Random(f"dra-extended-{seed}").random() < EXTENDED_SHARE
    if may_back_extended and extended:
        world.objects[0]["spec"]["extendedResourceName"] = GPU
        world.backs_extended = True
    for node in with_gpus:
        world.objects += _gpu_slices(world, node)
        if nics and rng.random() < 0.6:
            world.objects.append(_nic_slice(world, node))
    return world


def _device_class(name: str, selectors: list[str]) -> dict[str, Any]:
    spec = {"selectors": [{"cel": {"expression": e}} for e in selectors]}
    return {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def _slice(
    world: DraWorld,
    node: str,
    driver: str,
    content: dict[str, Any],
    *,
    count: int = 1,
    suffix: str = "",
) -> dict[str, Any]:
    short = driver.split(".", maxsplit=1)[0]
    pool = {"name": f"{node}-s{world.seed}", "generation": 1, "resourceSliceCount": count}
    return {
        "apiVersion": RESOURCE,
        "kind": "ResourceSlice",
        "metadata": {"name": f"parity-{world.seed}-{node}-{short}{suffix}"},
        "spec": {"driver": driver, "nodeName": node, "pool": pool, **content},
    }


def _gpu_slices(world: DraWorld, node: str) -> list[dict[str, Any]]:
    rng = world.rng
    count, numa = rng.choice((1, 2, 2, 3, 4, 4)), rng.choice((1, 2))
    model, memory = rng.choice(("a100", "h100")), rng.choice(("40Gi", "80Gi"))
    mixed = rng.random() < 0.2
    version = rng.choice(("1.0.0", "1.6.2", "2.1.0"))

    def gpu(name: str, index: int, node_numa: int, kind: str) -> dict[str, Any]:
        this = ("h100" if model == "a100" else "a100") if mixed and index % 2 else model
        return {
            "name": name,
            "attributes": {
                "type": {"string": kind},
                "model": {"string": this},
                "numa": {"int": node_numa},
                "index": {"int": index},
                "driverVersion": {"version": version},
                PCIE_ROOT: {"string": f"pci-{node_numa}"},
            },
            "capacity": {"memory": {"value": memory}},
        }

    devices = [gpu(f"gpu-{i}", i, i * numa // count, "gpu") for i in range(count)]
    if rng.random() < 0.25:
        world.tainted = True
        effect = rng.choice(("NoSchedule", "NoSchedule", "NoExecute"))
        taint = {"key": TAINT_KEY, "value": "true", "effect": effect}
        devices[rng.randrange(count)]["taints"] = [taint]
    counters = []
    if rng.random() < 0.25:  # partitionable: whole, or two halves, of one counter set
        half = f"{int(memory[:-2]) // 2}Gi"
        counters = [{"name": "pgpu-0", "counters": {"memory": {"value": memory}}}]
        for name, size in (("pgpu-0", memory), ("pgpu-0-half-0", half), ("pgpu-0-half-1", half)):
            device = gpu(name, 0, 0, "partition")
            device["capacity"]["memory"]["value"] = size
            device["consumesCounters"] = [
                {"counterSet": "pgpu-0", "counters": {"memory": {"value": size}}}
            ]
            devices.append(device)
    if rng.random() < 0.25:  # consumable capacity: memory shared by several claims
        world.shared = True
        device = gpu("sgpu-0", 0, 0, "shared")
        device["allowMultipleAllocations"] = True
        device["capacity"]["memory"]["requestPolicy"] = {
            "default": SHARED_DEFAULT,
            "validRange": {"min": "1Gi", "step": "1Gi"},
        }
        devices.append(device)
    count = 2 if counters else 1
    slices = [_slice(world, node, GPU_DRIVER, {"devices": devices}, count=count)]
    if counters:
        content = {"sharedCounters": counters}
        slices.append(_slice(world, node, GPU_DRIVER, content, count=2, suffix="-counters"))
    return slices


def _nic_slice(world: DraWorld, node: str) -> dict[str, Any]:
    devices = [
        {
            "name": f"nic-{i}",
            "attributes": {
                "speed": {"int": world.rng.choice((100, 200))},
                PCIE_ROOT: {"string": f"pci-{i}"},
            },
        }
        for i in range(2)
    ]
    return _slice(world, node, NIC_DRIVER, {"devices": devices})


def _requests_gpu(pod: dict[str, Any]) -> bool:
    containers = pod["spec"]["containers"] + (pod["spec"].get("initContainers") or [])
    return any(GPU in ((c.get("resources") or {}).get("requests") or {}) for c in containers)


def claims_for(world: DraWorld, pod: dict[str, Any]) -> list[dict[str, Any]]:
    """The ResourceClaims of `pod` (some pods get none); sets `spec.resourceClaims`."""
    rng = world.rng
    if rng.random() >= 0.4 or (world.backs_extended and _requests_gpu(pod)):
        return []  # not both (see the module's docstring)
    meta = pod["metadata"]
    claims: list[dict[str, Any]] = []
    for i in range(1 if rng.random() < 0.8 else 2):
        name = f"{meta['name']}-c{i}"
        claims.append(
            {
                "apiVersion": RESOURCE,
                "kind": "ResourceClaim",
                "metadata": {"name": name, "namespace": meta["namespace"]},
                "spec": {"devices": _claim_devices(world)},
            }
        )
    pod["spec"]["resourceClaims"] = [
        {"name": f"c{i}", "resourceClaimName": c["metadata"]["name"]} for i, c in enumerate(claims)
    ]
    return claims


def _claim_devices(world: DraWorld) -> dict[str, Any]:
    rng = world.rng
    requests = [_request(world, "r0")]
    constraints = []
    if rng.random() < 0.35:
        nic = "nic" in world.classes and rng.random() < 0.4
        if nic:
            body = _exactly(world, world.classes["nic"], counts=(1,))
            requests.append({"name": "r1", "exactly": body})
        else:
            requests.append(_request(world, "r1"))
        if rng.random() < 0.6:
            key = PCIE_ROOT if nic or rng.random() < 0.3 else NUMA
            constraints.append({"requests": ["r0", "r1"], "matchAttribute": key})
    elif requests[0].get("exactly", {}).get("count", 1) > 1 and rng.random() < 0.4:
        constraints.append({"matchAttribute": NUMA})
    devices: dict[str, Any] = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return devices


def _request(world: DraWorld, name: str) -> dict[str, Any]:
    rng = world.rng
    roll = rng.random()
    if roll < 0.2:
        subrequests = [
            {"name": "many", **_exactly(world, rng.choice(world.gpu_classes()), counts=(2, 3, 4))},
            {"name": "one", **_exactly(world, rng.choice(world.gpu_classes()), counts=(1,))},
        ]
        return {"name": name, "firstAvailable": subrequests}
    if roll < 0.3:
        exactly = _exactly(world, rng.choice(list(world.classes.values())), counts=(1,))
        exactly.pop("count", None)
        exactly.pop("capacity", None)
        return {"name": name, "exactly": {**exactly, "allocationMode": "All"}}
    return {"name": name, "exactly": _exactly(world, rng.choice(world.gpu_classes()))}


def _exactly(
    world: DraWorld, cls: str, *, counts: tuple[int, ...] = (1, 1, 1, 2, 2, 3)
) -> dict[str, Any]:
    """An ExactCount request body of class `cls` (selectors, tolerations, capacity)."""
    rng = world.rng
    body: dict[str, Any] = {"deviceClassName": cls}
    if (count := rng.choice(counts)) > 1:
        body["count"] = count
    gpu = cls in world.gpu_classes()
    if gpu and rng.random() < 0.3:
        body["selectors"] = [{"cel": {"expression": rng.choice(REQUEST_SELECTORS)}}]
    if world.tainted and rng.random() < 0.35:
        exists = {"key": TAINT_KEY, "operator": "Exists"}
        equal = {"key": TAINT_KEY, "operator": "Equal", "value": "true", "effect": "NoSchedule"}
        body["tolerations"] = [rng.choice((exists, equal))]
    if gpu and rng.random() < (0.4 if world.shared else 0.1):
        memory = rng.choice(("5Gi", "20Gi", "40Gi", "70Gi"))
        body["capacity"] = {"requests": {"memory": memory}}
    return body
