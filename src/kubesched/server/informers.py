"""The informers one kubesched process runs, made by one helper.

Pods (non-terminal only, as kube-scheduler) and nodes feed the cache and the queue; namespaces
(labels for pod-affinity `namespaceSelector`s) and PodDisruptionBudgets (read by preemption;
their informer runs only when a profile preempts) are only read from their stores.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from kubesched.cache import SchedulerCache
from kubesched.informers import Reflector
from kubesched.kube.api import WatchApi
from kubesched.model import Namespace, Node, Pod, PodDisruptionBudget
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.eventhandlers import NodeHandler, PodHandler

# Pods that finished hold no resources; like kube-scheduler, do not even list them.
NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed"
PODS_PATH = "/api/v1/pods"
NODES_PATH = "/api/v1/nodes"
NAMESPACES_PATH = "/api/v1/namespaces"
PDB_PATH = "/apis/policy/v1/poddisruptionbudgets"


class _Versioned(Protocol):
    @property
    def resource_version(self) -> str: ...


T = TypeVar("T", bound=_Versioned)


class IgnoreEvents:
    """For informers that are only read from their stores: their changes trigger nothing
    (as upstream, no plugin requeues pods on namespace or PDB events)."""

    def on_add(self, obj: object) -> None:
        pass

    def on_update(self, old: object, new: object) -> None:
        pass

    def on_delete(self, obj: object) -> None:
        pass


def informer(
    api: WatchApi,
    path: str,
    decode: Callable[[dict[str, Any]], T],
    key: Callable[[T], str],
    *,
    handler: Any = None,
    field_selector: str = "",
) -> Reflector[T]:
    """A Reflector over `path` keeping decoded objects by `key` (store-only without handler)."""
    return Reflector(
        api,
        path=path,
        decode=decode,
        key=key,
        version=lambda obj: obj.resource_version,
        handler=handler if handler is not None else IgnoreEvents(),
        field_selector=field_selector,
    )


def namespace_informer(api: WatchApi) -> Reflector[Namespace]:
    """Namespaces, kept as name -> labels for pod-affinity `namespaceSelector`s."""
    return informer(api, NAMESPACES_PATH, Namespace.from_json, lambda ns: ns.name)


@dataclass(frozen=True)
class Informers:
    """The process's informers; `pdbs` is None when no profile preempts, `volumes` (resource
    -> informer) empty when no profile enables a volume plugin."""

    pods: Reflector[Pod]
    nodes: Reflector[Node]
    namespaces: Reflector[Namespace]
    pdbs: Reflector[PodDisruptionBudget] | None
    volumes: Mapping[str, Reflector[Any]] = field(default_factory=dict)

    def named(self) -> dict[str, Reflector[Any]]:
        """Resource name -> informer, for every informer that runs."""
        named: dict[str, Reflector[Any]] = {
            "nodes": self.nodes,
            "pods": self.pods,
            "namespaces": self.namespaces,
        }
        if self.pdbs is not None:
            named["poddisruptionbudgets"] = self.pdbs
        named.update(self.volumes)
        return named

    def synced(self) -> bool:
        """Whether every informer has listed once."""
        return all(reflector.synced.is_set() for reflector in self.named().values())

    async def wait_synced(self) -> None:
        await asyncio.gather(*(r.synced.wait() for r in self.named().values()))


def store_informers(api: WatchApi) -> tuple[Reflector[Namespace], Reflector[PodDisruptionBudget]]:
    """The store-only informers the Handles read (made before the frameworks)."""
    pdbs = informer(api, PDB_PATH, PodDisruptionBudget.from_json, lambda pdb: pdb.key)
    return namespace_informer(api), pdbs


def feeding_informers(
    api: WatchApi, *, cache: SchedulerCache, queue: SchedulingQueue, scheduler_names: Container[str]
) -> tuple[Reflector[Pod], Reflector[Node]]:
    """The informers that feed the cache and the queue (made once the queue exists)."""
    pods = informer(
        api,
        PODS_PATH,
        Pod.from_json,
        lambda pod: pod.key,
        handler=PodHandler(cache=cache, queue=queue, scheduler_names=scheduler_names),
        field_selector=NON_TERMINAL_PODS,
    )
    nodes = informer(
        api,
        NODES_PATH,
        Node.from_json,
        lambda node: node.name,
        handler=NodeHandler(cache=cache, queue=queue),
    )
    return pods, nodes
