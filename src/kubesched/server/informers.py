"""The informers one kubesched process runs, made by one helper.

Pods (non-terminal only, as kube-scheduler) and nodes feed the cache and the queue; namespaces
(labels for pod-affinity `namespaceSelector`s), PodDisruptionBudgets (read by preemption;
their informer runs only when a profile preempts) and the Services, ReplicationControllers,
ReplicaSets and StatefulSets (their selectors, for default topology spreading, kept in one
`WorkloadStore`) are only read from their stores. Every resource an enabled plugin declares
(`kubesched.framework.resources`) gets one informer feeding its lister, whose changes are
cluster events for the queue.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from kubesched.cache import SchedulerCache
from kubesched.framework import ActionType, ClusterEvent, WaitingPods
from kubesched.framework.listers import ClusterListers, IndexedStore
from kubesched.framework.resources import ResourceSpec
from kubesched.informers import Reflector
from kubesched.informers.health import InformerHealth
from kubesched.kube.api import WatchApi
from kubesched.model import ApiObject, Namespace, Node, Pod, PodDisruptionBudget, WorkloadSelector
from kubesched.model.workload_store import WorkloadStore
from kubesched.model.workloads import REPLICA_SET, REPLICATION_CONTROLLER, SERVICE, STATEFUL_SET
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.eventhandlers import EventTimer, NodeHandler, PodHandler

# Pods that finished hold no resources; like kube-scheduler, do not even list them.
NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed"
PODS_PATH = "/api/v1/pods"
NODES_PATH = "/api/v1/nodes"
NAMESPACES_PATH = "/api/v1/namespaces"
PDB_PATH = "/apis/policy/v1/poddisruptionbudgets"
WORKLOAD_PATHS = {
    SERVICE: "/api/v1/services",
    REPLICATION_CONTROLLER: "/api/v1/replicationcontrollers",
    REPLICA_SET: "/apis/apps/v1/replicasets",
    STATEFUL_SET: "/apis/apps/v1/statefulsets",
}


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


class WorkloadHandler:
    """Keeps one kind's objects in the shared `WorkloadStore` the Handles read."""

    def __init__(self, store: WorkloadStore) -> None:
        self._store = store

    def on_add(self, obj: WorkloadSelector) -> None:
        self._store.upsert(obj)

    def on_update(self, old: WorkloadSelector, new: WorkloadSelector) -> None:
        del old
        self._store.upsert(new)

    def on_delete(self, obj: WorkloadSelector) -> None:
        self._store.delete(obj)


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


def workload_informers(api: WatchApi, store: WorkloadStore) -> dict[str, Reflector[Any]]:
    """Resource name -> informer of each kind default topology spreading reads."""
    handler = WorkloadHandler(store)
    result: dict[str, Reflector[Any]] = {}
    for kind, path in WORKLOAD_PATHS.items():

        def decode(obj: dict[str, Any], kind: str = kind) -> WorkloadSelector:
            return WorkloadSelector.from_json(kind, obj)

        reflector = informer(
            api, path, decode, lambda w: f"{w.namespace}/{w.name}", handler=handler
        )
        result[path.rsplit("/", 1)[1]] = reflector
    return result


@dataclass(frozen=True)
class Informers:
    """The process's informers; `pdbs` is None when no profile preempts, `volumes` (resource
    -> informer) empty when no profile enables a volume plugin."""

    pods: Reflector[Pod]
    nodes: Reflector[Node]
    namespaces: Reflector[Namespace]
    pdbs: Reflector[PodDisruptionBudget] | None
    declared: Mapping[str, Reflector[ApiObject]] = field(default_factory=dict)
    """One per resource plugins declared, by `ResourceSpec.event_resource`."""
    volumes: Mapping[str, Reflector[Any]] = field(default_factory=dict)
    workloads: dict[str, Reflector[Any]] = field(default_factory=dict)
    """Services, ReplicationControllers, ReplicaSets, StatefulSets (`workload_informers`)."""

    def named(self) -> dict[str, Reflector[Any]]:
        """Resource name -> informer, for every informer that runs."""
        named: dict[str, Reflector[Any]] = {
            "nodes": self.nodes,
            "pods": self.pods,
            "namespaces": self.namespaces,
        }
        if self.pdbs is not None:
            named["poddisruptionbudgets"] = self.pdbs
        named.update(self.declared)
        named.update(self.volumes)
        named.update(self.workloads)
        return named

    def synced(self) -> bool:
        """Whether every informer has listed once."""
        return all(reflector.synced.is_set() for reflector in self.named().values())

    def health(self) -> list[InformerHealth]:
        """Each informer's state (synced, failing, stalled, stopped)."""
        return [reflector.health() for reflector in self.named().values()]

    def ready(self) -> bool:
        """/readyz: every informer synced, none stalled or stopped."""
        return all(health.ready for health in self.health())

    def alive(self) -> bool:
        """/livez: no informer stalled or stopped (a restart rebuilds them)."""
        return all(health.alive for health in self.health())

    def not_synced(self) -> list[str]:
        """`path (state: last error)` for each informer that has not synced yet."""
        return [health.describe() for health in self.health() if not health.synced]

    async def wait_synced(self) -> None:
        await asyncio.gather(*(r.synced.wait() for r in self.named().values()))


