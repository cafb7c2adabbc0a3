"""`build(config, connection) -> Components`: every part of one kubesched process, wired.

Nothing here sends a request or starts a task; `kubesched.server.app.run` does both. Parts are
made in dependency order and handed to what needs them, so nothing is attached later:

    build: metrics, API clients (election, events, delegated auth), event recorder
    leader elector                     (its fence is read by binding and preemption, and by
                                       the scheduling client before every write it sends)
    the scheduling client
    _core: cache, snapshot
    nominator, waiting pods            (shared by the queue, preemption and every Handle)
    informers: pods, nodes, what plugins declare (namespaces, Services and workload
                                       controllers, PodDisruptionBudgets, custom resources)
    the DRA manager                    (over the DRA informers' stores; every Handle's)
    preemption executor -> Handles -> frameworks -> queue -> scheduler -> HTTPS server

One knot remains, as upstream's `SetPodActivator`: the queue consults the frameworks (QueueSort,
PreEnqueue, requeue hints) and preemption (inside the frameworks' Handles) activates pods in
the queue; `_LateQueue` closes it before `build` returns.
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
from kubesched.framework import ClusterEvent, WaitingPods
from kubesched.framework.listers import ClusterListers
from kubesched.framework.logkv import kv
from kubesched.framework.registry import Registry
from kubesched.framework.resources import cluster_resources
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection
from kubesched.kube.extender_http import ExtenderClient
from kubesched.kube.writer_process import WriterProcess
from kubesched.leaderelection import LeaderElector
from kubesched.model import Pod
from kubesched.plugins import config_registry
from kubesched.queue import Nominator, SchedulingQueue
from kubesched.runtime import Framework, build_framework
from kubesched.runtime.builder import check_common_queue_sort
from kubesched.runtime.dra_manager import DraManager
from kubesched.scheduler.event_frames import RemoteEventRecorder
from kubesched.scheduler.event_recorder import EventRecorder, Recorder
from kubesched.scheduler.extender_setup import build_extenders, consult, with_ignored_resources
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption import Preemptions
from kubesched.scheduler.quota_metrics import register_quota_metrics
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.scheduler.shadow import ShadowScheduler
from kubesched.server.apicheck import ApiSupport, everything_served
from kubesched.server.auth import AUTH_CLIENT_BURST, AUTH_CLIENT_QPS
from kubesched.server.frameworks import new_queue
from kubesched.server.informer_setup import informer_process
from kubesched.server.informer_wiring import scheduler_informers
from kubesched.server.informers import Informers
from kubesched.server.parts import ClientFactory, leader_elector, pod_event_sink
from kubesched.server.secure_port import secure_port
from kubesched.server.serving import HealthServer
from kubesched.server.shadow_setup import ShadowSetup, new_shadow, shadow_setup
from kubesched.server.volume_informers import volume_informers
from kubesched.server.writer_setup import reports_to, writer_process

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
    recorder: Recorder
    """In process, or in the writer process when there is one (`RemoteEventRecorder`)."""
    informers: Informers
    frameworks: Mapping[str, Framework]
    queue: SchedulingQueue
    preemptions: Preemptions
    scheduler: Scheduler
    elector: LeaderElector | None
    server: HealthServer
    shadow: ShadowScheduler | None = None
    """Shadow mode's loop (`--shadow-scheduler-name`), run instead of `scheduler`'s."""
    writer: WriterProcess | None = None
    """The process the scheduling and event clients write through (None: in process)."""

    def clients(self) -> tuple[KubeClient | ExtenderClient, ...]:
        """Every API client (and extender client), to close at exit."""
        extenders = self.scheduler.extenders
        called = tuple(e.client for e in extenders.all) if extenders is not None else ()
        return (self.client, self.election_client, self.event_client, self.auth_client, *called)


def build_registry(config: KubeSchedulerConfiguration) -> Registry:
    """In-tree plugins, then entry points, then `--plugin-module`s."""
    return config_registry(config.plugin_modules)


def build(
    config: KubeSchedulerConfiguration,
    *,
    connection: Connection,
    auth_connection: Connection | None = None,
    api_support: ApiSupport | None = None,
) -> Components:
    """Every part, wired; raises FrameworkError / PluginRegistrationError on bad profiles.

    `auth_connection` (from `--authentication-kubeconfig`/`--authorization-kubeconfig`)
    reviews the callers of the secure port; without it, `connection` does. `api_support`
    (`kubesched.server.apicheck`): the resources the API server does not serve get no
    informer, and the pods it names are held; without, everything is assumed served."""
    shadow = shadow_setup(config)
    if shadow is not None:
        config = shadow.config  # the profile renamed, no leader election
    support = api_support or everything_served(config)
    metrics = SchedulerMetrics(
        disabled=config.disabled_metrics, generic_workload=config.generic_workload
    )
    writer = writer_process(config, on_report=reports_to(metrics))
    clients = ClientFactory(config, metrics, writer)
    election_client = clients.new(connection)  # renewals never queue behind writes
    event_client = clients.new(connection)  # the in-process recorder's (idle with a writer)
    auth_client = clients.new(
        auth_connection or connection, qps=AUTH_CLIENT_QPS, burst=AUTH_CLIENT_BURST, reviews=True
    )
    recorder: Recorder = (
        EventRecorder(event_client, on_drop=metrics.count_dropped_event)
        if writer is None
        else RemoteEventRecorder(writer, on_drop=metrics.count_dropped_event)
    )
    elector = leader_elector(config, election_client, recorder, metrics)
    fenced = elector.fenced if elector is not None else _never_fenced
    leading = elector.is_leader if elector is not None else _always
    # Every write of the scheduling client is a scheduling decision: none leaves the
    # process once the Lease's renew deadline has passed (checked at the socket).
    client = clients.new(
        connection,
        write_fence=elector.fenced if elector is not None else None,
        fence_deadline=elector.fence_deadline if elector is not None else None,
        writes_elsewhere=True,
    )
    core = _core(
        config,
        client=client,
        recorder=recorder,
        metrics=metrics,
        fenced=fenced,
        leading=leading,
        support=support,
        shadow=shadow,
    )
    return Components(
        config=config,
        metrics=metrics,
        cache=core.cache,
        client=client,
        election_client=election_client,
        event_client=event_client,
        auth_client=auth_client,
        recorder=recorder,
        informers=core.informers,
        frameworks=core.frameworks,
        queue=core.queue,
        preemptions=core.preemptions,
        scheduler=core.scheduler,
        elector=elector,
        server=secure_port(
            config,
            metrics,
            auth_client,
            elector,
            core.informers,
            waiting=core.waiting,
            leading=leading,
            client=client,
            writer=writer,
        ),
        shadow=core.shadow,
        writer=writer,
    )


@dataclass(frozen=True)
class _Core:
    """The scheduling core of one process, as `_core` wires it."""

    cache: SchedulerCache
    waiting: WaitingPods
    frameworks: Mapping[str, Framework]
    queue: SchedulingQueue
    informers: Informers
    preemptions: Preemptions
    scheduler: Scheduler
    shadow: ShadowScheduler | None


class _LateQueue:
    """The queue, for the parts made before it (preemption, the Handles, the storage
    informers): it is made after the frameworks, which hold those parts (upstream's
    `SetPodActivator` closes the same knot)."""

    queue: SchedulingQueue | None = None

    def _ready(self) -> SchedulingQueue:
        if self.queue is None:
            raise RuntimeError("the scheduling queue is used before build() made it")
        return self.queue

    def activate_held(self, uid: str, *, gated_by: str, force: bool = False) -> None:
        self._ready().activate_held(uid, gated_by=gated_by, force=force)

    def activate(self, pods: Iterable[Pod]) -> None:
        self._ready().activate(pods)

    def move_pods(self, event: ClusterEvent, old: object, new: object) -> None:
        self._ready().move_all_to_active_or_backoff(event, old, new)


def _core(
    config: KubeSchedulerConfiguration,
    *,
    client: KubeClient,
    recorder: Recorder,
    metrics: SchedulerMetrics,
    fenced: Callable[[], bool],
    leading: Callable[[], bool],
    support: ApiSupport,
    shadow: ShadowSetup | None = None,
) -> _Core:
    """Cache, snapshot, nominator, waiting pods, the profiles' Handles and frameworks, the
    queue, the informers feeding them, preemption and the scheduler."""
    cache, snapshot = SchedulerCache(), Snapshot()
    nominator, waiting = Nominator(), WaitingPods()
    registry = build_registry(config)
    listers = ClusterListers(cluster_resources(config, registry))
    # One DRA manager for every profile (upstream: NewDRAManager, WithSharedDRAManager).
    dra_manager = DraManager(listers)
    late = _LateQueue()
    volumes = volume_informers(client, move=late.move_pods)

    preemptions = Preemptions(
        api=client,
        recorder=recorder,
        waiting_pods=waiting,
        nominator=nominator,
        activate_held=late.activate_held,
        fenced=fenced,
        metrics=metrics,
        pod_of=cache.get_pod,
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
            activate=late.activate,
            leading=leading,
            volumes=volumes.listers,
            dra_manager=dra_manager,
        )
        for profile in config.profiles
    }
    extenders = build_extenders(config, client)
    frameworks = _frameworks(
        with_ignored_resources(config), registry, handles, metrics, preemptions
    )
    consult(frameworks, extenders)
    register_quota_metrics(metrics.registry, frameworks)
    queue = late.queue = new_queue(config, frameworks, nominator, metrics, hold=support.hold)
    shadow_loop = None
    if shadow is not None:
        shadow_loop = new_shadow(
            shadow,
            frameworks=frameworks,
            cache=cache,
            snapshot=snapshot,
            queue=queue,
            metrics=metrics,
        )
    informers = scheduler_informers(
        client,
        cache,
        queue,
        frameworks,
        listers=listers,
        waiting=waiting,
        volumes=volumes,
        metrics=metrics,
        support=support,
        observe_pods=shadow_loop,
        remote=informer_process(config),
    )
    scheduler = Scheduler(
        frameworks=frameworks,
        cache=cache,
        snapshot=snapshot,
        queue=queue,
        api=client,
        record_event=pod_event_sink(recorder),
        metrics=metrics,
        lookup_pod=informers.pods.store.get,
        fenced=fenced,
        pod_groups=config.generic_workload,
        preempt_group=preemptions.start_group,
        nominate_for_expectation=feature_gates(config.feature_gates).get(
            NOMINATED_NODE_NAME_FOR_EXPECTATION, True
        ),
        extenders=extenders,
    )
    return _Core(cache, waiting, frameworks, queue, informers, preemptions, scheduler, shadow_loop)


def _never_fenced() -> bool:
    return False


def _always() -> bool:
    return True


def _frameworks(
    config: KubeSchedulerConfiguration,
    registry: Registry,
    handles: Mapping[str, SchedulerHandle],
    metrics: SchedulerMetrics,
    preemptions: Preemptions,
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
            observe_post_filter=preemptions.observe_post_filter,
        )
        frameworks[profile.scheduler_name] = fw
        log.info("profile", extra=kv(scheduler=profile.scheduler_name, plugins=fw.list_plugins()))
    check_common_queue_sort(list(frameworks.values()))
    return frameworks
