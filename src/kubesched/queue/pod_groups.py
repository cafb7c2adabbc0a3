"""A native pod group queued as one unit (kube-scheduler v1.37's `QueuedPodGroupInfo`,
`GenericWorkload` feature gate), kept over the per-pod pools.

The members of a `scheduling.k8s.io` PodGroup wait in activeQ, backoffQ, the unschedulable
pool or the gated set as pods, but move as upstream's group entity does:

* the first member popped takes every waiting sibling along (`take`): the group is popped
  once and its members are tried together;
* while the group is in flight, a member that comes back from the cycle, or a new member,
  waits beside it (upstream `pendingPodGroupPods`);
* when the cycle is over (`attempted`), those members go back together: to activeQ at once
  if the group was scheduled, else to backoffQ for the group's backoff (its own count of
  failed attempts, `initial * 2**(count - 1)` capped at the pods' maximum times the square
  root of the group's size), from which no pop takes them early (the group has no rejecting
  plugin upstream), and then to activeQ: a group that does not fit is tried again after
  each backoff, not on cluster events;
* a member added while its siblings wait joins them where they wait (upstream
  `addToPodGroupIfExists`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kubesched.model import Pod
from kubesched.queue.pools import QueuePools
from kubesched.queue.types import SCHEDULE_ATTEMPT_FAILURE, UNSCHEDULED_POD_ADD, QueuedPodInfo

GroupKey = tuple[str, str]
"""(namespace, PodGroup name)."""
GroupOf = Callable[[Pod], "GroupKey | None"]

SUCCESS, REJECTED, ERROR, MISSING = "success", "rejected", "error", "missing"
"""How a group's cycle ended (`attempted`); MISSING: its PodGroup went away."""


@dataclass(slots=True)
class GroupParams:
    """Upstream `QueueingParams` of a group entity."""

    timestamp: float
    unschedulable_count: int = 0
    consecutive_errors_count: int = 0
    tried: set[str] = field(default_factory=set)
    """The members popped with the group in its current cycle."""


