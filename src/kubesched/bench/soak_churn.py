"""The churn of the soak (`bench.soak`): pods created at a steady rate and each deleted a
fixed time later, so the live set stays constant while every pod is new; one node replaced
every interval; a watch that knows which pods got bound.

Most pods carry inter-pod (anti-)affinity terms, so that the structures kept per placed
pod (InterPodAffinity's compiled terms, the cache, the queue) see every pod come and go:

    1 in 6  plain (100m CPU)
    1 in 6  required anti-affinity per host to its own group (8 groups)
    1 in 6  required affinity per zone to `app: blue` (it is blue itself)
    1 in 6  preferred affinity per host to `app: red`
    1 in 6  preferred anti-affinity per host to `app: yellow`
    1 in 6  topology spread per zone (maxSkew 5, DoNotSchedule)
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from dataclasses import dataclass
from typing import Any

from kubesched.bench import templates as t
from kubesched.bench.load import create_all, create_one
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError, ConnectionFailed, NotFound

log = logging.getLogger(__name__)

NAMESPACE = "soak"
ZONES = 3
ANTI_AFFINITY_GROUPS = 8
INACTIVITY_TIMEOUT = 30.0
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_GONE = {"gracePeriodSeconds": 0}


@dataclass(frozen=True, slots=True)
class ChurnSpec:
    """The churn's shape."""

    nodes: int = 300
    rate: float = 30.0
    """Pods created per second."""
    lifetime: float = 90.0
    """Seconds from a pod's creation to its deletion."""
    node_interval: float = 60.0
    """Seconds between two node replacements."""


def soak_node(index: int) -> dict[str, Any]:
    """`node-default.yaml` (4 CPU, 32Gi, 110 pods) in one of `ZONES` zones."""
    return t.node_default(f"soak-node-{index}", {t.ZONE: f"zone-{index % ZONES}"})


def _term(labels: dict[str, str], topology_key: str) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": topology_key}


def soak_pod(index: int, scheduler: str) -> dict[str, Any]:
    """The `index`-th pod of the mix (see the module's docstring)."""
    body = t.pod_default(f"soak-{index}", NAMESPACE, scheduler)
    kind = index % 6
    labels: dict[str, str]
    spec: dict[str, Any] = {}
    if kind == 0:
        labels = {"app": "plain"}
    elif kind == 1:
        labels = {"group": f"g{(index // 6) % ANTI_AFFINITY_GROUPS}"}
        spec["affinity"] = {"podAntiAffinity": {_REQUIRED: [_term(labels, t.HOSTNAME)]}}
    elif kind == 2:
        labels = {"app": "blue"}
        spec["affinity"] = {"podAffinity": {_REQUIRED: [_term(labels, t.ZONE)]}}
    elif kind == 3:
        labels = {"app": "red"}
        preferred = [{"weight": 1, "podAffinityTerm": _term(labels, t.HOSTNAME)}]
        spec["affinity"] = {"podAffinity": {_PREFERRED: preferred}}
    elif kind == 4:
        labels = {"app": "yellow"}
        preferred = [{"weight": 1, "podAffinityTerm": _term(labels, t.HOSTNAME)}]
        spec["affinity"] = {"podAntiAffinity": {_PREFERRED: preferred}}
    else:
        labels = {"app": "spread"}
        constraint = {
            "maxSkew": 5,
            "topologyKey": t.ZONE,
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": labels},
        }
        spec["topologySpreadConstraints"] = [constraint]
    body["metadata"]["labels"] = labels
    body["spec"].update(spec)
    return body


@dataclass(slots=True)
class ChurnCounts:
    """What the churn did so far."""

    created: int = 0
    deleted: int = 0
    bound: int = 0
    unbound_at_deletion: int = 0
    nodes_replaced: int = 0
    first_unbound: str = ""


