"""`build(config, connection) -> Components`: every part of one kubesched process, wired.

Nothing here sends a request or starts a task; `kubesched.server.app.run` does both. Parts are
made in dependency order and handed to what needs them, so nothing is attached later:

    metrics, API clients (election, events, delegated auth), event recorder
    leader elector                     (its fence is read by binding and preemption, and by
                                       the scheduling client before every write it sends)
    the scheduling client, cache, snapshot
    nominator, waiting pods            (shared by the queue, preemption and every Handle)
    informers: pods, nodes, what plugins declare (namespaces, Services and workload
                                       controllers, PodDisruptionBudgets, custom resources)
    the DRA manager                    (over the DRA informers' stores; every Handle's)
    preemption executor -> Handles -> frameworks -> queue -> scheduler -> HTTPS server

One knot remains, as upstream's `SetPodActivator`: the queue consults the frameworks (QueueSort,
PreEnqueue, requeue hints) and preemption (inside the frameworks' Handles) activates pods in
the queue; `_activate_held` closes it before `build` returns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.config.flags import (
    NOMINATED_NODE_NAME_FOR_EXPECTATION,
    OPPORTUNISTIC_BATCHING,
    feature_gates,
)
from kubesched.framework import POD_DISRUPTION_BUDGETS, ClusterEvent, EventResource, WaitingPods
from kubesched.framework.listers import ClusterListers
from kubesched.framework.logkv import kv
from kubesched.framework.registry import Registry
from kubesched.framework.resources import cluster_resources
from kubesched.informers import Reflector
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection
from kubesched.leaderelection import LeaderElector, new_elector
from kubesched.model import ApiObject, Pod
from kubesched.plugins import config_registry
from kubesched.queue import Nominator, SchedulingQueue
from kubesched.runtime import Framework, build_framework
from kubesched.runtime.builder import check_common_queue_sort
from kubesched.runtime.dra_manager import DraManager
from kubesched.scheduler.event_recorder import EventRecorder, ObjectRef
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption import Preemptions
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.server.auth import AUTH_CLIENT_BURST, AUTH_CLIENT_QPS
from kubesched.server.frameworks import new_queue, preempting, registered, registered_resources
from kubesched.server.informers import Informers, declared_informers, feeding_informers
from kubesched.server.secure_port import secure_port
from kubesched.server.serving import HealthServer
from kubesched.server.volume_informers import uses_volumes, volume_informers

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Components:
    """One process's parts; `kubesched.server.app.run` starts and stops them."""

    config: KubeSchedulerConfiguration
    metrics: SchedulerMetrics
    cache: SchedulerCache
    client: KubeClient
    """Scheduling: lists, watches, bindings, status patches, preemption."""
    election_client: KubeClient
    """Leader election only, so renewals never wait behind bindings."""
    event_client: KubeClient
    """Events, with their own QPS budget (kube-scheduler's separate event client)."""
    auth_client: KubeClient
    """Delegated authn/authz reviews (QPS 200, burst 400 as upstream; through the auth
    kubeconfig when one is given)."""
    recorder: EventRecorder
    informers: Informers
    frameworks: Mapping[str, Framework]
    queue: SchedulingQueue
    preemptions: Preemptions
    scheduler: Scheduler
    elector: LeaderElector | None
    server: HealthServer

    def clients(self) -> tuple[KubeClient, ...]:
        """Every API client, to close at exit."""
        return (self.client, self.election_client, self.event_client, self.auth_client)


def build_registry(config: KubeSchedulerConfiguration) -> Registry:
    """In-tree plugins, then entry points, then `--plugin-module`s."""
    return config_registry(config.plugin_modules)


