"""The scheduling queue: activeQ, backoffQ, the unschedulable pool and the gated pods.

    add/update ──PreEnqueue──┬─ gated (not tried; re-checked on pod update / events)
                             └─> activeQ ──pop()──> in flight ──done()
                                   ^                   │ failed attempt
         backoff over (1 s flush)  │                   v
                  backoffQ <───────┼──── move request during the cycle, or an error
                      ^            │                   │ rejected by plugins
                      │ still      │ backoff over      v
                      └ backing ───┴──────────── unschedulable pool
                        off         cluster event (worth requeuing) or 5 min leftover

Semantics follow kube-scheduler's PriorityQueue without queueing hints: a pod that failed
while a move request (a cluster event) arrived during its cycle goes to backoffQ instead
of the unschedulable pool (`move_request_cycle`). Single asyncio event loop; no locking.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable

from kubesched.model import Pod
from kubesched.queue.nominator import Nominator
from kubesched.queue.pools import QueuePools
from kubesched.queue.types import (
    ASSIGNED_POD_ADD_EVENT,
    ASSIGNED_POD_DELETE_EVENT,
    ASSIGNED_POD_UPDATE_EVENT,
    BACKOFF_COMPLETE,
    FORCE_ACTIVATE,
    SCHEDULE_ATTEMPT_FAILURE,
    UNSCHEDULABLE_TIMEOUT,
    UNSCHEDULED_POD_ADD,
    UNSCHEDULED_POD_UPDATE,
    IncomingHook,
    LessFunc,
    PodCheck,
    PreEnqueueFunc,
    QueuedPodInfo,
    WorthRequeuingFunc,
    always_worth_requeuing,
    event_label,
    spec_changed,
)

BACKOFF_FLUSH_PERIOD = 1.0
UNSCHEDULABLE_FLUSH_PERIOD = 30.0


class SchedulingQueue:
    """Pending pods of one scheduler, in the order and at the pace kube-scheduler tries them."""

    def __init__(
        self,
        *,
        less: LessFunc,
        pre_enqueue: PreEnqueueFunc | None = None,
        is_worth_requeuing: WorthRequeuingFunc = always_worth_requeuing,
        clock: Callable[[], float] = time.monotonic,
        pod_initial_backoff_seconds: float = 1.0,
        pod_max_backoff_seconds: float = 10.0,
        pod_max_in_unschedulable_pods_seconds: float = 300.0,
        on_incoming: IncomingHook | None = None,
        nominator: Nominator | None = None,
    ) -> None:
        self._clock = clock
        self._worth = is_worth_requeuing
        self._max_unschedulable = pod_max_in_unschedulable_pods_seconds
        self._pools = QueuePools(
            less=less,
            clock=clock,
            initial_backoff=pod_initial_backoff_seconds,
            max_backoff=pod_max_backoff_seconds,
            pre_enqueue=pre_enqueue,
            on_incoming=on_incoming,
        )
        self._active = self._pools.active
        self._move_request_cycle = -1
        self._moved_in_flight: set[str] = set()
        self._deleted_in_flight: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self.nominator = nominator if nominator is not None else Nominator()
        """Nominated node name -> pods, shared with the preemption executor."""

    # ---- pods from the informer ----------------------------------------------------------

    def add(self, pod: Pod) -> None:
        """A new pending pod; a pod the queue already holds is treated as an update."""
        known = self._pools.get(pod.uid)
        if known is not None:
            self.update(known.pod, pod)
            return
        qpi = QueuedPodInfo(pod=pod, timestamp=self._clock())
        self._pools.to_active(qpi, event=UNSCHEDULED_POD_ADD)
        self.nominator.add(pod)

    def update(self, old: Pod, new: Pod) -> None:
        """A pending pod changed; a meaningful change frees it from the unschedulable pool."""
        uid, pools = new.uid, self._pools
        self.nominator.update(old, new)
        if (qpi := self._active.in_flight.get(uid)) is not None:
            if spec_changed(old, new):
                self._moved_in_flight.add(uid)
            qpi.pod = new
        elif (qpi := self._active.get(uid)) is not None:
            qpi.pod = new
            self._active.add(qpi)
        elif (qpi := pools.backoff.get(uid)) is not None:
            qpi.pod = new
        elif (qpi := pools.gated.get(uid)) is not None:
            qpi.pod = new
            pools.to_active(qpi, event=UNSCHEDULED_POD_UPDATE)
        elif (qpi := pools.unschedulable.get(uid)) is not None:
            qpi.pod = new
            if spec_changed(old, new):
                pools.requeue(qpi, event=UNSCHEDULED_POD_UPDATE)
        else:
            self.add(new)

    def delete(self, pod: Pod) -> None:
        """The pod is gone (or bound): drop it from every sub-queue and the nominator."""
        self.nominator.delete(pod.uid)
        self._pools.remove(pod.uid)
        if pod.uid in self._active.in_flight:
            self._deleted_in_flight.add(pod.uid)

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move the given waiting pods to activeQ now; in-flight ones go to backoffQ after."""
        pools = self._pools
        for pod in pods:
            if pod.uid in self._active.in_flight:
                self._moved_in_flight.add(pod.uid)
                continue
            qpi = pools.unschedulable.get(pod.uid) or pools.backoff.get(pod.uid)
            qpi = qpi or pools.gated.get(pod.uid)
            if qpi is not None:
                pools.to_active(qpi, event=FORCE_ACTIVATE)

    # ---- cluster events -----------------------------------------------------------------

    def move_all_to_active_or_backoff(
        self, event: object, *, pre_check: PodCheck | None = None
    ) -> None:
        """A cluster event may have made waiting pods schedulable: requeue those it may help."""
        candidates = [*self._pools.unschedulable.values(), *self._pools.gated.values()]
        if pre_check is not None:
            candidates = [qpi for qpi in candidates if pre_check(qpi.pod)]
        self._move_pods(candidates, event=event)

    def assigned_pod_added(
        self, pod: Pod, *, event: object = ASSIGNED_POD_ADD_EVENT, pre_check: PodCheck | None = None
    ) -> None:
        """A bound pod appeared; `pre_check` can narrow to pods whose affinity it matches."""
        del pod  # a caller's pre_check closes over the pod when it needs it
        self.move_all_to_active_or_backoff(event, pre_check=pre_check)

    def assigned_pod_updated(
        self,
        old: Pod,
        new: Pod,
        *,
        event: object = ASSIGNED_POD_UPDATE_EVENT,
        pre_check: PodCheck | None = None,
    ) -> None:
        """A bound pod changed (labels, or it scaled down)."""
        del old, new
        self.move_all_to_active_or_backoff(event, pre_check=pre_check)

    def assigned_pod_deleted(self, pod: Pod, *, event: object = ASSIGNED_POD_DELETE_EVENT) -> None:
        """A bound pod went away and freed room on its node."""
        del pod
        self.move_all_to_active_or_backoff(event)

    # ---- the scheduling loop ------------------------------------------------------------

    async def pop(self) -> QueuedPodInfo | None:
        """The next pod to try (waits for one); None once the queue is closed."""
        return await self._active.pop()

    def take_members(self, member: PodCheck) -> list[QueuedPodInfo]:
        """Take the waiting pods `member` selects out of activeQ, backoffQ and the
        unschedulable pool (not the gated ones) into flight, as one pop: a pod group's
        siblings, tried in the same cycle as the member just popped."""
        pools, taken = self._pools, []
        waiting = [*pools.active.items(), *pools.backoff.items(), *pools.unschedulable.values()]
        for qpi in waiting:
            if member(qpi.pod) and qpi.uid not in self._active.in_flight:
                pools.remove(qpi.uid)
                self._active.take(qpi)
                taken.append(qpi)
        return taken

    @property
    def scheduling_cycle(self) -> int:
        """Number of the latest pop; pass it back to `add_unschedulable_if_not_present`."""
        return self._active.scheduling_cycle

    def done(self, uid: str) -> None:
        """The attempt for `uid` is over (bound, requeued or dropped)."""
        self._active.done(uid)
        self._moved_in_flight.discard(uid)
        self._deleted_in_flight.discard(uid)

    def add_unschedulable_if_not_present(
        self, qpi: QueuedPodInfo, *, pod_scheduling_cycle: int
    ) -> bool:
        """Requeue a pod whose attempt failed; calls `done`. False if it was not requeued.

        No rejecting plugin (an error), a cluster event since the cycle started, or an
        update of the pod itself during the attempt sends it to backoffQ; otherwise it
        waits in the unschedulable pool for an event. Pods deleted meanwhile are dropped.
        """
        uid = qpi.uid
        moved = uid in self._moved_in_flight or self._move_request_cycle >= pod_scheduling_cycle
        deleted = uid in self._deleted_in_flight
        self.done(uid)
        if deleted or self._pools.holds(uid):
            return False
        qpi.timestamp = self._clock()
        if moved or not (qpi.unschedulable_plugins or qpi.pending_plugins):
            self._pools.to_backoff(qpi, event=SCHEDULE_ATTEMPT_FAILURE)
        else:
            self._pools.to_unschedulable(qpi, event=SCHEDULE_ATTEMPT_FAILURE)
        return True

    def requeue_after_error(self, qpi: QueuedPodInfo, *, pod_scheduling_cycle: int) -> bool:
        """Requeue a pod whose attempt failed with an error (not a rejection): backoffQ."""
        qpi.unschedulable_plugins.clear()
        qpi.pending_plugins.clear()
        return self.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=pod_scheduling_cycle)

    # ---- periodic flushes -----------------------------------------------------------------

    def flush_backoff_completed(self) -> None:
        """Move every pod whose backoff has ended to activeQ (every second)."""
        for qpi in self._pools.backoff.pop_completed():
            self._pools.to_active(qpi, event=BACKOFF_COMPLETE)

    def flush_unschedulable_left_over(self) -> None:
        """Requeue pods that sat in the unschedulable pool too long (every 30 seconds)."""
        now = self._clock()
        pool = self._pools.unschedulable.values()
        stale = [qpi for qpi in pool if now - qpi.timestamp > self._max_unschedulable]
        self._move_pods(stale, event=UNSCHEDULABLE_TIMEOUT, force=True)

    def start(self) -> None:
        """Start both flush loops on the running event loop; `close()` stops them."""
        self._tasks = [
            asyncio.create_task(_every(BACKOFF_FLUSH_PERIOD, self.flush_backoff_completed)),
            asyncio.create_task(
                _every(UNSCHEDULABLE_FLUSH_PERIOD, self.flush_unschedulable_left_over)
            ),
        ]

    async def run(self) -> None:
        """Run the flush loops until `close()` (instead of `start()`)."""
        self.start()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._tasks)

    def close(self) -> None:
        """Stop the flush loops; every waiting and later `pop()` returns None."""
        for task in self._tasks:
            task.cancel()
        self._active.close()

    # ---- introspection ------------------------------------------------------------------

    def activate_held(self, uid: str, *, gated_by: str, force: bool = False) -> None:
        """Activate a waiting pod that PreEnqueue plugin `gated_by` held (any, with `force`)."""
        qpi = self.get(uid)
        if qpi is not None and (force or qpi.gating_plugin == gated_by):
            self.activate([qpi.pod])

    def get(self, uid: str) -> QueuedPodInfo | None:
        """The waiting or in-flight entry of a pod."""
        return self._pools.get(uid)

    def pending_counts(self) -> dict[str, int]:
        """Pods per sub-queue (active/backoff/unschedulable/gated) for `scheduler_pending_pods`."""
        return self._pools.counts()

    def pending_pods(self) -> dict[str, list[QueuedPodInfo]]:
        """Every waiting pod by sub-queue (debugging; O(n))."""
        return self._pools.listing()

    def in_flight_pods(self) -> list[Pod]:
        return [qpi.pod for qpi in self._active.in_flight.values()]

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return self.nominator.pods_for_node(node_name)

    # ---- internals ----------------------------------------------------------------------

    def _move_pods(self, pods: list[QueuedPodInfo], *, event: object, force: bool = False) -> None:
        label = event_label(event)
        for qpi in pods:
            if force or self._is_worth(qpi, event):
                self._pools.requeue(qpi, event=label)
        self._move_request_cycle = self._active.scheduling_cycle

    def _is_worth(self, qpi: QueuedPodInfo, event: object) -> bool:
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            return True
        return self._worth(qpi, event)


async def _every(period: float, flush: Callable[[], None]) -> None:
    while True:
        await asyncio.sleep(period)
        flush()