def store_informers(api: WatchApi) -> tuple[Reflector[Namespace], Reflector[PodDisruptionBudget]]:
    """The store-only informers the Handles read (made before the frameworks)."""
    pdbs = informer(api, PDB_PATH, PodDisruptionBudget.from_json, lambda pdb: pdb.key)
    return namespace_informer(api), pdbs


class Both:
    """Two handlers for one informer: `first` (the scheduler's), then `then` (a lister)."""

    def __init__(self, first: Any, then: Any) -> None:
        self._first, self._then = first, then

    def on_add(self, obj: object) -> None:
        self._first.on_add(obj)
        self._then.on_add(obj)

    def on_update(self, old: object, new: object) -> None:
        self._first.on_update(old, new)
        self._then.on_update(old, new)

    def on_delete(self, obj: object) -> None:
        self._first.on_delete(obj)
        self._then.on_delete(obj)


class DeclaredResourceEvents:
    """A declared resource's changes: into its lister, then a cluster event for the queue
    (plugins that registered it get their rejected pods requeued)."""

    def __init__(
        self, spec: ResourceSpec, store: IndexedStore[ApiObject], queue: SchedulingQueue
    ) -> None:
        self._spec, self._store, self._queue = spec, store, queue

    def on_add(self, obj: ApiObject) -> None:
        self._store.on_add(obj)
        self._moved(ActionType.ADD, None, obj)

    def on_update(self, old: ApiObject, new: ApiObject) -> None:
        self._store.on_update(old, new)
        # Any real update, as upstream's handlers for custom resources (its hints decide).
        if old.resource_version != new.resource_version or old != new:
            self._moved(ActionType.UPDATE, old, new)

    def on_delete(self, obj: ApiObject) -> None:
        self._store.on_delete(obj)
        self._moved(ActionType.DELETE, obj, None)

    def _moved(self, action: ActionType, old: ApiObject | None, new: ApiObject | None) -> None:
        event = ClusterEvent(self._spec.event_resource, action)
        self._queue.move_all_to_active_or_backoff(event, old, new)


def declared_informers(
    api: WatchApi, listers: ClusterListers, queue: SchedulingQueue
) -> dict[str, Reflector[ApiObject]]:
    """One informer per declared resource, feeding its lister and the queue."""
    return {
        spec.event_resource: informer(
            api,
            spec.path,
            ApiObject.from_json,
            lambda obj: obj.key,
            handler=DeclaredResourceEvents(spec, listers.store(spec), queue),
        )
        for spec in listers.specs
    }


def feeding_informers(
    api: WatchApi,
    *,
    cache: SchedulerCache,
    queue: SchedulingQueue,
    scheduler_names: Container[str],
    pod_store: IndexedStore[Pod] | None = None,
    unscheduled_pod_events: bool = False,
    waiting_pods: WaitingPods | None = None,
    timer: EventTimer | None = None,
) -> tuple[Reflector[Pod], Reflector[Node]]:
    """The informers that feed the cache and the queue (made once the queue exists); pods
    also feed `pod_store`, the pod lister plugins read."""
    timing = {"timer": timer} if timer is not None else {}
    handler: Any = PodHandler(
        cache=cache,
        queue=queue,
        scheduler_names=scheduler_names,
        unscheduled_pod_events=unscheduled_pod_events,
        waiting_pods=waiting_pods,
        **timing,
    )
    if pod_store is not None:
        handler = Both(pod_store, handler)
    pods = informer(
        api,
        PODS_PATH,
        Pod.from_json,
        lambda pod: pod.key,
        handler=handler,
        field_selector=NON_TERMINAL_PODS,
    )
    nodes = informer(
        api,
        NODES_PATH,
        Node.from_json,
        lambda node: node.name,
        handler=NodeHandler(cache=cache, queue=queue, **timing),
    )
    return pods, nodes
