"""The informers one kubesched process runs, made by one helper.

Pods (non-terminal only, as kube-scheduler) and nodes feed the cache and the queue. Every
resource an enabled plugin declares (`kubesched.framework.resources`) gets one informer
feeding its lister: the namespaces (InterPodAffinity), the Services and workload controllers
(PodTopologySpread's default spreading), the PodDisruptionBudgets (DefaultPreemption), a
plugin's custom resources. Its changes are cluster events for the queue only when a plugin
registered events about that resource (upstream, likewise, watches a resource for the queue
only when a plugin registered it: no plugin requeues pods on namespace, Service, controller or
PDB changes).
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
from kubesched.informers import IgnoreEvents, Reflector
from kubesched.informers.health import InformerHealth
from kubesched.informers.process import InformerProcess
from kubesched.informers.remote import RemoteReflector
from kubesched.kube.api import WatchApi
from kubesched.model import ApiObject, Node, Pod
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.eventhandlers import EventTimer, NodeHandler, PodHandler

# Pods that finished hold no resources; like kube-scheduler, do not even list them.
NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed"
PODS_PATH = "/api/v1/pods"
NODES_PATH = "/api/v1/nodes"


class _Versioned(Protocol):
    @property
    def resource_version(self) -> str: ...


T = TypeVar("T", bound=_Versioned)


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


@dataclass(frozen=True)
class Informers:
    """The process's informers; `volumes` (resource -> informer) empty when no profile
    enables a volume plugin."""

    pods: Reflector[Pod]
    nodes: Reflector[Node]
    declared: Mapping[str, Reflector[ApiObject]] = field(default_factory=dict)
    """One per resource plugins declared, by `ResourceSpec.event_resource`."""
    volumes: Mapping[str, Reflector[Any]] = field(default_factory=dict)

    def named(self) -> dict[str, Reflector[Any]]:
        """Resource name -> informer, for every informer that runs."""
        named: dict[str, Reflector[Any]] = {"nodes": self.nodes, "pods": self.pods}
        named.update(self.declared)
        named.update(self.volumes)
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
    api: WatchApi,
    listers: ClusterListers,
    queue: SchedulingQueue,
    *,
    evented: Container[str] = (),
) -> dict[str, Reflector[ApiObject]]:
    """One informer per declared resource, feeding its lister, and the queue when its
    `event_resource` is `evented` (a plugin registered events about it)."""
    return {
        spec.event_resource: _declared(api, spec, listers, queue, evented) for spec in listers.specs
    }


def _declared(
    api: WatchApi,
    spec: ResourceSpec,
    listers: ClusterListers,
    queue: SchedulingQueue,
    evented: Container[str],
) -> Reflector[ApiObject]:
    store = listers.store(spec)
    handler = (
        DeclaredResourceEvents(spec, store, queue) if spec.event_resource in evented else store
    )

    def decode(obj: dict[str, Any]) -> ApiObject:
        return ApiObject.from_json(obj, keep=spec.keep)

    return informer(api, spec.path, decode, lambda obj: obj.key, handler=handler)


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
    observe: Any = None,
    remote: InformerProcess | None = None,
) -> tuple[Reflector[Pod], Reflector[Node]]:
    """The informers that feed the cache and the queue (made once the queue exists); pods
    also feed `pod_store`, the pod lister plugins read. `observe` (shadow mode's
    `ShadowScheduler`) sees each pod event before the store, the cache and the queue.
    With `remote`, the informer process lists, watches and decodes them."""
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
    if observe is not None:
        handler = Both(observe, handler)
    node_handler = NodeHandler(cache=cache, queue=queue, **timing)
    if remote is not None:
        return _remote(remote, handler, node_handler)
    pods = informer(
        api,
        PODS_PATH,
        Pod.from_json,
        lambda pod: pod.key,
        handler=handler,
        field_selector=NON_TERMINAL_PODS,
    )
    nodes = informer(api, NODES_PATH, Node.from_json, lambda node: node.name, handler=node_handler)
    return pods, nodes


def _remote(
    process: InformerProcess, pod_handler: Any, node_handler: NodeHandler
) -> tuple[Reflector[Pod], Reflector[Node]]:
    """The pod and node informers fed by the informer process (the child lists, watches,
    decodes and parses; `kubesched.server.informer_child` names these kinds)."""
    pods: RemoteReflector[Pod] = RemoteReflector(
        path=PODS_PATH,
        key=lambda pod: pod.key,
        version=lambda pod: pod.resource_version,
        handler=pod_handler,
    )
    nodes: RemoteReflector[Node] = RemoteReflector(
        path=NODES_PATH,
        key=lambda node: node.name,
        version=lambda node: node.resource_version,
        handler=node_handler,
    )
    process.register(pods, kind="pods", field_selector=NON_TERMINAL_PODS)
    process.register(nodes, kind="nodes", field_selector="")
    return pods, nodes