class Churn:
    """Runs the pods' and the nodes' churn against one namespace until cancelled."""

    def __init__(self, client: KubeClient, spec: ChurnSpec, scheduler: str) -> None:
        self._client = client
        self._spec = spec
        self._scheduler = scheduler
        self._path = f"/api/v1/namespaces/{NAMESPACE}/pods"
        self._due: collections.deque[tuple[float, str]] = collections.deque()
        self._bound: set[str] = set()
        self._slots = asyncio.Semaphore(32)
        self._tasks: set[asyncio.Task[None]] = set()
        self.counts = ChurnCounts()

    @property
    def alive(self) -> int:
        return self.counts.created - self.counts.deleted

    async def setup(self) -> None:
        """The namespace and the nodes."""
        namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
        await create_one(self._client, "/api/v1/namespaces", namespace)
        nodes = (("/api/v1/nodes", soak_node(i)) for i in range(self._spec.nodes))
        await create_all(self._client, nodes, concurrency=32)

    async def run(self) -> None:
        """Create, delete, replace nodes and watch, until cancelled."""
        async with asyncio.TaskGroup() as group:
            group.create_task(self._watch())
            group.create_task(self._create_pods())
            group.create_task(self._delete_pods())
            group.create_task(self._replace_nodes())

    async def _create_pods(self) -> None:
        started = time.monotonic()
        index = 0
        while True:
            delay = started + index / self._spec.rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            body = soak_pod(index, self._scheduler)
            self._due.append((time.monotonic() + self._spec.lifetime, body["metadata"]["name"]))
            self._spawn(create_one(self._client, self._path, body))
            self.counts.created += 1
            index += 1

    async def _delete_pods(self) -> None:
        while True:
            if not self._due or self._due[0][0] > time.monotonic():
                await asyncio.sleep(0.05)
                continue
            _, name = self._due.popleft()
            if name in self._bound:
                self._bound.discard(name)
            else:
                self.counts.unbound_at_deletion += 1
                self.counts.first_unbound = self.counts.first_unbound or name
            self._spawn(self._delete(f"{self._path}/{name}"))
            self.counts.deleted += 1

    async def _replace_nodes(self) -> None:
        oldest, next_index = 0, self._spec.nodes
        while True:
            await asyncio.sleep(self._spec.node_interval)
            try:
                await self._delete(f"/api/v1/nodes/soak-node-{oldest}")
                await create_one(self._client, "/api/v1/nodes", soak_node(next_index))
            except ApiError as exc:
                log.warning("soak node replacement failed: %s", exc)
            oldest, next_index = oldest + 1, next_index + 1
            self.counts.nodes_replaced += 1

    def _spawn(self, request: Any) -> None:
        async def limited() -> None:
            async with self._slots:
                await request

        task = asyncio.create_task(limited())
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("soak request failed: %s", task.exception())

    async def _delete(self, path: str) -> None:
        try:
            await self._client.delete(path, body=_GONE, timeout=30)
        except NotFound:
            return

    async def _watch(self) -> None:
        """Follow the pods' nodeName: `_bound` holds the live pods seen bound."""
        version = ""
        while True:
            if not version:
                version = await self._relist()
            params = {"resourceVersion": version, "allowWatchBookmarks": "true"}
            events = self._client.watch(
                self._path, params=params, inactivity_timeout=INACTIVITY_TIMEOUT
            )
            try:
                async for event in events:
                    version = self._apply(event, version)
                    if not version:
                        break  # an ERROR event (410 Gone): list again
            except (ConnectionFailed, ApiError) as exc:
                log.warning("soak watch broke: %s", exc)
                await asyncio.sleep(0.5)

    async def _relist(self) -> str:
        listing = await self._client.get(self._path, timeout=60)
        for pod in listing.get("items") or ():
            if (pod.get("spec") or {}).get("nodeName"):
                self._note_bound(pod)
        return str((listing.get("metadata") or {}).get("resourceVersion", ""))

    def _apply(self, event: dict[str, Any], version: str) -> str:
        """Note one watch event; the resourceVersion to resume from ("" after an error)."""
        kind = event.get("type")
        obj = event.get("object") or {}
        if kind == "ERROR":
            return ""
        meta = obj.get("metadata") or {}
        if kind == "DELETED":
            self._bound.discard(str(meta.get("name", "")))
        elif kind != "BOOKMARK" and (obj.get("spec") or {}).get("nodeName"):
            self._note_bound(obj)
        return str(meta.get("resourceVersion") or version)

    def _note_bound(self, pod: dict[str, Any]) -> None:
        name = str((pod.get("metadata") or {}).get("name", ""))
        if name not in self._bound and not (pod.get("metadata") or {}).get("deletionTimestamp"):
            self._bound.add(name)
            self.counts.bound += 1
