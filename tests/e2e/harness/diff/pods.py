"""The pods and workloads of a random scenario (see `scenario`): existing pods bound to
nodes (within each node's room), and incoming pods drawing on every feature the default
plugins look at."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.harness.diff.profiles import GPU, ZONE

HOST = "kubernetes.io/hostname"
APPS = ("web", "db", "cache", "batch")
OWNERS = {  # app -> (apiVersion, kind, name) of the controller owning its pods
    "web": ("apps/v1", "ReplicaSet", "web"),
    "db": ("apps/v1", "StatefulSet", "db"),
    "cache": ("v1", "ReplicationController", "cache"),
}
CPU_CHOICES = ("0", "100m", "250m", "500m", "1", "2", "3")
MEMORY_CHOICES = ("0", "128Mi", "512Mi", "1Gi", "2Gi", "4Gi")
_MILLI = {"0": 0, "100m": 100, "250m": 250, "500m": 500, "1": 1000, "2": 2000, "3": 3000}


@dataclass
class Context:
    rng: random.Random
    seed: int
    scheduler: str
    namespaces: list[str] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    gpu_backed: bool = False
    """A DeviceClass backs the GPU extended resource: pods may request it anywhere."""


def existing_pods(ctx: Context, *, per_node: int) -> list[dict[str, Any]]:
    """Pods bound to nodes (low or no priority), never more than a node holds."""
    rng = ctx.rng
    pods: list[dict[str, Any]] = []
    for node in ctx.nodes:
        room = int(node["status"]["allocatable"]["cpu"]) * 1000
        slots = int(node["status"]["allocatable"]["pods"]) - 1
        for i in range(rng.randint(0, per_node)):
            cpu = rng.choice(("250m", "500m", "1", "2"))
            if _MILLI[cpu] > room or i >= slots:
                break
            room -= _MILLI[cpu]
            pod = _pod(ctx, f"e-{node['metadata']['name']}-{i}", rng.choice(ctx.namespaces))
            pod["spec"]["nodeName"] = node["metadata"]["name"]
            _container(pod)["resources"] = {
                "requests": {"cpu": cpu, "memory": rng.choice(("128Mi", "1Gi"))}
            }
            if rng.random() < 0.5:
                pod["spec"]["priorityClassName"] = "parity-low"
            if rng.random() < 0.3:
                pod["spec"]["affinity"] = _pod_affinity(ctx, existing=True)
            # Started, as a kubelet would report: preemption orders victims by start time.
            pod["status"] = {"phase": "Running", "startTime": started_at(len(pods))}
            pods.append(pod)
    return pods


def started_at(index: int) -> str:
    """A distinct `status.startTime` per index (one second apart)."""
    minutes, seconds = divmod(index, 60)
    return f"2026-01-01T{minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}Z"


def incoming(ctx: Context, index: int) -> dict[str, Any]:
    """One incoming pod for the scenario's scheduler, with a random mix of features."""
    rng = ctx.rng
    pod = _pod(ctx, f"p-{index:02d}", rng.choice(ctx.namespaces))
    pod["spec"]["schedulerName"] = ctx.scheduler
    _requests(ctx, pod)
    _placement(ctx, pod["spec"])
    if rng.random() < 0.1:
        _container(pod)["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
    if rng.random() < 0.15:
        pod["spec"]["priorityClassName"] = "parity-high"
    if rng.random() < 0.08:
        pod["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    return pod


def _placement(ctx: Context, spec: dict[str, Any]) -> None:
    """Node selector, node and pod (anti-)affinity, tolerations, spread constraints."""
    rng, affinity = ctx.rng, {}
    if rng.random() < 0.08:
        spec["nodeSelector"] = {"disk": "ssd"}
    if rng.random() < 0.2:
        affinity["nodeAffinity"] = _node_affinity(rng)
    if rng.random() < 0.3:
        affinity.update(_pod_affinity(ctx, existing=False))
    if affinity:
        spec["affinity"] = affinity
    if rng.random() < 0.35:
        effect = rng.choice(("NoSchedule", "PreferNoSchedule"))
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": effect}]
    if rng.random() < 0.3:
        constraints = {}
        for _ in range(rng.randint(1, 2)):
            constraint = _spread(rng)
            constraints[(constraint["topologyKey"], constraint["whenUnsatisfiable"])] = constraint
        spec["topologySpreadConstraints"] = list(constraints.values())


def _pod(ctx: Context, name: str, namespace: str) -> dict[str, Any]:
    rng = ctx.rng
    app = rng.choice(APPS)
    labels = {"app": app, "pod-template-hash": rng.choice(("h1", "h2"))}
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels}
    if app in OWNERS and rng.random() < 0.6:
        version, kind, owner = OWNERS[app]
        meta["ownerReferences"] = [
            {
                "apiVersion": version,
                "kind": kind,
                "name": owner,
                "uid": f"uid-{kind.lower()}-{owner}",
                "controller": True,
            }
        ]
    images = [
        rng.choice(
            (
                "registry.example.com/app:v1",
                "registry.example.com/db:v2",
                "nginx:1.27",
                "busybox",
                "pause",
            )
        )
    ]
    containers = [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]
    spec: dict[str, Any] = {"terminationGracePeriodSeconds": 0, "containers": containers}
    if rng.random() < 0.1:
        spec["initContainers"] = [{"name": "init", "image": "registry.example.com/tool:v3"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _container(pod: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = pod["spec"]["containers"][0]
    return container


def _requests(ctx: Context, pod: dict[str, Any]) -> None:
    rng = ctx.rng
    cpu, memory = rng.choice(CPU_CHOICES), rng.choice(MEMORY_CHOICES)
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v != "0"}
    offered = ctx.gpu_backed or any(GPU in n["status"]["allocatable"] for n in ctx.nodes)
    if rng.random() < (0.25 if ctx.gpu_backed else 0.08) and offered:
        requests[GPU] = str(rng.randint(1, 2))
        _container(pod)["resources"] = {"limits": {GPU: requests[GPU]}}
    if requests:
        _container(pod).setdefault("resources", {})["requests"] = requests
    if rng.random() < 0.12:  # pod-level resources (at least the containers' requests)
        pod["spec"]["resources"] = {
            "requests": {"cpu": rng.choice(("1", "2", "3")), "memory": "2Gi"}
        }
        _container(pod)["resources"] = {
            "requests": {"cpu": "500m"},
            **({"limits": {GPU: requests[GPU]}} if GPU in requests else {}),
        }
        if GPU in requests:
            _container(pod)["resources"]["requests"][GPU] = requests[GPU]


def _node_affinity(rng: random.Random) -> dict[str, Any]:
    affinity: dict[str, Any] = {}
    if rng.random() < 0.3:
        zones = rng.sample(("zone-1", "zone-2", "zone-3"), 2)
        term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": zones}]}
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    preference = {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]}
    affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
        {"weight": rng.randint(1, 100), "preference": preference}
    ]
    return affinity


def _term(ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    term: dict[str, Any] = {
        "labelSelector": {"matchLabels": {"app": rng.choice(APPS)}},
        "topologyKey": rng.choice((HOST, ZONE)),
    }
    roll = rng.random()
    if roll < 0.25:
        term["namespaceSelector"] = {"matchLabels": {"env": rng.choice(("prod", "dev"))}}
    elif roll < 0.4:
        term["namespaces"] = [rng.choice(ctx.namespaces)]
    elif roll < 0.5:
        term["namespaceSelector"] = {}
    if rng.random() < 0.15:
        term["matchLabelKeys"] = ["pod-template-hash"]
    return term


def _pod_affinity(ctx: Context, *, existing: bool) -> dict[str, Any]:
    rng, result = ctx.rng, {}
    for kind in ("podAffinity", "podAntiAffinity"):
        if rng.random() < 0.5:
            continue
        body: dict[str, Any] = {}
        if rng.random() < (0.6 if existing and kind == "podAntiAffinity" else 0.3):
            body["requiredDuringSchedulingIgnoredDuringExecution"] = [_term(ctx)]
        if rng.random() < 0.7:
            body["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _term(ctx)}
            ]
        if body:
            result[kind] = body
    return result


def _spread(rng: random.Random) -> dict[str, Any]:
    hard = rng.random() < 0.5
    constraint: dict[str, Any] = {
        "maxSkew": rng.randint(1, 2),
        "topologyKey": rng.choice((HOST, ZONE)),
        "whenUnsatisfiable": "DoNotSchedule" if hard else "ScheduleAnyway",
        "labelSelector": {"matchLabels": {"app": rng.choice(APPS)}},
    }
    if hard and rng.random() < 0.3:
        constraint["minDomains"] = rng.randint(2, 4)
    if rng.random() < 0.2:
        constraint["matchLabelKeys"] = ["pod-template-hash"]
    if rng.random() < 0.2:
        constraint["nodeTaintsPolicy"] = "Honor"
    if rng.random() < 0.1:
        constraint["nodeAffinityPolicy"] = "Ignore"
    return constraint
