"""The one queue every profile shares, ordered and gated by the built frameworks: PreEnqueue
of the pod's profile, the rejecting plugins' queueing hints for each cluster event, and the
first profile's QueueSort (`kubesched run` checks that every profile sorts alike), fair
across groups where a plugin opts in (`fair_order`). The
server and the replay (on its virtual clock) both build it here."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config.flags import SCHEDULER_POP_FROM_BACKOFF_Q, feature_gates
from kubesched.framework import ClusterEvent
from kubesched.model import Pod
from kubesched.queue import Nominator, QueuedPodInfo, QueueingStrategy, SchedulingQueue
from kubesched.queue.types import IncomingHook
from kubesched.runtime import Framework
from kubesched.runtime.queueing import Requeue
from kubesched.scheduler.add_narrowing import ProfileAddNarrowing
from kubesched.scheduler.fair_order import fair_order

_STRATEGIES = {
    Requeue.SKIP: QueueingStrategy.SKIP,
    Requeue.AFTER_BACKOFF: QueueingStrategy.AFTER_BACKOFF,
    Requeue.IMMEDIATELY: QueueingStrategy.IMMEDIATELY,
}


def shared_queue(
    config: KubeSchedulerConfiguration,
    frameworks: Mapping[str, Framework],
    nominator: Nominator,
    *,
    hold: Callable[[Pod], str | None] = lambda _pod: None,
    clock: Callable[[], float] = time.monotonic,
    on_incoming: IncomingHook | None = None,
    index_adds: bool = True,
) -> SchedulingQueue:
    """The shared queue; `hold` names the plugin that keeps a pod out of activeQ before any
    profile's PreEnqueue runs (or None), `clock` times its backoffs and flushes,
    `on_incoming` hears each pod that enters a pool (metrics); `index_adds`: offer an add
    event only to the unschedulable pods the hints may requeue for it
    (`scheduler.add_narrowing`; the same moves as offering it to all)."""
    first = next(iter(frameworks.values()))

    def pre_enqueue(pod: Pod) -> str | None:
        if (held := hold(pod)) is not None:
            return held
        fw = frameworks.get(pod.scheduler_name)
        status = fw.run_pre_enqueue(pod) if fw is not None else None
        return None if status is None or status.is_success() else status.plugin or "?"

    def requeue_strategy(qpi: QueuedPodInfo, event: object, old: Any, new: Any) -> QueueingStrategy:
        if not isinstance(event, ClusterEvent):
            return QueueingStrategy.AFTER_BACKOFF
        hints = frameworks.get(qpi.pod.scheduler_name, first).queueing_hints
        gate = qpi.gating_plugin
        if gate is not None and hints.gated_by_another_event(gate, event):
            return QueueingStrategy.SKIP  # only the gating plugin's events can ungate it
        requeue = hints.strategy(
            pod=qpi.pod,
            rejectors=qpi.unschedulable_plugins | qpi.pending_plugins,
            pending=qpi.pending_plugins,
            event=event,
            old=old,
            new=new,
        )
        return _STRATEGIES[requeue]

    def gate_hears(scheduler: str, gate: str | None, event: object) -> bool:
        if gate is None or not isinstance(event, ClusterEvent):
            return True
        hints = frameworks.get(scheduler, first).queueing_hints
        return not hints.gated_by_another_event(gate, event)

    def interested(event: object) -> bool:
        if not isinstance(event, ClusterEvent):
            return True
        return any(fw.queueing_hints.interested(event) for fw in frameworks.values())

    return SchedulingQueue(
        less=first.queue_sort_less,
        pre_enqueue=pre_enqueue,
        requeue_strategy=requeue_strategy,
        interested=interested,
        clock=clock,
        pod_initial_backoff_seconds=config.pod_initial_backoff_seconds,
        pod_max_backoff_seconds=config.pod_max_backoff_seconds,
        pod_max_in_unschedulable_pods_seconds=config.pod_max_in_unschedulable_pods_seconds,
        pop_from_backoff=feature_gates(config.feature_gates).get(
            SCHEDULER_POP_FROM_BACKOFF_Q, True
        ),
        on_incoming=on_incoming,
        nominator=nominator,
        gate_hears=gate_hears,
        fair=fair_order(frameworks),
        narrowing=ProfileAddNarrowing(frameworks) if index_adds else None,
    )
