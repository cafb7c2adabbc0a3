"""Seeded churn scenarios for the queueing differential test: pods that do not fit yet, and
a sequence of cluster changes (nodes added, relabelled, tainted and untainted, given more
cpu; bound pods deleted; the claims of pods that name a missing PersistentVolumeClaim
created; GPUs published in a node's ResourceSlice, the DeviceClass created, a GPU pod deleted
and its ResourceClaim freed) of which some can help a waiting pod and some cannot.

Every node and pod exists twice, once per pool: `ks-*` for kube-scheduler (schedulerName
`parity-default`), `kq-*` for kubesched (`twin-default`), each pod held to its pool by a
nodeSelector; every change is made to both pools. `generate_churn(seed)` is a pure function
of the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

POOLS = {"ks": "parity-default", "kq": "twin-default"}
"""Pool prefix -> the schedulerName of its pods."""
POOL_LABEL = "queueing.kubesched.io/pool"
GPU_LABEL = "queueing.kubesched.io/gpu"
TAINT = {"key": "queueing.kubesched.io/maintenance", "value": "true", "effect": "NoSchedule"}


@dataclass
class Churn:
    seed: int
    nodes: int
    """Nodes per pool at the start (`n0`, `n1`, ...; each 2 cpu)."""
    steps: list[tuple[str, Any]] = field(default_factory=list)
    """("pods", [spec, ...]) | ("add-node", index) | ("label", (index, labels)) |
    ("taint", index) | ("untaint", index) | ("cpu", (index, cpu)) | ("delete", name) |
    ("claim", pod name): the PersistentVolumeClaim a "claim" pod names is created |
    ("gpus", index): one more GPU in the node's ResourceSlice | ("device-class", None): the
    DeviceClass GPU pods ask for is created | ("free", pod name): a bound "device" pod is
    deleted and its ResourceClaim deallocated, as the resourceclaim controller would."""
    class_at_start: bool = True
    """Whether the DeviceClass exists before the first pods (else a step creates it)."""

    def pod_names(self) -> list[str]:
        return [pod["name"] for kind, body in self.steps if kind == "pods" for pod in body]

    def pod_kind(self, name: str) -> str:
        """The kind of pod `name` ("small", "device", ...): pods of one kind ask alike."""
        specs = (pod for kind, body in self.steps if kind == "pods" for pod in body)
        return next(str(pod["kind"]) for pod in specs if pod["name"] == name)


def generate_churn(seed: int) -> Churn:
    rng = random.Random(seed)
    churn = Churn(seed=seed, nodes=rng.randint(2, 3))
    devices = random.Random(seed * 7919)  # DRA's choices, apart: the other draws stay as they were
    churn.class_at_start = devices.random() < 0.6
    count, nodes = 0, churn.nodes
    created: list[str] = []
    claim_pods: set[str] = set()

    def pods(n: int) -> tuple[str, Any]:
        nonlocal count
        made = []
        for _ in range(n):
            made.append(_pod(rng, f"p{count}"))
            count += 1
        created.extend(pod["name"] for pod in made)
        claim_pods.update(pod["name"] for pod in made if pod["kind"] == "claim")
        return ("pods", made)

    churn.steps.append(pods(rng.randint(4, 7)))
    for _ in range(rng.randint(6, 9)):
        choice = rng.random()
        if choice < 0.15:
            churn.steps.append(pods(rng.randint(1, 3)))
        elif choice < 0.3:
            churn.steps.append(("add-node", nodes))
            nodes += 1
        elif choice < 0.45:
            labels = {GPU_LABEL: "yes"} if rng.random() < 0.5 else {"unrelated": str(seed)}
            churn.steps.append(("label", (rng.randrange(nodes), labels)))
        elif choice < 0.6:
            churn.steps.append((rng.choice(("taint", "untaint")), rng.randrange(nodes)))
        elif choice < 0.7:
            churn.steps.append(("cpu", (rng.randrange(nodes), rng.choice((4, 6)))))
        elif choice < 0.85 and (claims := [n for n in created if n in claim_pods]):
            claimed = rng.choice(claims)
            claim_pods.discard(claimed)  # each claim is created once
            churn.steps.append(("claim", claimed))
        else:
            churn.steps.append(("delete", rng.choice(created)))
        _device_step(devices, churn, nodes, created)
    return churn


def _device_step(rng: random.Random, churn: Churn, nodes: int, created: list[str]) -> None:
    """Now and then a DRA change, from its own random stream."""
    choice = rng.random()
    if choice < 0.25:
        churn.steps.append(("gpus", rng.randrange(nodes)))
    elif (
        choice < 0.35
        and not churn.class_at_start
        and not any(kind == "device-class" for kind, _ in churn.steps)
    ):
        churn.steps.append(("device-class", None))
    elif choice < 0.45 and created:
        churn.steps.append(("free", rng.choice(created)))
    elif choice < 0.6:
        made = [{"name": f"d{len(churn.steps)}", "kind": "device", "cpu": "100m"}]
        created.append(made[0]["name"])
        churn.steps.append(("pods", made))


def _pod(rng: random.Random, name: str) -> dict[str, Any]:
    kind = rng.choice(("small", "medium", "large", "gpu", "port", "tolerating", "claim"))
    cpu = {"small": "300m", "medium": "900m", "large": "2500m"}.get(kind, "200m")
    return {"name": name, "kind": kind, "cpu": cpu}


def node_object(pool: str, index: int) -> dict[str, Any]:
    name = f"{pool}-n{index}"
    capacity = {"cpu": "2", "memory": "8Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, POOL_LABEL: pool},
        },
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod_object(pool: str, namespace: str, spec: dict[str, Any]) -> dict[str, Any]:
    selector = {POOL_LABEL: pool}
    container: dict[str, Any] = {
        "name": "c",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": spec["cpu"], "memory": "64Mi"}},
    }
    pod_spec: dict[str, Any] = {
        "schedulerName": POOLS[pool],
        "nodeSelector": selector,
        "containers": [container],
        "terminationGracePeriodSeconds": 0,
    }
    if spec["kind"] == "gpu":
        selector[GPU_LABEL] = "yes"
    elif spec["kind"] == "port":
        container["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
    elif spec["kind"] == "tolerating":
        pod_spec["tolerations"] = [{**TAINT, "operator": "Equal"}]
    elif spec["kind"] == "claim":
        claim = {"claimName": claim_name(pool, spec["name"])}
        pod_spec["volumes"] = [{"name": "data", "persistentVolumeClaim": claim}]
    elif spec["kind"] == "device":
        name = device_claim_name(pool, spec["name"])
        pod_spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": name}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{pool}-{spec['name']}", "namespace": namespace},
        "spec": pod_spec,
    }


def claim_name(pool: str, pod: str) -> str:
    return f"{pool}-{pod}-data"


def claim_object(pool: str, namespace: str, pod: str) -> dict[str, Any]:
    """An unbound claim without a class: the pod then waits for it to be bound (there is
    no volume controller in the test cluster), so only the claim's arrival is compared."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": claim_name(pool, pod), "namespace": namespace},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": "",
        },
    }


