"""The scheduling queue: activeQ, backoffQ, the unschedulable pool and the gated pods.

    add/update ──PreEnqueue──┬─ gated (not tried; re-checked on pod update / events)
                             └─> activeQ ──pop()──> in flight ──done()
                                   ^                   │ failed attempt
         backoff over (1 s flush)  │                   v
                  backoffQ <───────┼──── a hint queued an event of the cycle, or an error
                      ^            │                   │ rejected by plugins
                      │ still      │ backoff over      v
                      └ backing ───┴──────────── unschedulable pool
                        off         cluster event a hint queues, or 5 min leftover

Semantics follow kube-scheduler's PriorityQueue with queueing hints: a cluster event moves
a rejected pod only when a hint of a plugin that rejected it says QUEUE (`RequeueFunc`, the
profiles' `runtime.queueing`), after its backoff or, for a plugin that said Pending, at once;
events that arrive while a pod is in flight are kept (`inflight`) and asked about when it
comes back rejected. Single asyncio event loop; no locking.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kubesched.framework.events import FORCE_ACTIVATE_EVENT, UNSCHEDULABLE_TIMEOUT_EVENT
from kubesched.model import Pod
from kubesched.queue.added_index import AddNarrowing
from kubesched.queue.fair import FairOrder
from kubesched.queue.flush_loop import every
from kubesched.queue.gated import GateHears
from kubesched.queue.inflight import InFlightEvents
from kubesched.queue.nominator import Nominator
from kubesched.queue.pod_groups import GroupKey, GroupOf, PodGroupQueueing
from kubesched.queue.pools import QueuePools
from kubesched.queue.types import (
    FORCE_ACTIVATE,
    SCHEDULE_ATTEMPT_FAILURE,
    UNSCHEDULED_POD_ADD,
    UNSCHEDULED_POD_UPDATE,
    IncomingHook,
    InterestFunc,
    LessFunc,
    PodCheck,
    PreEnqueueFunc,
    QueuedPodInfo,
    QueueingStrategy,
    RequeueFunc,
    always_after_backoff,
    always_interested,
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
        requeue_strategy: RequeueFunc = always_after_backoff,
        interested: InterestFunc = always_interested,
        clock: Callable[[], float] = time.monotonic,
        pod_initial_backoff_seconds: float = 1.0,
        pod_max_backoff_seconds: float = 10.0,
        pod_max_in_unschedulable_pods_seconds: float = 300.0,
        pop_from_backoff: bool = True,
        on_incoming: IncomingHook | None = None,
        nominator: Nominator | None = None,
        gate_hears: GateHears | None = None,
        fair: FairOrder | None = None,
        narrowing: AddNarrowing | None = None,
    ) -> None:
        """`gate_hears`: which gates' pods an event is offered to (`queue.gated`); `fair`:
        activeQ pops fairly across groups (`queue.fair`), else in `less` order alone;
        `narrowing`: which unschedulable pods an add event is offered to
        (`queue.added_index`), else all."""
        self._gate_hears = gate_hears
        self._clock = clock
        self._strategy = requeue_strategy
        self._interested = interested
        self._max_unschedulable = pod_max_in_unschedulable_pods_seconds
        self._pools = QueuePools(
            less=less,
            clock=clock,
            initial_backoff=pod_initial_backoff_seconds,
            max_backoff=pod_max_backoff_seconds,
            pre_enqueue=pre_enqueue,
            on_incoming=on_incoming,
            pop_from_backoff=pop_from_backoff,
            fair=fair,
            narrowing=narrowing,
        )
        self._active = self._pools.active
        self.inflight = InFlightEvents()
        """Pods in flight and the events since the oldest (`scheduler_inflight_events`)."""
        self._deleted_in_flight: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self.nominator = nominator if nominator is not None else Nominator()
        """Nominated node name -> pods, shared with the preemption executor."""
        self._groups: PodGroupQueueing | None = None

    def enable_pod_groups(self, group_of: GroupOf, *, rescan: bool = False) -> None:
        """Queue the members of a native pod group as one unit (`GenericWorkload`);
        `group_of` names a pod's group (`rescan`: it may change while the pod waits, see
        `PodGroupQueueing`). Without it, every pod is queued on its own."""
        self._groups = PodGroupQueueing(self._pools, group_of, rescan=rescan)

    # ---- pods from the informer ----------------------------------------------------------

    def add(self, pod: Pod) -> None:
        """A new pending pod; a pod the queue already holds is treated as an update."""
        known = self.get(pod.uid)
        if known is not None:
            self.update(known.pod, pod)
            return
        qpi = QueuedPodInfo(pod=pod, timestamp=self._clock())
        if self._groups is None or not self._groups.added(qpi):
            self._pools.to_active(qpi, event=UNSCHEDULED_POD_ADD)
        self.nominator.add(pod)

    def update(self, old: Pod, new: Pod, events: Sequence[object] = ()) -> None:
        """A pending pod changed; `events` say how (upstream `PodSchedulingPropertiesChange`
        for the pod itself, TargetPod events). A rejected pod leaves the unschedulable pool
        when a hint says one of them may help; without `events`, a spec change moves it."""
        uid, pools = new.uid, self._pools
        self.nominator.update(old, new)
        if (qpi := self._active.in_flight.get(uid)) is not None:
            self.inflight.record_for(uid, list(events) or [UNSCHEDULED_POD_UPDATE], old, new)
            qpi.pod = new
        elif (qpi := self._active.get(uid)) is not None:
            qpi.pod = new
            self._active.add(qpi)
        elif (qpi := pools.backoff.get(uid)) is not None:
            qpi.pod = new
        elif (qpi := pools.gated.get(uid) or pools.unschedulable.get(uid)) is not None:
            qpi.pod = new
            pools.pod_replaced(qpi)
            self._pod_updated(qpi, old, new, events)
        elif self._groups is not None and (qpi := self._groups.get(uid)) is not None:
            qpi.pod = new
        else:
            self.add(new)

    def _pod_updated(
        self, qpi: QueuedPodInfo, old: Pod, new: Pod, events: Sequence[object]
    ) -> None:
        if not events:
            if qpi.gated or spec_changed(old, new):
                self._pools.requeue(qpi, event=UNSCHEDULED_POD_UPDATE)
            return
        for event in events:
            strategy = self._strategy(qpi, event, old, new)
            if strategy is not QueueingStrategy.SKIP:
                self._requeue(qpi, strategy, event=event_label(event))
                return

    def refresh_in_flight(self, pod: Pod) -> None:
        """Keep the latest object of a pod in flight whose update reaches no pool (it is
        assumed, as upstream skips those), so that a failure report compares its conditions
        with what the API holds (upstream reads the pod from the informer at that point)."""
        if (qpi := self._active.in_flight.get(pod.uid)) is not None:
            qpi.pod = pod

    def delete(self, pod: Pod) -> None:
        """The pod is gone (or bound): drop it from every sub-queue and the nominator."""
        self.nominator.delete(pod.uid)
        self._pools.remove(pod.uid)
        if self._groups is not None:
            self._groups.removed(pod)
        if pod.uid in self._active.in_flight:
            self._deleted_in_flight.add(pod.uid)

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move the given waiting pods to activeQ now; in-flight ones go to backoffQ after."""
        pools = self._pools
        for pod in pods:
            if pod.uid in self._active.in_flight:
                self.inflight.record_for(pod.uid, [FORCE_ACTIVATE_EVENT], None, pod)
                continue
            qpi = pools.unschedulable.get(pod.uid) or pools.backoff.get(pod.uid)
            qpi = qpi or pools.gated.get(pod.uid)
            if qpi is not None:
                pools.to_active(qpi, event=FORCE_ACTIVATE)

    # ---- cluster events -----------------------------------------------------------------

    def move_all_to_active_or_backoff(
        self,
        event: object,
        old: Any = None,
        new: Any = None,
        *,
        pre_check: PodCheck | None = None,
    ) -> None:
        """A cluster event (`old`/`new`: its objects) may have made waiting pods
        schedulable: requeue those a rejecting plugin's hint says it may help."""
        if not self._interested(event):
            return
        gated = self._pools.gated
        hearing = (
            gated.values() if self._gate_hears is None else gated.hearing(event, self._gate_hears)
        )
        candidates = [*self._unschedulable_for(event, old, new), *hearing]
        if pre_check is not None:
            candidates = [qpi for qpi in candidates if pre_check(qpi.pod)]
        self._move_pods(candidates, event, old, new)

    def _unschedulable_for(self, event: object, old: Any, new: Any) -> Iterable[QueuedPodInfo]:
        """The unschedulable pods an event is offered to: all, or for an add the index
        covers, those whose hints may say QUEUE (in the pool's order either way)."""
        pool = self._pools.unschedulable
        index = self._pools.added_index
        uids = None if index is None else index.candidates(event, old, new)
        return pool.values() if uids is None else [pool[uid] for uid in uids]

    # ---- the scheduling loop ------------------------------------------------------------

    async def pop(self) -> QueuedPodInfo | None:
        """The next pod to try (waits for one); None once the queue is closed."""
        qpi = await self._active.pop()
        if qpi is not None:
            self.inflight.popped(qpi.uid)
        return qpi

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
                self.inflight.popped(qpi.uid)
                taken.append(qpi)
        return taken

    def take_group(self, first: QueuedPodInfo) -> list[QueuedPodInfo]:
        """`first`'s pod group is popped as one: its waiting siblings, taken into flight;
        call `group_attempted` once the group's cycle is over."""
        if self._groups is None:
            pod = first.pod
            return self.take_members(
                lambda other: (
                    other.namespace == pod.namespace and other.pod_group_name == pod.pod_group_name
                )
            )
        taken = self._groups.take(first)
        for qpi in taken:
            self.inflight.popped(qpi.uid)
        return taken

    def group_attempted(self, key: GroupKey, outcome: str) -> None:
        """The cycle of pod group `key` (namespace, name) ended with `outcome`
        (`pod_groups.SUCCESS`, `REJECTED`, `ERROR` or `MISSING`): its members that came
        back go to activeQ or wait out the group's backoff together."""
        if self._groups is not None:
            self._groups.attempted(key, outcome)

    @property
    def scheduling_cycle(self) -> int:
        """Number of the latest pop; pass it back to `add_unschedulable_if_not_present`."""
        return self._active.scheduling_cycle

    def done(self, uid: str) -> None:
        """The attempt for `uid` is over (bound, requeued or dropped)."""
        self._active.done(uid)
        self.inflight.done(uid)
        self._deleted_in_flight.discard(uid)

    def add_unschedulable_if_not_present(
        self, qpi: QueuedPodInfo, *, pod_scheduling_cycle: int
    ) -> bool:
        """Requeue a pod whose attempt failed; calls `done`. False if it was not requeued.

        No rejecting plugin (an error) sends it to backoffQ; otherwise the events recorded
        while it was in flight are asked about (a hint that says QUEUE sends it back to
        backoffQ, or activeQ for a Pending plugin), else it waits in the unschedulable pool.
        Pods deleted meanwhile are dropped.
        """
        del pod_scheduling_cycle  # the recorded events say what happened meanwhile
        uid = qpi.uid
        if uid in self._deleted_in_flight or self._pools.holds(uid):
            self.done(uid)
            return False
        if qpi.unschedulable_plugins or qpi.pending_plugins:
            qpi.unschedulable_count += 1
            qpi.consecutive_errors_count = 0
        else:
            qpi.consecutive_errors_count += 1
        qpi.timestamp = self._clock()
        qpi.backoff_expiration = None
        qpi.flush_timestamp = None
        strategy = self._in_flight_strategy(qpi)
        self.done(uid)
        groups = self._groups
        if groups is not None and (groups.parked(qpi) or groups.rejoined(qpi)):
            return True
        self._requeue(qpi, strategy, event=SCHEDULE_ATTEMPT_FAILURE)
        return True

    def _in_flight_strategy(self, qpi: QueuedPodInfo) -> QueueingStrategy:
        """Upstream `determineSchedulingHintForInFlightPod`."""
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            return QueueingStrategy.AFTER_BACKOFF
        found = QueueingStrategy.SKIP
        for recorded in self.inflight.since_popped(qpi.uid):
            strategy = self._strategy(qpi, recorded.event, recorded.old, recorded.new)
            if strategy is QueueingStrategy.IMMEDIATELY:
                return strategy
            if strategy is QueueingStrategy.AFTER_BACKOFF:
                found = strategy
                if not qpi.pending_plugins:
                    return found
        return found

    def requeue_after_error(self, qpi: QueuedPodInfo, *, pod_scheduling_cycle: int) -> bool:
        """Requeue a pod whose attempt failed with an error (not a rejection): backoffQ."""
        qpi.unschedulable_plugins.clear()
        qpi.pending_plugins.clear()
        return self.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=pod_scheduling_cycle)

    # ---- periodic flushes -----------------------------------------------------------------

    def flush_backoff_completed(self) -> None:
        """Move every pod whose backoff has ended to activeQ (every second)."""
        self._pools.from_backoff_completed()

    def flush_unschedulable_left_over(self) -> None:
        """Requeue pods that sat in the unschedulable pool (or gated) too long (every 30 s)."""
        now, stale = self._clock(), []
        for qpi in [*self._pools.unschedulable.values(), *self._pools.gated.values()]:
            since = max(qpi.timestamp, qpi.flush_timestamp or qpi.timestamp)
            if now - since > self._max_unschedulable:
                qpi.flush_timestamp = now
                stale.append(qpi)
        if stale:
            self._move_pods(stale, UNSCHEDULABLE_TIMEOUT_EVENT, None, None)

    def start(self) -> None:
        """Start both flush loops on the running event loop; `close()` stops them."""
        self._tasks = [
            asyncio.create_task(
                every(BACKOFF_FLUSH_PERIOD, self.flush_backoff_completed, clock=self._clock)
            ),
            asyncio.create_task(
                every(UNSCHEDULABLE_FLUSH_PERIOD, self.flush_unschedulable_left_over)
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
        found = self._pools.get(uid)
        if found is None and self._groups is not None:
            found = self._groups.get(uid)
        return found

    def pending_counts(self) -> dict[str, int]:
        """Pods per sub-queue (active/backoff/unschedulable/gated) for `scheduler_pending_pods`."""
        return self._pools.counts()

    def unschedulable_reasons(self) -> Mapping[tuple[str, str], int]:
        """(plugin, scheduler name) -> pods of the unschedulable pool and the gated set that
        plugin rejected, left Pending or gates (`scheduler_unschedulable_pods`; kept as pods
        move, O(1)). A live view: copy it to keep it."""
        return self._pools.reasons.counts

    def pending_pods(self) -> dict[str, list[QueuedPodInfo]]:
        """Every waiting pod by sub-queue (debugging; O(n))."""
        return self._pools.listing()

    def in_flight_pods(self) -> list[Pod]:
        return [qpi.pod for qpi in self._active.in_flight.values()]

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return self.nominator.pods_for_node(node_name)

    # ---- internals ----------------------------------------------------------------------

    def _move_pods(self, pods: list[QueuedPodInfo], event: object, old: Any, new: Any) -> None:
        label = event_label(event)
        for qpi in pods:
            strategy = self._strategy(qpi, event, old, new)
            if strategy is not QueueingStrategy.SKIP:
                self._requeue(qpi, strategy, event=label)
        self.inflight.record(event, old, new)

    def _requeue(self, qpi: QueuedPodInfo, strategy: QueueingStrategy, *, event: str) -> None:
        """Upstream `requeueEntityWithQueueingStrategy`."""
        if strategy is QueueingStrategy.SKIP:
            if not qpi.gated:
                self._pools.to_unschedulable(qpi, event=event)
        elif strategy is QueueingStrategy.AFTER_BACKOFF:
            self._pools.requeue(qpi, event=event)
        else:
            self._pools.to_active(qpi, event=event)
