"""The four places a pending pod can wait, and the moves between them.

A pod is in at most one of: activeQ, backoffQ, the unschedulable pool, the gated set (or in
flight, popped by the scheduler). Every move goes through here, so that invariant and the
`scheduler_queue_incoming_pods_total` hook live in one place.
"""

from __future__ import annotations

from collections.abc import Callable

from kubesched.queue.active import ActiveQueue
from kubesched.queue.added_index import AddNarrowing, UnschedulableAddIndex
from kubesched.queue.backoff import BackoffQueue
from kubesched.queue.fair import FairOrder
from kubesched.queue.gated import GatedSet
from kubesched.queue.reasons import ReasonCounts
from kubesched.queue.types import (
    ACTIVE,
    BACKOFF,
    BACKOFF_COMPLETE,
    GATED,
    POP_FROM_BACKOFF_Q,
    UNSCHEDULABLE,
    IncomingHook,
    LessFunc,
    PreEnqueueFunc,
    QueuedPodInfo,
)


class QueuePools:
    """activeQ, backoffQ, the unschedulable pool and the gated set of one queue."""

    def __init__(
        self,
        *,
        less: LessFunc,
        clock: Callable[[], float],
        initial_backoff: float,
        max_backoff: float,
        pre_enqueue: PreEnqueueFunc | None,
        on_incoming: IncomingHook | None,
        pop_from_backoff: bool = True,
        fair: FairOrder | None = None,
        narrowing: AddNarrowing | None = None,
    ) -> None:
        self.clock = clock
        self.active = ActiveQueue(less=less, fair=fair)
        self.backoff = BackoffQueue(
            clock=clock,
            initial=initial_backoff,
            maximum=max_backoff,
            less=less,
            pop_from_backoff=pop_from_backoff,
            fair=fair,
        )
        self._pop_from_backoff = pop_from_backoff
        if pop_from_backoff:
            self.active.fallback = self._pop_backoff
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        """Read-only outside this class (`reasons` follows it)."""
        self.reasons = ReasonCounts()
        """`scheduler_unschedulable_pods`: the unschedulable pool and the gated set's pods by
        plugin, kept as they move."""
        self.gated = GatedSet(self.reasons)
        self.added_index = UnschedulableAddIndex(narrowing) if narrowing is not None else None
        """The unschedulable pool by the add events that may help its pods, if wired."""
        self._pre_enqueue = pre_enqueue
        self._on_incoming = on_incoming

    def get(self, uid: str) -> QueuedPodInfo | None:
        """The waiting or in-flight entry of a pod."""
        return (
            self.active.in_flight.get(uid)
            or self.active.get(uid)
            or self.backoff.get(uid)
            or self.unschedulable.get(uid)
            or self.gated.get(uid)
        )

    def holds(self, uid: str) -> bool:
        """Whether the pod waits in one of the four (in-flight pods do not count)."""
        return (
            uid in self.active
            or uid in self.backoff
            or uid in self.unschedulable
            or uid in self.gated
        )

    def remove(self, uid: str) -> None:
        self.active.delete(uid)
        self.backoff.delete(uid)
        self._leave_unschedulable(uid)
        self.gated.pop(uid)

    def to_active(self, qpi: QueuedPodInfo, *, event: str, from_backoff: bool = False) -> bool:
        """activeQ, unless a PreEnqueue plugin gates the pod (then the gated set). A pod
        leaving backoffQ skips PreEnqueue with the pop from backoffQ on (it ran on entry)."""
        uid = qpi.uid
        self._leave_unschedulable(uid)
        from_backoff = self.backoff.delete(uid) is not None or from_backoff
        if not (from_backoff and self._pop_from_backoff) and self._gated(qpi, event):
            return False
        qpi.gating_plugin = None
        self.gated.pop(uid)
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self.clock()
        self.active.add(qpi)
        self._incoming(ACTIVE, event)
        return True

    def to_backoff(self, qpi: QueuedPodInfo, *, event: str, errors: bool = False) -> bool:
        """backoffQ (its error heap with `errors`); with the pop from backoffQ on, PreEnqueue
        runs first (a gated pod goes to the gated set instead, False)."""
        self._leave_unschedulable(qpi.uid)
        if self._pop_from_backoff and self._gated(qpi, event):
            return False
        self.gated.pop(qpi.uid)
        qpi.gating_plugin = None
        self.backoff.add(qpi, errors=errors)
        self._incoming(BACKOFF, event)
        if self._pop_from_backoff:
            self.active.wake()
        return True

    def from_backoff_completed(self) -> None:
        """Every pod whose backoff ended, to activeQ (the 1 s flush)."""
        for qpi in self.backoff.pop_completed():
            self.to_active(qpi, event=BACKOFF_COMPLETE, from_backoff=True)

    def _pop_backoff(self) -> QueuedPodInfo | None:
        qpi = self.backoff.pop_rejected()
        if qpi is not None:
            self._incoming(ACTIVE, POP_FROM_BACKOFF_Q)
        return qpi

    def _gated(self, qpi: QueuedPodInfo, event: str) -> bool:
        """Run PreEnqueue; a gated pod goes to (or stays in) the gated set."""
        gate = self._pre_enqueue(qpi.pod) if self._pre_enqueue is not None else None
        if gate is None:
            return False
        qpi.gating_plugin = gate
        qpi.unschedulable_plugins.add(gate)
        entering = qpi.uid not in self.gated
        self.gated.add(qpi)  # under its gate now (a pod may pass from one gate to another)
        if entering:
            self._incoming(GATED, event)
        return True

    def to_unschedulable(self, qpi: QueuedPodInfo, *, event: str) -> None:
        self.unschedulable[qpi.uid] = qpi
        self.reasons.enter(UNSCHEDULABLE, qpi)
        if self.added_index is not None:
            self.added_index.enter(qpi)
        self._incoming(UNSCHEDULABLE, event)

    def pod_replaced(self, qpi: QueuedPodInfo) -> None:
        """A pod in the unschedulable pool has a new object: index it anew."""
        if self.added_index is not None and qpi.uid in self.unschedulable:
            self.added_index.enter(qpi)

    def requeue(self, qpi: QueuedPodInfo, *, event: str) -> None:
        """Out of the pool: backoffQ while the pod still backs off, else activeQ."""
        if self.backoff.is_backing_off(qpi):
            self.to_backoff(qpi, event=event)
        else:
            self.to_active(qpi, event=event)

    def counts(self) -> dict[str, int]:
        return {
            ACTIVE: len(self.active),
            BACKOFF: len(self.backoff),
            UNSCHEDULABLE: len(self.unschedulable),
            GATED: len(self.gated),
        }

    def listing(self) -> dict[str, list[QueuedPodInfo]]:
        return {
            ACTIVE: self.active.items(),
            BACKOFF: self.backoff.items(),
            UNSCHEDULABLE: list(self.unschedulable.values()),
            GATED: list(self.gated.values()),
        }

    def _leave_unschedulable(self, uid: str) -> None:
        if self.unschedulable.pop(uid, None) is not None and self.added_index is not None:
            self.added_index.leave(uid)
        self.reasons.leave(UNSCHEDULABLE, uid)

    def _incoming(self, queue: str, event: str) -> None:
        if self._on_incoming is not None:
            self._on_incoming(queue, event)
