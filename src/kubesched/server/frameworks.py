"""What the server asks of the built frameworks: the shared queue they order and gate, and
which optional informers and events they need."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config.flags import SCHEDULER_POP_FROM_BACKOFF_Q, feature_gates
from kubesched.framework import POD_DISRUPTION_BUDGETS, ClusterEvent, EventResource
from kubesched.framework.resources import plugin_resources
from kubesched.model import Pod
from kubesched.queue import Nominator, QueuedPodInfo, QueueingStrategy, SchedulingQueue
from kubesched.runtime import Framework
from kubesched.runtime.queueing import Requeue
from kubesched.scheduler.metrics import SchedulerMetrics


def registered_resources(frameworks: Mapping[str, Framework]) -> set[str]:
    """Every resource a plugin of some profile registered an event about, by name (a
    wildcard registration names `*`, no resource)."""
    return {
        str(event.resource)
        for fw in frameworks.values()
        for events in fw.events_to_register().values()
        for event in events
    }


def registered(frameworks: Mapping[str, Framework], resource: EventResource) -> bool:
    """Whether a plugin of some profile registered an event about `resource`."""
    return str(resource) in registered_resources(frameworks)


_STRATEGIES = {
    Requeue.SKIP: QueueingStrategy.SKIP,
    Requeue.AFTER_BACKOFF: QueueingStrategy.AFTER_BACKOFF,
    Requeue.IMMEDIATELY: QueueingStrategy.IMMEDIATELY,
}


def new_queue(
    config: KubeSchedulerConfiguration,
    frameworks: Mapping[str, Framework],
    nominator: Nominator,
    metrics: SchedulerMetrics,
    *,
    hold: Callable[[Pod], str | None] = lambda _pod: None,
) -> SchedulingQueue:
    """The shared queue; `hold` names the plugin that keeps a pod out of activeQ before
    any profile's PreEnqueue runs (pods with ResourceClaims while the API server does not
    serve DRA, `kubesched.server.apicheck`), or None."""
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

    def interested(event: object) -> bool:
        if not isinstance(event, ClusterEvent):
            return True
        return any(fw.queueing_hints.interested(event) for fw in frameworks.values())

    def incoming(queue: str, event: str) -> None:
        metrics.queue_incoming_pods.labels(queue, event).inc()

    queue = SchedulingQueue(
        less=first.queue_sort_less,
        pre_enqueue=pre_enqueue,
        requeue_strategy=requeue_strategy,
        interested=interested,
        pod_initial_backoff_seconds=config.pod_initial_backoff_seconds,
        pod_max_backoff_seconds=config.pod_max_backoff_seconds,
        pod_max_in_unschedulable_pods_seconds=config.pod_max_in_unschedulable_pods_seconds,
        pop_from_backoff=feature_gates(config.feature_gates).get(
            SCHEDULER_POP_FROM_BACKOFF_Q, True
        ),
        on_incoming=incoming,
        nominator=nominator,
    )
    metrics.watch_inflight_events(queue.inflight.counts)
    return queue


def preempting(frameworks: Mapping[str, Framework]) -> bool:
    """Whether a profile preempts: a PostFilter plugin reads PodDisruptionBudgets
    (DefaultPreemption, scheduler-plugins' CapacityScheduling); then the PDB informer runs."""
    return any(
        any(spec.same_resource(POD_DISRUPTION_BUDGETS) for spec in plugin_resources(plugin))
        for fw in frameworks.values()
        for plugin in fw.plugins.post_filter
    )