def build(
    config: KubeSchedulerConfiguration,
    *,
    connection: Connection,
    auth_connection: Connection | None = None,
) -> Components:
    """Every part, wired; raises FrameworkError / PluginRegistrationError on bad profiles.

    `auth_connection` (from `--authentication-kubeconfig`/`--authorization-kubeconfig`)
    reviews the callers of the secure port; without it, `connection` does."""
    cc = config.client_connection
    metrics = SchedulerMetrics(
        disabled=config.disabled_metrics, generic_workload=config.generic_workload
    )

    def new_client(
        to: Connection,
        *,
        qps: float = cc.qps,
        burst: int = cc.burst,
        write_fence: Callable[[], bool] | None = None,
    ) -> KubeClient:
        return KubeClient(
            to,
            qps=qps,
            burst=burst,
            observe=metrics.observe_request,
            observe_retry=metrics.observe_retry,
            content_type=cc.content_type,
            write_fence=write_fence,
        )

    election_client, event_client = new_client(connection), new_client(connection)
    auth_client = new_client(
        auth_connection or connection, qps=AUTH_CLIENT_QPS, burst=AUTH_CLIENT_BURST
    )
    recorder = EventRecorder(event_client, on_drop=metrics.count_dropped_event)
    elector = _elector(config, election_client, recorder, metrics)
    fenced = elector.fenced if elector is not None else _never_fenced
    leading = elector.is_leader if elector is not None else _always
    # Every write of the scheduling client is a scheduling decision: none leaves the
    # process once the Lease's renew deadline has passed (checked at the socket).
    client = new_client(connection, write_fence=elector.fenced if elector is not None else None)
    cache, snapshot = SchedulerCache(), Snapshot()
    nominator, waiting = Nominator(), WaitingPods()
    registry = build_registry(config)
    listers = ClusterListers(cluster_resources(config, registry))
    # One DRA manager for every profile (upstream: NewDRAManager, WithSharedDRAManager).
    dra_manager = DraManager(listers)

    def activate_held(uid: str, *, gated_by: str, force: bool = False) -> None:
        queue.activate_held(uid, gated_by=gated_by, force=force)

    def activate(pods: Iterable[Pod]) -> None:
        queue.activate(pods)

    def move_pods(event: ClusterEvent, old: object, new: object) -> None:
        queue.move_all_to_active_or_backoff(event, old, new)

    volumes = volume_informers(client, move=move_pods)

    preemptions = Preemptions(
        api=client,
        recorder=recorder,
        waiting_pods=waiting,
        nominator=nominator,
        activate_held=activate_held,
        fenced=fenced,
        metrics=metrics,
    )
    handles = {
        profile.scheduler_name: SchedulerHandle(
            profile=profile.scheduler_name,
            snapshot=snapshot,
            api=client,
            recorder=recorder,
            waiting_pods=waiting,
            preemptions=preemptions,
            listers=listers,
            activate=activate,
            leading=leading,
            volumes=volumes.listers,
            dra_manager=dra_manager,
        )
        for profile in config.profiles
    }
    frameworks = _frameworks(config, registry, handles, metrics)
    queue = new_queue(config, frameworks, nominator, metrics)
    pods, nodes = feeding_informers(
        client,
        cache=cache,
        queue=queue,
        scheduler_names=set(frameworks),
        pod_store=listers.pods,
        unscheduled_pod_events=registered(frameworks, EventResource.UNSCHEDULED_POD),
        waiting_pods=waiting,
        timer=metrics.observe_event_handling,
    )
    informers = Informers(
        pods=pods,
        nodes=nodes,
        declared=_declared_informers(client, listers, queue, frameworks),
        volumes=volumes.reflectors if uses_volumes(frameworks.values()) else {},
    )
    scheduler = Scheduler(
        frameworks=frameworks,
        cache=cache,
        snapshot=snapshot,
        queue=queue,
        api=client,
        record_event=_pod_event_sink(recorder),
        metrics=metrics,
        lookup_pod=pods.store.get,
        fenced=fenced,
        pod_groups=config.generic_workload,
        preempt_group=preemptions.start_group,
        nominate_for_expectation=feature_gates(config.feature_gates).get(
            NOMINATED_NODE_NAME_FOR_EXPECTATION, True
        ),
    )
    return Components(
        config=config,
        metrics=metrics,
        cache=cache,
        client=client,
        election_client=election_client,
        event_client=event_client,
        auth_client=auth_client,
        recorder=recorder,
        informers=informers,
        frameworks=frameworks,
        queue=queue,
        preemptions=preemptions,
        scheduler=scheduler,
        elector=elector,
        server=secure_port(
            config, metrics, auth_client, elector, informers, waiting=waiting, leading=leading
        ),
    )


def _declared_informers(
    client: KubeClient,
    listers: ClusterListers,
    queue: SchedulingQueue,
    frameworks: Mapping[str, Framework],
) -> dict[str, Reflector[ApiObject]]:
    """The informers of the declared resources, feeding the queue with the events plugins
    registered; PodDisruptionBudgets only when a profile preempts (as RBAC grants them then,
    `kubesched.manifests.rbac`; DefaultPreemption reads them at PostFilter alone)."""
    declared = declared_informers(client, listers, queue, evented=registered_resources(frameworks))
    if not preempting(frameworks):
        declared.pop(POD_DISRUPTION_BUDGETS.event_resource, None)
    return declared


def _never_fenced() -> bool:
    return False


def _always() -> bool:
    return True


def _frameworks(
    config: KubeSchedulerConfiguration,
    registry: Registry,
    handles: Mapping[str, SchedulerHandle],
    metrics: SchedulerMetrics,
) -> dict[str, Framework]:
    frameworks = {}
    batching = feature_gates(config.feature_gates).get(OPPORTUNISTIC_BATCHING, True)
    for profile in config.profiles:
        fw = build_framework(
            profile=profile,
            registry=registry,
            handle=handles[profile.scheduler_name],
            default_percentage_of_nodes_to_score=config.percentage_of_nodes_to_score,
            observe=metrics.extension_point_observer(profile.scheduler_name),
            plugin_metrics=metrics.plugin_metrics,
            observe_hint=metrics.observe_queueing_hint,
            opportunistic_batching=batching,
            batch_metrics=metrics.batch_metrics(profile.scheduler_name),
        )
        frameworks[profile.scheduler_name] = fw
        log.info("profile", extra=kv(scheduler=profile.scheduler_name, plugins=fw.list_plugins()))
    check_common_queue_sort(list(frameworks.values()))
    return frameworks


def _pod_event_sink(recorder: EventRecorder) -> Callable[..., None]:
    """The scheduler's events about pods, recorded under the profile's name."""

    def record(
        *, controller: str, pod: Pod, event_type: str, reason: str, action: str, note: str
    ) -> None:
        recorder.record(
            controller=controller,
            regarding=ObjectRef.of_pod(pod),
            type=event_type,
            reason=reason,
            action=action,
            note=note,
        )

    return record


def _elector(
    config: KubeSchedulerConfiguration,
    client: KubeClient,
    recorder: EventRecorder,
    metrics: SchedulerMetrics,
) -> LeaderElector | None:
    le = config.leader_election
    if not le.leader_elect:
        return None
    ref = ObjectRef(
        "Lease", le.resource_namespace, le.resource_name, api_version="coordination.k8s.io/v1"
    )

    def lease_event(reason: str, message: str) -> None:
        recorder.record(
            controller=config.profiles[0].scheduler_name,
            regarding=ref,
            type="Normal",
            reason=reason,
            action="LeaderElection",
            note=message,
        )

    return new_elector(
        client,
        settings=le,
        scheduler_names=config.scheduler_names,
        event_sink=lease_event,
        metrics=metrics.election(le.resource_name),
    )