DEVICE_CLASS = "queueing-gpu.example.com"
DRIVER = "gpu.example.com"
RESOURCE = "resource.k8s.io/v1"


def device_claim_name(pool: str, pod: str) -> str:
    return f"{pool}-{pod}-gpu"


def device_claim_object(pool: str, namespace: str, pod: str) -> dict[str, Any]:
    """One GPU of the DeviceClass, for a "device" pod (made with it)."""
    request = {"name": "gpu", "exactly": {"deviceClassName": DEVICE_CLASS}}
    return {
        "apiVersion": RESOURCE,
        "kind": "ResourceClaim",
        "metadata": {"name": device_claim_name(pool, pod), "namespace": namespace},
        "spec": {"devices": {"requests": [request]}},
    }


def device_class_object() -> dict[str, Any]:
    return {
        "apiVersion": RESOURCE,
        "kind": "DeviceClass",
        "metadata": {"name": DEVICE_CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def slice_object(pool: str, index: int, gpus: int, generation: int) -> dict[str, Any]:
    """The node's ResourceSlice with `gpus` GPUs (its pool is the node)."""
    node = f"{pool}-n{index}"
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


@dataclass(frozen=True)
class Differing:
    """A pod bound by one side only."""

    name: str
    kind: str
    theirs_bound: bool
    tried: tuple[int, int]
    """Attempts: kube-scheduler's, kubesched's."""


def swaps(differing: list[Differing]) -> tuple[list[tuple[str, str]], list[Differing]]:
    """Pairs of pods of one kind that the two sides bound the other way round (one bound by
    kube-scheduler only, the other by kubesched only), where kubesched tried one of the two
    once more: the extra attempt the module docstring allows moved that pod's backoff past
    the other's, and the other reached the one free place first. The rest is unexplained."""
    swapped: list[tuple[str, str]] = []
    left = list(differing)
    for theirs in [pod for pod in differing if pod.theirs_bound]:
        partner = next(
            (
                ours
                for ours in left
                if not ours.theirs_bound
                and ours.kind == theirs.kind
                and (theirs.tried[1] > theirs.tried[0] or ours.tried[1] > ours.tried[0])
            ),
            None,
        )
        if partner is not None:
            left = [pod for pod in left if pod not in (theirs, partner)]
            swapped.append((theirs.name, partner.name))
    return swapped, left
