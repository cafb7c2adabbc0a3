"""`build(config, connection) -> Components`: every part of one kubesched process, wired.

Nothing here sends a request or starts a task; `kubesched.server.app.run` does both. Parts are
made in dependency order and handed to what needs them, so nothing is attached later:

    metrics, cache, snapshot, API clients, event recorder
    nominator, waiting pods            (shared by the queue, preemption and every Handle)
    informers: pods, nodes, namespaces, PodDisruptionBudgets, Services and workload
                                       controllers, what plugins declare
    leader elector                     (its fence is read by binding and preemption)
    preemption executor -> Handles -> frameworks -> queue -> scheduler -> HTTPS server

One knot remains, as upstream's `SetPodActivator`: the queue consults the frameworks (QueueSort,
PreEnqueue, requeue hints) and preemption (inside the frameworks' Handles) activates pods in
the queue; `_activate_held` closes it before `build` returns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.config import configz
from kubesched.framework import EventResource, Framework, WaitingPods, build_framework
from kubesched.framework.builder import check_common_queue_sort
from kubesched.framework.listers import ClusterListers
from kubesched.framework.registry import Registry
from kubesched.framework.resources import declared_resources
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection
from kubesched.leaderelection import LeaderElector, new_elector
from kubesched.model import Pod
from kubesched.model.workload_store import WorkloadStore
from kubesched.plugins import config_registry
from kubesched.queue import Nominator, SchedulingQueue
from kubesched.scheduler.event_recorder import EventRecorder, ObjectRef
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption import Preemptions
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.server.auth import DelegatedAuth
from kubesched.server.frameworks import new_queue, preempting, registered
from kubesched.server.informers import (
    Informers,
    declared_informers,
    feeding_informers,
    store_informers,
    workload_informers,
)
from kubesched.server.serving import HealthServer, ServingOptions

log = logging.getLogger("kubesched")


@dataclass(frozen=True)
class Components:
    """One process's parts; `kubesched.server.app.run` starts and stops them."""

    config: KubeSchedulerConfiguration
    metrics: SchedulerMetrics
    cache: SchedulerCache
    client: KubeClient
    """Scheduling: lists, watches, bindings, status patches, events, reviews."""
    election_client: KubeClient
    """Leader election only, so renewals never wait behind bindings."""
    auth_client: KubeClient
    """Reviews of the secure port's callers (`client` unless an auth kubeconfig is given)."""
    recorder: EventRecorder
    informers: Informers
    frameworks: Mapping[str, Framework]
    queue: SchedulingQueue
    preemptions: Preemptions
    scheduler: Scheduler
    elector: LeaderElector | None
    server: HealthServer


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
    metrics = SchedulerMetrics(disabled=config.disabled_metrics)

    def new_client(to: Connection) -> KubeClient:
        return KubeClient(to, qps=cc.qps, burst=cc.burst, observe=metrics.observe_request)

    client, election_client = new_client(connection), new_client(connection)
    auth_client = new_client(auth_connection) if auth_connection is not None else client
    cache, snapshot = SchedulerCache(), Snapshot()
    recorder = EventRecorder(client)
    nominator, waiting = Nominator(), WaitingPods()
    namespaces, pdbs = store_informers(client)
    registry = build_registry(config)
    listers = ClusterListers(declared_resources(config.profiles, registry))
    workloads = WorkloadStore()
    elector = _elector(config, election_client, recorder, metrics)
    fenced = elector.fenced if elector is not None else _never_fenced
    leading = elector.is_leader if elector is not None else _always

    def activate_held(uid: str, *, gated_by: str, force: bool = False) -> None:
        queue.activate_held(uid, gated_by=gated_by, force=force)

    def activate(pods: Iterable[Pod]) -> None:
        queue.activate(pods)

    preemptions = Preemptions(
        api=client,
        recorder=recorder,
        waiting_pods=waiting,
        nominator=nominator,
        activate_held=activate_held,
        pdbs=pdbs.store,
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
            namespaces=namespaces.store,
            listers=listers,
            activate=activate,
            leading=leading,
            workloads=workloads,
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
    )
    informers = Informers(
        pods=pods,
        nodes=nodes,
        namespaces=namespaces,
        pdbs=pdbs if preempting(frameworks) else None,
        declared=declared_informers(client, listers, queue),
        workloads=workload_informers(client, workloads),
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
    )
    return Components(
        config=config,
        metrics=metrics,
        cache=cache,
        client=client,
        election_client=election_client,
        recorder=recorder,
        informers=informers,
        frameworks=frameworks,
        queue=queue,
        preemptions=preemptions,
        scheduler=scheduler,
        elector=elector,
        auth_client=auth_client,
        server=_server(config, metrics, auth_client, elector, informers),
    )


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
    for profile in config.profiles:
        fw = build_framework(
            profile=profile,
            registry=registry,
            handle=handles[profile.scheduler_name],
            default_percentage_of_nodes_to_score=config.percentage_of_nodes_to_score,
            observe=metrics.extension_point_observer(profile.scheduler_name),
        )
        frameworks[profile.scheduler_name] = fw
        log.info('"profile" scheduler="%s" plugins="%s"', profile.scheduler_name, fw.list_plugins())
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


def _server(
    config: KubeSchedulerConfiguration,
    metrics: SchedulerMetrics,
    auth_client: KubeClient,
    elector: LeaderElector | None,
    informers: Informers,
) -> HealthServer:
    options = ServingOptions(
        bind_address=config.bind_address,
        secure_port=config.secure_port,
        cert_dir=Path(config.cert_dir or "/tmp/kubesched-serving"),  # noqa: S108
        tls_cert_file=config.tls_cert_file,
        tls_private_key_file=config.tls_private_key_file,
        tls_min_version=config.tls_min_version,
        tls_cipher_suites=config.tls_cipher_suites,
        permit_address_sharing=config.permit_address_sharing,
        permit_port_sharing=config.permit_port_sharing,
    )

    def live() -> bool:
        return elector is None or elector.check() is None

    return HealthServer(
        options=options,
        metrics=metrics,
        ready=informers.synced,
        live=live,
        configz=lambda: configz(config),
        # /metrics and /configz: the API server authenticates and authorizes callers.
        auth=DelegatedAuth(
            auth_client,
            always_allow_paths=_split_paths(config),
            ttl=config.authentication_cache_ttl,
        ),
    )


def _split_paths(config: KubeSchedulerConfiguration) -> tuple[str, ...]:
    """`--authorization-always-allow-paths` values, each possibly a comma-separated list."""
    items = config.authorization_always_allow_paths
    return tuple(path.strip() for item in items for path in item.split(",") if path.strip())