class PodGroupQueueing:
    """Group bookkeeping of one scheduling queue; `group_of` names a pod's group (None for
    a pod of no group)."""

    def __init__(self, pools: QueuePools, group_of: GroupOf, *, rescan: bool = False) -> None:
        self._pools = pools
        self.group_of = group_of
        self._rescan = rescan
        """A pod's group may change while it waits (a CompositePodGroup observed after its
        members makes their tree's root the unit): `take` then finds the siblings by asking
        `group_of` about every waiting pod instead of by the members recorded when added."""
        self._members: dict[GroupKey, set[str]] = {}
        self._params: dict[GroupKey, GroupParams] = {}
        self._in_flight: dict[GroupKey, GroupParams] = {}
        self._pending: dict[GroupKey, dict[str, QueuedPodInfo]] = {}
        for waiting in pools.listing().values():
            for qpi in waiting:
                if (key := group_of(qpi.pod)) is not None:
                    self._members.setdefault(key, set()).add(qpi.uid)

    # ---- membership ---------------------------------------------------------------------

    def added(self, qpi: QueuedPodInfo) -> bool:
        """A new member: True if it waits beside its group in flight or joined its waiting
        siblings (else the queue adds it as a pod)."""
        key = self.group_of(qpi.pod)
        if key is None:
            return False
        self._members.setdefault(key, set()).add(qpi.uid)
        if key in self._in_flight:
            self._pending.setdefault(key, {})[qpi.uid] = qpi
            return True
        return self._join(key, qpi)

    def removed(self, pod: Pod) -> None:
        """The pod is gone (or bound)."""
        key = self.group_of(pod)
        if key is None:
            return
        members = self._members.get(key)
        if members is not None:
            members.discard(pod.uid)
            if not members:
                del self._members[key]
                self._params.pop(key, None)
        self._pending.get(key, {}).pop(pod.uid, None)

    def get(self, uid: str) -> QueuedPodInfo | None:
        """A member waiting beside its group in flight."""
        for pending in self._pending.values():
            if (qpi := pending.get(uid)) is not None:
                return qpi
        return None

    def pending_pods(self) -> list[QueuedPodInfo]:
        return [qpi for pending in self._pending.values() for qpi in pending.values()]

    # ---- the group's cycle -----------------------------------------------------------------

    def take(self, first: QueuedPodInfo) -> list[QueuedPodInfo]:
        """The group of `first` (just popped) is in flight; its waiting siblings, taken out
        of activeQ, backoffQ and the unschedulable pool (not the gated ones)."""
        key = self.group_of(first.pod)
        if key is None:
            return []
        params = self._params.pop(key, None) or GroupParams(timestamp=first.timestamp)
        pools, taken = self._pools, []
        for uid in self._siblings(key) - {first.uid}:
            qpi = pools.active.get(uid) or pools.backoff.get(uid) or pools.unschedulable.get(uid)
            if qpi is not None:
                pools.remove(uid)
                pools.active.take(qpi)
                taken.append(qpi)
        params.tried = {first.uid, *(qpi.uid for qpi in taken)}
        self._in_flight[key] = params
        return taken

    def _siblings(self, key: GroupKey) -> set[str]:
        if not self._rescan:
            return self._members.get(key, set())
        pools, group_of = self._pools, self.group_of
        waiting = (*pools.active.items(), *pools.backoff.items(), *pools.unschedulable.values())
        return {qpi.uid for qpi in waiting if group_of(qpi.pod) == key}

    def parked(self, qpi: QueuedPodInfo) -> bool:
        """A member back from a cycle while its group is in flight waits beside it (True);
        False when its group is not in flight (the queue requeues it as a pod)."""
        key = self.group_of(qpi.pod)
        if key is None or key not in self._in_flight:
            return False
        self._pending.setdefault(key, {})[qpi.uid] = qpi
        return True

    def rejoined(self, qpi: QueuedPodInfo) -> bool:
        """A member that failed outside its group's cycle (at Permit, binding) joins its
        waiting siblings, else goes to activeQ as a new group (True); False for a pod of
        no group."""
        key = self.group_of(qpi.pod)
        if key is None:
            return False
        if not self._join(key, qpi):
            self._pools.to_active(qpi, event=SCHEDULE_ATTEMPT_FAILURE)
        return True

    def attempted(self, key: GroupKey, outcome: str) -> None:
        """The group's cycle is over (upstream `AddAttemptedPodGroupIfNeeded`): the members
        waiting beside it go back as one."""
        params = self._in_flight.pop(key, None)
        pending = list(self._pending.pop(key, {}).values())
        if params is None or not pending:
            return
        pools, now = self._pools, self._pools.clock()
        if outcome == MISSING:
            for qpi in pending:  # PreEnqueue holds them until the PodGroup is back
                pools.to_active(qpi, event=SCHEDULE_ATTEMPT_FAILURE)
            return
        failed_before = any(qpi.uid in params.tried for qpi in pending)
        if outcome == SUCCESS:
            params.unschedulable_count = params.consecutive_errors_count = 0
        elif outcome == REJECTED:
            params.unschedulable_count += 1
            params.consecutive_errors_count = 0
        else:
            params.consecutive_errors_count += 1
        if outcome != SUCCESS or not failed_before:
            params.timestamp = now
        self._params[key] = params
        backoff = pools.backoff
        count = params.consecutive_errors_count or params.unschedulable_count
        duration = backoff.duration_for(count, len(pending))
        expiration = backoff.align(params.timestamp + duration) if duration else 0.0
        backing_off = outcome != SUCCESS and expiration >= backoff.align(now) and duration
        for qpi in pending:
            if backing_off:
                qpi.backoff_expiration = expiration
                pools.to_backoff(qpi, event=SCHEDULE_ATTEMPT_FAILURE, errors=True)
            else:
                pools.to_active(qpi, event=SCHEDULE_ATTEMPT_FAILURE)

    def _join(self, key: GroupKey, qpi: QueuedPodInfo) -> bool:
        """Put `qpi` where its siblings wait (activeQ, backoffQ with their backoff, or the
        unschedulable pool); False when none waits."""
        pools = self._pools
        for uid in self._members.get(key, set()) - {qpi.uid}:
            if uid in pools.active:
                pools.to_active(qpi, event=UNSCHEDULED_POD_ADD)
                return True
            if (sibling := pools.backoff.get(uid)) is not None:
                qpi.backoff_expiration = pools.backoff.expiration(sibling)
                pools.to_backoff(qpi, event=UNSCHEDULED_POD_ADD, errors=True)
                return True
            if uid in pools.unschedulable:
                pools.to_unschedulable(qpi, event=UNSCHEDULED_POD_ADD)
                return True
        return False
