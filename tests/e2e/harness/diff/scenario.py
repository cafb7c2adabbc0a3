"""Seeded random scenarios: a cluster (namespaces with labels, nodes with zones, taints,
images, extended resources; Services, ReplicaSets, StatefulSets, ReplicationControllers; a
PodDisruptionBudget; existing pods with affinity terms) and a sequence of steps (incoming
pods with every filter/score feature, scheduling gates, node updates and new nodes), and
DRA content (`dra`): DeviceClasses, ResourceSlices for some nodes, ResourceClaims for some
incoming pods.

`generate(seed)` is a pure function of the seed. Nodes are created in name order and nodes
added later carry no images: ImageLocality's one-size-per-image and per-node counts depend
on the order the scheduler's cache saw the nodes (see `kubesched.framework.imagestates`),
which a fresh read of the cluster cannot know otherwise.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.harness.diff import pods as podgen
from tests.e2e.harness.diff.dra import claims_for, dra_world
from tests.e2e.harness.diff.profiles import GPU, PROFILES, ZONE
from tests.e2e.harness.diff.workloads import workloads

MI = 1024 * 1024
HOST = "kubernetes.io/hostname"
IMAGES = (
    ("registry.example.com/app:v1", 300),
    ("registry.example.com/db:v2", 800),
    ("registry.example.com/tool:v3", 40),
    ("nginx:1.27", 150),
    ("busybox:latest", 5),
)
LARGE_EVERY = 10
"""Every tenth seed (seed % 10 == 7) has a cluster of over 100 nodes."""


@dataclass
class Scenario:
    seed: int
    profile: str
    """A key of `profiles.PROFILES`."""
    objects: list[dict[str, Any]] = field(default_factory=list)
    """Created in order before the first step (namespaces, nodes, workloads, PDB, pods)."""
    steps: list[tuple[str, Any]] = field(default_factory=list)
    """("pod", pod) | ("claims", [ResourceClaim, ...]) (the next pod's) |
    ("node", (name, {"labels"|"taints"|"cpu": ...})) | ("add-node", node)."""

    @property
    def namespaces(self) -> list[str]:
        return [o["metadata"]["name"] for o in self.objects if o["kind"] == "Namespace"]


def generate(seed: int) -> Scenario:
    """The scenario of `seed` (the same objects and steps on every run)."""
    rng = random.Random(seed)
    large = seed % LARGE_EVERY == 7
    profile = rng.choice(["default", "sampled"]) if large else list(PROFILES)[seed % len(PROFILES)]
    scenario = Scenario(seed=seed, profile=profile)
    ctx = podgen.Context(rng=rng, seed=seed, scheduler="parity-" + profile)
    scenario.objects += _namespaces(ctx)
    nodes = [
        _node(ctx, i, with_images=True)
        for i in range(rng.randint(101, 116) if large else rng.randint(6, 16))
    ]
    ctx.nodes = nodes
    scenario.objects += nodes
    world = dra_world(seed, nodes, may_back_extended=profile != "affinity")
    ctx.gpu_backed = world.backs_extended
    scenario.objects += world.objects
    scenario.objects += workloads(ctx)
    scenario.objects += podgen.existing_pods(ctx, per_node=1 if large else 3)
    for index in range(rng.randint(5, 8) if large else rng.randint(8, 14)):
        if index and rng.random() < 0.15:
            scenario.steps.append(_node_change(ctx))
        pod = podgen.incoming(ctx, index)
        if claims := claims_for(world, pod):
            scenario.steps.append(("claims", claims))
        scenario.steps.append(("pod", pod))
    return scenario


def _namespaces(ctx: podgen.Context) -> list[dict[str, Any]]:
    labels = ({"env": "prod", "team": "a"}, {"env": "dev", "team": "b"})
    result = []
    for suffix, extra in zip(("a", "b"), labels, strict=True):
        name = f"parity-{ctx.seed}-{suffix}"
        ctx.namespaces.append(name)
        meta = {"name": name, "labels": {"kubesched.e2e/test": "true", **extra}}
        result.append({"apiVersion": "v1", "kind": "Namespace", "metadata": meta})
    return result


def _node(ctx: podgen.Context, index: int, *, with_images: bool) -> dict[str, Any]:
    rng = ctx.rng
    name = f"n{index:03d}"
    cpu, memory = rng.choice((2, 4, 4, 8, 16)), rng.choice((4, 8, 16, 32))
    capacity = {"cpu": str(cpu), "memory": f"{memory}Gi", "pods": rng.choice(("110", "110", "6"))}
    if rng.random() < 0.25:
        capacity[GPU] = str(rng.choice((2, 4)))
    labels = {HOST: name, ZONE: f"zone-{rng.randint(1, 3)}"}
    if rng.random() < 0.5:
        labels["disk"] = rng.choice(("ssd", "hdd"))
    if rng.random() < 0.3:
        labels["tier"] = rng.choice(("front", "back"))
    taints = []
    if rng.random() < 0.15:
        taints.append(
            {
                "key": "dedicated",
                "value": "gpu",
                "effect": rng.choice(("NoSchedule", "PreferNoSchedule")),
            }
        )
    if rng.random() < 0.1:
        taints.append({"key": "maintenance", "effect": "PreferNoSchedule"})
    images = []
    if with_images:
        for image, size in IMAGES:
            if rng.random() < 0.4:
                size_mi = size if rng.random() < 0.8 else rng.choice((10, 200, 950))
                images.append({"names": [image], "sizeBytes": size_mi * MI})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints, "unschedulable": rng.random() < 0.05},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "images": images,
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def _node_change(ctx: podgen.Context) -> tuple[str, Any]:
    rng = ctx.rng
    if rng.random() < 0.3:
        node = _node(ctx, len(ctx.nodes), with_images=False)
        ctx.nodes.append(node)
        return ("add-node", node)
    node = rng.choice(ctx.nodes)
    name = node["metadata"]["name"]
    kind = rng.choice(("labels", "taints", "cpu"))
    if kind == "labels":
        change: Any = {
            "disk": rng.choice(("ssd", "hdd", None)),
            "tier": rng.choice(("front", None)),
        }
    elif kind == "taints":
        change = rng.choice(([], [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]))
    else:  # more allocatable cpu (never less: the pods already bound must keep fitting)
        cpu = int(node["status"]["allocatable"]["cpu"]) + rng.choice((1, 2))
        node["status"]["allocatable"]["cpu"] = node["status"]["capacity"]["cpu"] = str(cpu)
        change = str(cpu)
    return ("node", (name, {kind: change}))
