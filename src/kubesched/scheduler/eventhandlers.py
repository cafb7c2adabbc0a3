"""Informer events -> cache and queue, as kube-scheduler's `eventhandlers.go`.

* Bound pods (any scheduler) are counted in the cache: they use node capacity.
* Unbound pods whose `schedulerName` one of our profiles serves go to the queue; all other
  unbound pods are never touched.
* Changes that can make a pending pod schedulable (node added, node labels/taints/
  allocatable changed, a bound pod deleted, ...) are passed to the queue as cluster events.
A handler never raises: a bad object is logged and skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container
from typing import TypeVar

from kubesched.cache import SchedulerCache
from kubesched.framework import ActionType, ClusterEvent, EventResource, WaitingPods
from kubesched.model import Node, Pod
from kubesched.queue import SchedulingQueue

log = logging.getLogger(__name__)

NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
POD_ADD = ClusterEvent(EventResource.POD, ActionType.ADD)
POD_DELETE = ClusterEvent(EventResource.POD, ActionType.DELETE)
UNSCHEDULED_POD_ADD = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD)

T = TypeVar("T")


def _guarded(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def wrap(handler: Callable[..., None]) -> Callable[..., None]:
        def guarded(*args: object) -> None:
            try:
                handler(*args)
            except Exception:
                log.exception('"event handler failed" handler="%s"', what)

        return guarded

    return wrap


def node_update_action(old: Node, new: Node) -> ActionType:
    """Which scheduling-relevant parts of a node changed (NONE for heartbeats)."""
    action = ActionType.NONE
    if old.allocatable != new.allocatable:
        action |= ActionType.UPDATE_NODE_ALLOCATABLE
    if old.labels != new.labels:
        action |= ActionType.UPDATE_NODE_LABEL
    if old.taints != new.taints or old.unschedulable != new.unschedulable:
        action |= ActionType.UPDATE_NODE_TAINT
    if old.declared_features != new.declared_features:
        action |= ActionType.UPDATE_NODE_DECLARED_FEATURE
    return action


def pod_update_action(old: Pod, new: Pod) -> ActionType:
    """Which parts of a bound pod changed that may let other pods in."""
    action = ActionType.NONE
    if old.labels != new.labels:
        action |= ActionType.UPDATE_POD_LABEL
    if new.requests.milli_cpu < old.requests.milli_cpu or new.requests.memory < old.requests.memory:
        action |= ActionType.UPDATE_POD_SCALE_DOWN
    return action


class NodeHandler:
    def __init__(self, *, cache: SchedulerCache, queue: SchedulingQueue) -> None:
        self._cache = cache
        self._queue = queue

    @_guarded("node add")
    def on_add(self, node: Node) -> None:
        self._cache.add_node(node)
        self._queue.move_all_to_active_or_backoff(NODE_ADD)

    @_guarded("node update")
    def on_update(self, old: Node, new: Node) -> None:
        self._cache.update_node(new)
        action = node_update_action(old, new)
        if action:
            self._queue.move_all_to_active_or_backoff(ClusterEvent(EventResource.NODE, action))

    @_guarded("node delete")
    def on_delete(self, node: Node) -> None:
        self._cache.remove_node(node)


class PodHandler:
    """Splits pod events between the cache (bound pods) and the queue (our pending pods)."""

    def __init__(
        self,
        *,
        cache: SchedulerCache,
        queue: SchedulingQueue,
        scheduler_names: Container[str],
        unscheduled_pod_events: bool = False,
        waiting_pods: WaitingPods | None = None,
    ) -> None:
        self._cache = cache
        self._queue = queue
        self._ours = scheduler_names
        self._waiting = waiting_pods
        """Pods held at Permit: a deleted one is rejected at once, as upstream's
        `RejectWaitingPod` on delete, so its reservation is freed."""
        self._unscheduled_pod_events = unscheduled_pod_events
        """Some plugin registered UNSCHEDULED_POD_ADD (else it is not worth a queue scan)."""

    def _pending_ours(self, pod: Pod) -> bool:
        return not pod.node_name and pod.scheduler_name in self._ours and not pod.terminal

    @_guarded("pod add")
    def on_add(self, pod: Pod) -> None:
        if pod.node_name:
            self._cache.add_pod(pod)
            self._queue.assigned_pod_added(pod, event=POD_ADD)
        elif self._pending_ours(pod):
            self._queue.add(pod)
            if self._unscheduled_pod_events:
                self._queue.move_all_to_active_or_backoff(UNSCHEDULED_POD_ADD)

    @_guarded("pod update")
    def on_update(self, old: Pod, new: Pod) -> None:
        if new.node_name:
            if not old.node_name:
                # Bound (by us or anyone): it leaves the queue and starts using capacity.
                if old.scheduler_name in self._ours:
                    self._queue.delete(old)
                self._cache.add_pod(new)
                self._queue.assigned_pod_added(new, event=POD_ADD)
                return
            self._cache.update_pod(old, new)
            action = pod_update_action(old, new)
            if action:
                event = ClusterEvent(EventResource.POD, action)
                self._queue.assigned_pod_updated(old, new, event=event)
        elif self._pending_ours(new):
            self._queue.update(old, new)
        elif self._pending_ours(old):
            self._queue.delete(old)

    @_guarded("pod delete")
    def on_delete(self, pod: Pod) -> None:
        if pod.node_name:
            self._cache.remove_pod(pod)
            self._queue.assigned_pod_deleted(pod, event=POD_DELETE)
        elif pod.scheduler_name in self._ours:
            if self._waiting is not None:
                self._waiting.reject(pod.uid, "removed")
            self._queue.delete(pod)


class StorageHandler:
    """PVC, PV, StorageClass and CSI object changes: only cluster events for the queue (the
    volume plugins read the objects from the informers' stores)."""

    def __init__(self, *, resource: EventResource, move: Callable[[ClusterEvent], None]) -> None:
        self._resource = resource
        self._move_all = move
        """The queue's `move_all_to_active_or_backoff`."""

    def _move(self, action: ActionType) -> None:
        self._move_all(ClusterEvent(self._resource, action))

    @_guarded("storage add")
    def on_add(self, _obj: object) -> None:
        self._move(ActionType.ADD)

    @_guarded("storage update")
    def on_update(self, old: object, new: object) -> None:
        if old != new:
            self._move(ActionType.UPDATE)

    @_guarded("storage delete")
    def on_delete(self, _obj: object) -> None:
        self._move(ActionType.DELETE)
