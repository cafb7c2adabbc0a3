"""The informers of one scheduler process, wired to its cache, queue and frameworks:
pods and nodes, the resources plugins declare, and the storage informers."""

from __future__ import annotations

from collections.abc import Mapping

from kubesched.cache import SchedulerCache
from kubesched.framework import POD_DISRUPTION_BUDGETS, EventResource, WaitingPods
from kubesched.framework.listers import ClusterListers
from kubesched.informers import Reflector
from kubesched.informers.process import InformerProcess
from kubesched.kube.client import KubeClient
from kubesched.model import ApiObject
from kubesched.queue import SchedulingQueue
from kubesched.runtime import Framework
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.shadow import ShadowScheduler
from kubesched.server.apicheck import ApiSupport
from kubesched.server.frameworks import preempting, registered, registered_resources
from kubesched.server.informers import Informers, declared_informers, feeding_informers
from kubesched.server.volume_informers import VolumeInformers, uses_volumes


def scheduler_informers(
    client: KubeClient,
    cache: SchedulerCache,
    queue: SchedulingQueue,
    frameworks: Mapping[str, Framework],
    *,
    listers: ClusterListers,
    waiting: WaitingPods,
    volumes: VolumeInformers,
    metrics: SchedulerMetrics,
    support: ApiSupport,
    observe_pods: ShadowScheduler | None = None,
    remote: InformerProcess | None = None,
) -> Informers:
    """Pods and nodes (feeding the cache and the queue; through `remote`, the informer
    process, when there is one), what plugins declare, and the storage informers when a
    profile enables a volume plugin."""
    pods, nodes = feeding_informers(
        client,
        cache=cache,
        queue=queue,
        scheduler_names=set(frameworks),
        pod_store=listers.pods,
        unscheduled_pod_events=registered(frameworks, EventResource.UNSCHEDULED_POD),
        waiting_pods=waiting,
        timer=metrics.observe_event_handling,
        observe=observe_pods,
        remote=remote,
    )
    return Informers(
        pods=pods,
        nodes=nodes,
        declared=_declared(client, listers, queue, frameworks, support),
        volumes=volumes.reflectors if uses_volumes(frameworks.values()) else {},
    )


def _declared(
    client: KubeClient,
    listers: ClusterListers,
    queue: SchedulingQueue,
    frameworks: Mapping[str, Framework],
    support: ApiSupport,
) -> dict[str, Reflector[ApiObject]]:
    """The informers of the declared resources, feeding the queue with the events plugins
    registered; PodDisruptionBudgets only when a profile preempts (as RBAC grants them then,
    `kubesched.manifests.rbac`; DefaultPreemption reads them at PostFilter alone); none for
    what the API server does not serve (their listers stay empty)."""
    declared = declared_informers(client, listers, queue, evented=registered_resources(frameworks))
    for spec in listers.specs:
        if not support.serves(spec):
            declared.pop(spec.event_resource, None)
    if not preempting(frameworks):
        declared.pop(POD_DISRUPTION_BUDGETS.event_resource, None)
    return declared
