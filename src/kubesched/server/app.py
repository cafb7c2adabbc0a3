"""Composition root: builds every part from a completed config, runs them, shuts down cleanly.

connect -> check the API server -> (collision guard) -> informers + events + serving
  -> caches synced -> leader election -> scheduling loop while leading
SIGTERM/SIGINT: stop scheduling, let in-flight bindings finish (bounded), release the
Lease, flush events; exit 0. Lost lease: exit 1 (a restart rebuilds the caches).
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.config import KubeSchedulerConfiguration, dump_config
from kubesched.framework import Framework, WaitingPods, build_framework
from kubesched.framework.builder import check_common_queue_sort
from kubesched.framework.registry import Registry, load_entry_points, load_plugin_modules
from kubesched.informers import Reflector
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.kube.errors import ApiError
from kubesched.leaderelection import (
    LeaderElector,
    OnStartedLeading,
    check_lease_collision,
    new_elector,
)
from kubesched.model import Namespace, Node, Pod, PodDisruptionBudget
from kubesched.plugins import in_tree_registry
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.event_recorder import EventRecorder, ObjectRef
from kubesched.scheduler.eventhandlers import NodeHandler, PodHandler
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption import PLUGIN as PREEMPTION_PLUGIN
from kubesched.scheduler.preemption import Preemptions
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.server.auth import DelegatedAuth
from kubesched.server.serving import HealthServer, ServingOptions

log = logging.getLogger("kubesched")

# Pods that finished hold no resources; like kube-scheduler, do not even list them.
NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed"
# Preemption reads PodDisruptionBudgets; their informer runs only when a profile preempts.
PDB_PATH = "/apis/policy/v1/poddisruptionbudgets"
# Namespace labels, for pod-affinity `namespaceSelector`s (read from the store only).
NAMESPACES_PATH = "/api/v1/namespaces"
SHUTDOWN_BINDING_GRACE_SECONDS = 10.0
CACHE_SYNC_TIMEOUT_SECONDS = 120.0


class AppError(Exception):
    """A fatal start-up problem; the message is one line that names the fix."""


def build_registry(config: KubeSchedulerConfiguration) -> Registry:
    registry = in_tree_registry()
    load_entry_points(registry)
    load_plugin_modules(registry, config.plugin_modules)
    return registry


class App:
    """One kubesched process; `await App(config).run(stop)` returns the exit code."""

    def __init__(self, config: KubeSchedulerConfiguration) -> None:
        self.config = config
        self.metrics = SchedulerMetrics()
        self.cache = SchedulerCache()
        self.snapshot = Snapshot()
        self._tasks: list[asyncio.Task[Any]] = []
        self.synced = False
        self.scheduler: Scheduler | None = None
        self._bindings_abandoned = False
        self._scheduling_loop: asyncio.Task[Any] | None = None
        self.preemptions: Preemptions | None = None

    async def _clients(self) -> tuple[KubeClient, KubeClient]:
        """The API clients (no request yet): one for scheduling, one for leader election."""
        cc = self.config.client_connection
        self._connection = await load_connection(kubeconfig=cc.kubeconfig, master=cc.master)
        client = KubeClient(self._connection, qps=cc.qps, burst=cc.burst)
        # Leader election gets its own client so renewals never wait behind bindings.
        election_client = KubeClient(self._connection, qps=cc.qps, burst=cc.burst)
        return client, election_client

    async def _check_reachable(self, client: KubeClient) -> None:
        server = client.server
        try:
            version = await client.get("/version", timeout=10)
        except ApiError as exc:
            raise AppError(
                f"cannot reach the API server at {server}: {exc}; "
                "check --kubeconfig/--master and that the API server is up"
            ) from exc
        log.info('"connected" server="%s" version="%s"', server, version.get("gitVersion"))

    def _frameworks(
        self,
        client: KubeClient,
        recorder: EventRecorder,
        namespaces: Reflector[Namespace] | None = None,
    ) -> dict[str, Framework]:
        registry = build_registry(self.config)
        waiting = WaitingPods()
        self.preemptions = Preemptions(
            api=client, recorder=recorder, waiting_pods=waiting, metrics=self.metrics
        )
        frameworks = {}
        for profile in self.config.profiles:
            handle = SchedulerHandle(
                profile=profile.scheduler_name,
                snapshot=self.snapshot,
                api=client,
                recorder=recorder,
                waiting_pods=waiting,
                preemptions=self.preemptions,
                namespaces=namespaces.store if namespaces is not None else None,
            )
            frameworks[profile.scheduler_name] = build_framework(
                profile=profile,
                registry=registry,
                handle=handle,
                default_percentage_of_nodes_to_score=self.config.percentage_of_nodes_to_score,
            )
            log.info(
                '"profile" scheduler="%s" plugins="%s"',
                profile.scheduler_name,
                frameworks[profile.scheduler_name].list_plugins(),
            )
        check_common_queue_sort(list(frameworks.values()))
        return frameworks

    def _queue(self, frameworks: dict[str, Framework]) -> SchedulingQueue:
        first = next(iter(frameworks.values()))

        def pre_enqueue(pod: Pod) -> str | None:
            fw = frameworks.get(pod.scheduler_name)
            status = fw.run_pre_enqueue(pod) if fw is not None else None
            return None if status is None or status.is_success() else status.plugin or "?"

        def worth(qpi: Any, event: object) -> bool:
            fw = frameworks.get(qpi.pod.scheduler_name, first)
            return fw.requeue_on(
                plugins=qpi.unschedulable_plugins | qpi.pending_plugins, event=event
            )

        def incoming(queue: str, event: str) -> None:
            self.metrics.queue_incoming_pods.labels(queue, event).inc()

        return SchedulingQueue(
            less=first.queue_sort_less,
            pre_enqueue=pre_enqueue,
            is_worth_requeuing=worth,
            pod_initial_backoff_seconds=self.config.pod_initial_backoff_seconds,
            pod_max_backoff_seconds=self.config.pod_max_backoff_seconds,
            on_incoming=incoming,
        )

    def _record(self, recorder: EventRecorder) -> Any:
        def record(
            *, controller: str, pod: Pod, event_type: str, reason: str, action: str, note: str
        ) -> None:
            recorder.record(
                controller=controller,
                regarding=ObjectRef("Pod", pod.namespace, pod.name, pod.uid),
                type=event_type,
                reason=reason,
                action=action,
                note=note,
            )

        return record

    def _spawn(self, coro: Awaitable[Any], name: str) -> None:
        self._tasks.append(asyncio.ensure_future(coro))
        self._tasks[-1].set_name(name)

    async def run(self, stop: asyncio.Event) -> int:
        client, election_client = await self._clients()
        try:
            # Plugins and profiles are checked before any request, like kube-scheduler.
            recorder = EventRecorder(client)
            namespaces = _namespace_informer(client)
            frameworks = self._frameworks(client, recorder, namespaces)
            await self._check_reachable(client)
            return await self._run(
                client, election_client, recorder, frameworks, stop, namespaces=namespaces
            )
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await client.close()
            await election_client.close()

    async def _run(
        self,
        client: KubeClient,
        election_client: KubeClient,
        recorder: EventRecorder,
        frameworks: dict[str, Framework],
        stop: asyncio.Event,
        *,
        namespaces: Reflector[Namespace],
    ) -> int:
        config = self.config
        le = config.leader_election
        if le.leader_elect:
            await check_lease_collision(
                election_client,
                namespace=le.resource_namespace,
                name=le.resource_name,
                scheduler_names=config.scheduler_names,
            )
        queue = self._queue(frameworks)
        pdbs = self._wire_preemption(client, frameworks, queue)
        pods: Reflector[Pod] = Reflector(
            client,
            path="/api/v1/pods",
            decode=Pod.from_json,
            key=lambda p: p.key,
            version=lambda p: p.resource_version,
            field_selector=NON_TERMINAL_PODS,
            handler=PodHandler(cache=self.cache, queue=queue, scheduler_names=set(frameworks)),
        )
        nodes: Reflector[Node] = Reflector(
            client,
            path="/api/v1/nodes",
            decode=Node.from_json,
            key=lambda n: n.name,
            version=lambda n: n.resource_version,
            handler=NodeHandler(cache=self.cache, queue=queue),
        )
        elector = None
        if le.leader_elect:
            elector = new_elector(
                election_client,
                settings=le,
                scheduler_names=config.scheduler_names,
                event_sink=self._lease_event_sink(recorder),
                metrics=self.metrics.election(le.resource_name),
                before_release=self._drain_bindings,
            )
        if elector is not None and self.preemptions is not None:
            self.preemptions.fenced = elector.fenced
        scheduler = Scheduler(
            frameworks=frameworks,
            cache=self.cache,
            snapshot=self.snapshot,
            queue=queue,
            api=client,
            record_event=self._record(recorder),
            metrics=self.metrics,
            lookup_pod=pods.store.get,
            fenced=elector.fenced if elector else (lambda: False),
        )
        self.scheduler = scheduler
        server = await self._serve(elector, client)
        self._spawn(nodes.run(), "node informer")
        self._spawn(pods.run(), "pod informer")
        self._spawn(namespaces.run(), "namespace informer")
        if pdbs is not None:
            self._spawn(pdbs.run(), "poddisruptionbudget informer")
        self._spawn(recorder.run(), "event recorder")
        self._spawn(self._report_pending(queue), "pending pods metric")
        queue.start()
        try:
            await self._wait_synced(nodes, pods, pdbs, namespaces)
            if elector is None:
                return await self._run_without_election(scheduler, stop)
            return await self._run_with_election(elector, scheduler, stop)
        finally:
            queue.close()
            await recorder.drain(timeout=5)
            await server.stop()

    async def _run_without_election(self, scheduler: Scheduler, stop: asyncio.Event) -> int:
        loop_task = asyncio.create_task(scheduler.run(), name="scheduling loop")
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({loop_task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        loop_task.cancel()
        stopped.cancel()
        await asyncio.gather(loop_task, stopped, return_exceptions=True)
        await scheduler.binder.wait_idle(SHUTDOWN_BINDING_GRACE_SECONDS)
        return 0

    async def _drain_bindings(self) -> None:
        """Before the Lease is released: stop taking pods, let in-flight bindings finish,
        within a bound.

        Called by the elector before it releases the Lease and again once the election has
        ended; bindings abandoned the first time are not waited for a second time. The
        scheduling loop stops first: a pod it took now would only fail the fence check and
        be reported as a FailedScheduling error in the middle of a clean hand-over."""
        loop_task = self._scheduling_loop
        if loop_task is not None and not loop_task.done():
            loop_task.cancel()
            await asyncio.wait([loop_task], timeout=SHUTDOWN_BINDING_GRACE_SECONDS)
        if self.scheduler is None or self._bindings_abandoned:
            return
        if not await self.scheduler.binder.wait_idle(SHUTDOWN_BINDING_GRACE_SECONDS):
            self._bindings_abandoned = True
            log.warning('"abandoning in-flight bindings at shutdown"')

    async def _run_with_election(
        self, elector: LeaderElector, scheduler: Scheduler, stop: asyncio.Event
    ) -> int:
        watcher = asyncio.create_task(self._stop_on(stop, elector))
        try:
            result = await elector.run(on_started_leading=self._leading(scheduler))
        finally:
            watcher.cancel()
        await self._drain_bindings()
        log.info(
            '"leader election ended" reason="%s" message="%s"', result.reason.value, result.message
        )
        return int(result.exit_code)

    def _leading(self, scheduler: Scheduler) -> OnStartedLeading:
        """The work done while leading: the scheduling loop, as a task `_drain_bindings`
        can stop before the Lease is released."""

        async def lead() -> None:
            self._scheduling_loop = asyncio.current_task()
            await scheduler.run()

        return lead

    @staticmethod
    async def _stop_on(stop: asyncio.Event, elector: LeaderElector) -> None:
        await stop.wait()
        elector.stop()

    def _lease_event_sink(self, recorder: EventRecorder) -> Any:
        le = self.config.leader_election
        ref = ObjectRef(
            "Lease", le.resource_namespace, le.resource_name, api_version="coordination.k8s.io/v1"
        )

        def sink(reason: str, message: str) -> None:
            recorder.record(
                controller=self.config.profiles[0].scheduler_name,
                regarding=ref,
                type="Normal",
                reason=reason,
                action="LeaderElection",
                note=message,
            )

        return sink

    def _wire_preemption(
        self, client: KubeClient, frameworks: dict[str, Framework], queue: SchedulingQueue
    ) -> Reflector[PodDisruptionBudget] | None:
        """Give preemption the queue (nominated pods) and, when a profile has
        DefaultPreemption, a PodDisruptionBudget informer, returned to be run (else None)."""
        assert self.preemptions is not None
        self.preemptions.queue = queue
        post_filters = (pl.name for fw in frameworks.values() for pl in fw.plugins.post_filter)
        if PREEMPTION_PLUGIN not in post_filters:
            return None
        informer: Reflector[PodDisruptionBudget] = Reflector(
            client,
            path=PDB_PATH,
            decode=PodDisruptionBudget.from_json,
            key=lambda pdb: pdb.key,
            version=lambda pdb: pdb.resource_version,
            handler=_IgnoreEvents(),
        )
        self.preemptions.pdbs = informer.store
        return informer

    async def _wait_synced(
        self,
        nodes: Reflector[Node],
        pods: Reflector[Pod],
        pdbs: Reflector[PodDisruptionBudget] | None = None,
        namespaces: Reflector[Namespace] | None = None,
    ) -> None:
        try:
            async with asyncio.timeout(CACHE_SYNC_TIMEOUT_SECONDS):
                await nodes.synced.wait()
                await pods.synced.wait()
                if pdbs is not None:
                    await pdbs.synced.wait()
                if namespaces is not None:
                    await namespaces.synced.wait()
        except TimeoutError as exc:
            raise AppError(
                "informer caches did not sync in time; check API server health and "
                "RBAC (list/watch pods, nodes and namespaces, and poddisruptionbudgets when "
                "preempting)"
            ) from exc
        self.synced = True
        # The listed cluster lives as long as the process: keep it out of the cyclic garbage
        # collector's scans, which otherwise walk every cached object again and again.
        gc.freeze()
        log.info('"caches synced" nodes=%d pods=%d', len(nodes.store), len(pods.store))

    async def _serve(self, elector: LeaderElector | None, client: KubeClient) -> HealthServer:
        config = self.config
        options = ServingOptions(
            bind_address=config.bind_address,
            secure_port=config.secure_port,
            cert_dir=Path(config.cert_dir or "/tmp/kubesched-serving"),  # noqa: S108
            tls_cert_file=config.tls_cert_file,
            tls_private_key_file=config.tls_private_key_file,
        )

        def live() -> bool:
            return elector is None or elector.check() is None

        server = HealthServer(
            options=options,
            metrics=self.metrics,
            ready=lambda: self.synced,
            live=live,
            configz=lambda: dump_config(config),
            # /metrics and /configz: the API server authenticates and authorizes callers.
            auth=DelegatedAuth(client, always_allow_paths=_split_paths(config)),
        )
        if config.secure_port:
            await server.start()
            log.info('"serving securely" address="%s" port=%d', config.bind_address, server.port)
        return server

    async def _report_pending(self, queue: SchedulingQueue) -> None:
        while True:
            for name, count in queue.pending_counts().items():
                self.metrics.pending_pods.labels(name).set(count)
            self.metrics.cache_size.labels("nodes").set(self.cache.node_count())
            self.metrics.cache_size.labels("pods").set(self.cache.pod_count())
            self.metrics.cache_size.labels("assumed_pods").set(self.cache.assumed_count())
            await asyncio.sleep(1)


def _namespace_informer(client: KubeClient) -> Reflector[Namespace]:
    """Namespaces, kept as name -> labels for pod-affinity `namespaceSelector`s."""
    return Reflector(
        client,
        path=NAMESPACES_PATH,
        decode=Namespace.from_json,
        key=lambda ns: ns.name,
        version=lambda ns: ns.resource_version,
        handler=_IgnoreEvents(),
    )


class _IgnoreEvents:
    """PDBs and namespaces are only read from their informers' stores; their changes
    trigger nothing (as upstream, no plugin requeues pods on namespace events)."""

    def on_add(self, obj: object) -> None:
        pass

    def on_update(self, old: object, new: object) -> None:
        pass

    def on_delete(self, obj: object) -> None:
        pass


def _split_paths(config: KubeSchedulerConfiguration) -> tuple[str, ...]:
    """`--authorization-always-allow-paths` values, each possibly a comma-separated list."""
    items = config.authorization_always_allow_paths
    return tuple(path.strip() for item in items for path in item.split(",") if path.strip())
