"""Informer events -> cache and queue, as kube-scheduler's `eventhandlers.go`.

* Bound pods (any scheduler) are counted in the cache: they use node capacity.
* Unbound pods whose `schedulerName` one of our profiles serves go to the queue; all other
  unbound pods are never touched.
* Every change is passed to the queue as upstream's cluster events with the old and new
  objects (`event_changes`), where the rejecting plugins' hints decide whom it may help.
A handler never raises: a bad object is logged and skipped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Container
from typing import TypeVar

from kubesched.cache import SchedulerCache
from kubesched.framework import ActionType, ClusterEvent, EventResource, WaitingPods
from kubesched.framework.logkv import kv
from kubesched.model import Node, Pod
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.event_changes import node_changes, pod_changes

log = logging.getLogger(__name__)

NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_DELETE = ClusterEvent(EventResource.NODE, ActionType.DELETE)
ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
UNSCHEDULED_POD_ADD = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD)
UNSCHEDULED_POD_UPDATE_LABEL = "UnscheduledPodUpdate"
UNSCHEDULED_POD_DELETE_LABEL = "UnscheduledPodDelete"

StorageMove = Callable[[ClusterEvent, object, object], None]
"""Applies a storage event (event, old, new) to the queue."""

EventTimer = Callable[[str, float], None]
"""Told (event label, seconds) per handled event (`scheduler_event_handling_duration_seconds`)."""

T = TypeVar("T")


def _guarded(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def wrap(handler: Callable[..., None]) -> Callable[..., None]:
        def guarded(*args: object) -> None:
            try:
                handler(*args)
            except Exception:
                log.exception("event handler failed", extra=kv(handler=what))

        return guarded

    return wrap


def _no_timer(_label: str, _seconds: float) -> None:
    return None


class NodeHandler:
    def __init__(
        self, *, cache: SchedulerCache, queue: SchedulingQueue, timer: EventTimer = _no_timer
    ) -> None:
        self._cache = cache
        self._queue = queue
        self._timer = timer

    @_guarded("node add")
    def on_add(self, node: Node) -> None:
        started = time.perf_counter()
        self._cache.add_node(node)
        self._queue.move_all_to_active_or_backoff(NODE_ADD, None, node)
        self._timer(NODE_ADD.label, time.perf_counter() - started)

    @_guarded("node update")
    def on_update(self, old: Node, new: Node) -> None:
        started = time.perf_counter()
        self._cache.update_node(new)
        for event in node_changes(old, new):
            self._queue.move_all_to_active_or_backoff(event, old, new)
            self._timer(event.label, time.perf_counter() - started)

    @_guarded("node delete")
    def on_delete(self, node: Node) -> None:
        started = time.perf_counter()
        self._queue.move_all_to_active_or_backoff(NODE_DELETE, node, None)
        self._cache.remove_node(node)
        self._timer(NODE_DELETE.label, time.perf_counter() - started)


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
        timer: EventTimer = _no_timer,
    ) -> None:
        self._cache = cache
        self._queue = queue
        self._ours = scheduler_names
        self._waiting = waiting_pods
        """Pods held at Permit: a deleted one is rejected at once, as upstream's
        `RejectWaitingPod` on delete, so its reservation is freed."""
        self._unscheduled_pod_events = unscheduled_pod_events
        """Some plugin registered UNSCHEDULED_POD_ADD (else it is not worth a queue scan)."""
        self._timer = timer

    def _pending_ours(self, pod: Pod) -> bool:
        return not pod.node_name and pod.scheduler_name in self._ours and not pod.terminal

    @_guarded("pod add")
    def on_add(self, pod: Pod) -> None:
        started = time.perf_counter()
        if pod.node_name:
            self._assigned_added(pod)
            self._timer(ASSIGNED_POD_ADD.label, time.perf_counter() - started)
        elif self._pending_ours(pod):
            self._queue.add(pod)
            if self._unscheduled_pod_events:
                self._queue.move_all_to_active_or_backoff(UNSCHEDULED_POD_ADD, None, pod)
            self._timer(UNSCHEDULED_POD_ADD.label, time.perf_counter() - started)

    def _assigned_added(self, pod: Pod) -> None:
        self._cache.add_pod(pod)
        self._queue.move_all_to_active_or_backoff(ASSIGNED_POD_ADD, None, pod)

    @_guarded("pod update")
    def on_update(self, old: Pod, new: Pod) -> None:
        started = time.perf_counter()
        if new.node_name:
            if not old.node_name:
                # Bound (by us or anyone): it leaves the queue and starts using capacity.
                if old.scheduler_name in self._ours:
                    self._queue.delete(old)
                self._assigned_added(new)
                self._timer(ASSIGNED_POD_ADD.label, time.perf_counter() - started)
                return
            self._cache.update_pod(old, new)
            for event in pod_changes(old, new):
                self._queue.move_all_to_active_or_backoff(event, old, new)
                self._timer(event.label, time.perf_counter() - started)
        elif self._pending_ours(new):
            self._pending_updated(old, new, started)
        elif self._pending_ours(old):
            self._queue.delete(old)

    def _pending_updated(self, old: Pod, new: Pod, started: float) -> None:
        if old.resource_version and old.resource_version == new.resource_version:
            return  # a resync of the same object
        if self._cache.is_assumed(new.uid):
            # As upstream: the pod is in its binding cycle. Its updates (a status patch,
            # such as the nominatedNodeName set while it waits at Permit or PreBind)
            # must not put it back in the queue nor its nomination in the nominator.
            self._queue.refresh_in_flight(new)
            if new.deleting and not old.deleting:
                self._assumed_pod_deleting(new)
            return
        self._queue.update(old, new, pod_changes(old, new, target=True))
        if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
            # The room the old nomination held for lower or equal priority pods is free.
            self._nomination_freed(old)
        self._timer(UNSCHEDULED_POD_UPDATE_LABEL, time.perf_counter() - started)

    def _assumed_pod_deleting(self, pod: Pod) -> None:
        """Upstream `handleAssumedPodDeletion`: a pod waiting at Permit is rejected (its
        binding cycle then cleans up); one already past it (PreBind, Bind) stops holding
        its assumed room now."""
        if self._waiting is not None and self._waiting.reject(pod.uid, "removed"):
            return
        self._cache.forget_pod(pod)  # by UID: uncounts the assumed copy, on its node

    @_guarded("pod delete")
    def on_delete(self, pod: Pod) -> None:
        started = time.perf_counter()
        if pod.node_name:
            self._cache.remove_pod(pod)
            self._queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, pod, None)
            self._timer(ASSIGNED_POD_DELETE.label, time.perf_counter() - started)
        elif pod.scheduler_name in self._ours:
            if self._waiting is not None:
                self._waiting.reject(pod.uid, "removed")
            self._queue.delete(pod)
            if pod.nominated_node_name:
                self._nomination_freed(pod)
            self._timer(UNSCHEDULED_POD_DELETE_LABEL, time.perf_counter() - started)

    def _nomination_freed(self, pod: Pod) -> None:
        priority = pod.priority
        self._queue.move_all_to_active_or_backoff(
            ASSIGNED_POD_DELETE, pod, None, pre_check=lambda other: other.priority <= priority
        )


class StorageHandler:
    """PVC, PV, StorageClass and CSI object changes: only cluster events for the queue (the
    volume plugins read the objects from the informers' stores)."""

    def __init__(self, *, resource: EventResource, move: StorageMove) -> None:
        self._resource = resource
        self._move_all = move
        """The queue's `move_all_to_active_or_backoff`."""

    def _move(self, action: ActionType, old: object, new: object) -> None:
        self._move_all(ClusterEvent(self._resource, action), old, new)

    @_guarded("storage add")
    def on_add(self, obj: object) -> None:
        self._move(ActionType.ADD, None, obj)

    @_guarded("storage update")
    def on_update(self, old: object, new: object) -> None:
        if old != new:
            self._move(ActionType.UPDATE, old, new)

    @_guarded("storage delete")
    def on_delete(self, obj: object) -> None:
        self._move(ActionType.DELETE, obj, None)
