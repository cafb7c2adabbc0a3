"""What the server asks of the built frameworks: the shared queue they order and gate, and
which optional informers and events they need."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.framework import POD_DISRUPTION_BUDGETS, EventResource
from kubesched.framework.resources import plugin_resources
from kubesched.model import Pod
from kubesched.queue import Nominator, SchedulingQueue
from kubesched.runtime import Framework
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.shared_queue import shared_queue


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


def new_queue(
    config: KubeSchedulerConfiguration,
    frameworks: Mapping[str, Framework],
    nominator: Nominator,
    metrics: SchedulerMetrics,
    *,
    hold: Callable[[Pod], str | None] = lambda _pod: None,
) -> SchedulingQueue:
    """The shared queue (`scheduler.shared_queue`) with kube-scheduler's queue metrics;
    `hold` names the plugin that keeps a pod out of activeQ before any profile's PreEnqueue
    runs (pods with ResourceClaims while the API server does not serve DRA,
    `kubesched.server.apicheck`), or None."""

    def incoming(queue: str, event: str) -> None:
        metrics.queue_incoming_pods.labels(queue, event).inc()

    queue = shared_queue(config, frameworks, nominator, hold=hold, on_incoming=incoming)
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
