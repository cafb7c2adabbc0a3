"""Running one kubesched process: `await run_scheduler(config, stop)` returns the exit code.

connect -> check the API server (version, discovery: `apicheck`) -> build (no request) ->
(collision guard) -> informers, events,
serving -> caches synced -> leader election -> scheduling loop while leading.
SIGTERM/SIGINT: stop scheduling, let in-flight bindings finish (bounded), release the
Lease, flush events; exit 0. Lost lease: exit 1 (a restart rebuilds the caches).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.errors import FatalError
from kubesched.framework.logkv import kv
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection, load_connection
from kubesched.kube.read_only import ReadOnlyKubeClient
from kubesched.leaderelection import LeaderElector, OnStartedLeading, check_lease_collision
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.server.apicheck import ApiSupport, check_api_server
from kubesched.server.cachesync import CacheSyncError, wait_synced, watch_informers
from kubesched.server.components import Components, build

log = logging.getLogger(__name__)

SHUTDOWN_BINDING_GRACE_SECONDS = 10.0
CACHE_SYNC_TIMEOUT_SECONDS = 120.0


class AppError(FatalError):
    """A fatal start-up problem; the message is one line that names the fix."""


async def run_scheduler(config: KubeSchedulerConfiguration, stop: asyncio.Event) -> int:
    """Connect, build every part (plugins and profiles are checked before any request, like
    kube-scheduler), then run them until `stop` is set or the Lease is lost."""
    cc = config.client_connection
    connection = await load_connection(kubeconfig=cc.kubeconfig, master=cc.master)
    auth_kubeconfig = config.authentication_kubeconfig or config.authorization_kubeconfig
    auth_connection = None
    if auth_kubeconfig and auth_kubeconfig != cc.kubeconfig:
        auth_connection = await load_connection(kubeconfig=auth_kubeconfig)
    support = await _check_api_server(connection, config)
    components = build(
        support.config,
        connection=connection,
        auth_connection=auth_connection,
        api_support=support,
    )
    try:
        return await run(components, stop)
    finally:
        await _cancel_stragglers()
        for client in components.clients():
            await client.close()
        if components.writer is not None:
            await components.writer.close()


async def _check_api_server(
    connection: Connection, config: KubeSchedulerConfiguration
) -> ApiSupport:
    """The API server's version and what it serves (`kubesched.server.apicheck`), each thing
    kubesched cannot do there logged once as a warning."""
    probe = (ReadOnlyKubeClient if config.shadow_scheduler_name else KubeClient)(connection)
    try:
        support = await check_api_server(probe, config)
    finally:
        await probe.close()
    for notice in support.notices:
        log.warning(notice, extra=kv())
    return support


async def _cancel_stragglers() -> None:
    """End every task still running (abandoned bindings, status patches, preemption) before
    the API clients close, so none of them meets a closed session on the way out."""
    current = asyncio.current_task()
    stragglers = [task for task in asyncio.all_tasks() if task is not current]
    for task in stragglers:
        task.cancel()
    await asyncio.gather(*stragglers, return_exceptions=True)


async def run(components: Components, stop: asyncio.Event) -> int:
    """Run built components until `stop` is set or leadership ends; returns the exit code."""
    tasks: list[asyncio.Task[Any]] = []
    try:
        return await _run(components, stop, tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _spawn(tasks: list[asyncio.Task[Any]], coro: Awaitable[Any], name: str) -> None:
    tasks.append(asyncio.ensure_future(coro))
    tasks[-1].set_name(name)


async def _run(components: Components, stop: asyncio.Event, tasks: list[asyncio.Task[Any]]) -> int:
    config = components.config
    le = config.leader_election
    if le.leader_elect:
        await check_lease_collision(
            components.election_client,
            namespace=le.resource_namespace,
            name=le.resource_name,
            scheduler_names=config.scheduler_names,
        )
    server = components.server
    if config.secure_port:
        await server.start()
        log.info("serving securely", extra=kv(address=config.bind_address, port=server.port))
    _dump_cache_on_sigusr2(components)
    if components.writer is not None:
        await components.writer.start()
    _spawn(tasks, components.recorder.run(), "event recorder")
    _spawn(tasks, _report_pending(components), "pending pods metric")
    components.queue.start()

    async def fill_caches() -> bool:
        for resource, reflector in components.informers.named().items():
            _spawn(tasks, reflector.run(), f"{resource} informer")
        synced = await _wait_synced(components, stop)
        _spawn(tasks, watch_informers(components.informers), "informer watchdog")
        return synced

    try:
        if components.elector is None:
            if not await fill_caches():
                return 0
            if components.shadow is not None:  # decides, compares, writes nothing
                return await components.shadow.run_until(stop)
            return await _run_without_election(components.scheduler, stop)
        # delayCacheUntilActive: a standby fills its caches only once it leads (less memory,
        # slower fail-over), as kube-scheduler.
        delayed = config.delay_cache_until_active
        if not delayed and not await fill_caches():
            return 0
        return await _run_with_election(
            components.elector,
            _leading(components.scheduler, before=fill_caches if delayed else None),
            components,
            stop,
        )
    finally:
        components.queue.close()
        await components.recorder.drain(timeout=5)
        await server.stop()


async def _run_without_election(scheduler: Scheduler, stop: asyncio.Event) -> int:
    loop_task = asyncio.create_task(scheduler.run(), name="scheduling loop")
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({loop_task, stopped}, return_when=asyncio.FIRST_COMPLETED)
    loop_task.cancel()
    stopped.cancel()
    await asyncio.gather(loop_task, stopped, return_exceptions=True)
    await scheduler.binder.wait_idle(SHUTDOWN_BINDING_GRACE_SECONDS)
    return 0


async def _run_with_election(
    elector: LeaderElector, lead: OnStartedLeading, components: Components, stop: asyncio.Event
) -> int:
    scheduler, writer = components.scheduler, components.writer

    async def drain() -> None:
        await scheduler.drain(SHUTDOWN_BINDING_GRACE_SECONDS)
        if writer is not None and elector.is_leader():
            # Before the Lease is released: the writer process sends no more fenced
            # writes, and those it started have ended.
            await writer.close_fence(SHUTDOWN_BINDING_GRACE_SECONDS)

    watcher = asyncio.create_task(_stop_on(stop, elector))
    try:
        result = await elector.run(on_started_leading=lead, before_release=drain)
    finally:
        watcher.cancel()
    await drain()
    log.info(
        "leader election ended",
        extra=kv(reason=result.reason.value, message=result.message),
    )
    return int(result.exit_code)


def _leading(
    scheduler: Scheduler, *, before: Callable[[], Awaitable[bool]] | None = None
) -> OnStartedLeading:
    """The work done while leading: `before` (filling the caches, with
    delayCacheUntilActive), then the scheduling loop, which `Scheduler.drain` stops before
    the Lease is released."""

    async def lead() -> None:
        if before is not None and not await before():
            return  # stopped while filling the caches: the elector is stopping too
        await scheduler.run()

    return lead


async def _stop_on(stop: asyncio.Event, elector: LeaderElector) -> None:
    await stop.wait()
    elector.stop()


async def _wait_synced(components: Components, stop: asyncio.Event) -> bool:
    """Wait for the caches (False when stopped first); see `kubesched.server.cachesync`."""
    informers = components.informers
    try:
        if not await wait_synced(informers, stop, timeout=CACHE_SYNC_TIMEOUT_SECONDS):
            return False
    except CacheSyncError as exc:
        raise AppError(str(exc)) from exc
    # The listed cluster lives as long as the process: keep it out of the cyclic garbage
    # collector's scans, which otherwise walk every cached object again and again.
    gc.freeze()
    log.info(
        "caches synced",
        extra=kv(nodes=len(informers.nodes.store), pods=len(informers.pods.store)),
    )
    return True


async def _report_pending(components: Components) -> None:
    metrics, cache, queue = components.metrics, components.cache, components.queue
    reported: set[tuple[str, str]] = set()
    while True:
        for name, count in queue.pending_counts().items():
            metrics.pending_pods.labels(name).set(count)
        reported = _report_unschedulable(components, reported)
        metrics.cache_size.labels("nodes").set(cache.node_count())
        metrics.cache_size.labels("pods").set(cache.pod_count())
        metrics.cache_size.labels("assumed_pods").set(cache.assumed_count())
        await asyncio.sleep(1)


def _dump_cache_on_sigusr2(components: Components) -> None:
    """As kube-scheduler's cache debugger: SIGUSR2 logs the cache, how it differs from
    what the informers see, and the scheduling queue with its nominated pods."""

    def dump() -> None:
        informers, cache = components.informers, components.cache
        diff = cache.compare(
            nodes=informers.nodes.store.values(), pods=informers.pods.store.values()
        )
        log.info("cache dump", extra=kv(cache=cache.dump()))
        log.info("cache comparison", extra=kv(diff=diff))
        queue = components.queue
        waiting = {
            name: [qpi.pod.key for qpi in pods] for name, pods in queue.pending_pods().items()
        }
        log.info(
            "scheduling queue dump",
            extra=kv(pending=waiting, nominated=queue.nominator.dump()),
        )

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, dump)


def _report_unschedulable(
    components: Components, reported: set[tuple[str, str]]
) -> set[tuple[str, str]]:
    """`scheduler_unschedulable_pods{plugin,profile}`: each waiting pod counts once for every
    plugin that rejected or holds it, as upstream; series that dropped to nothing read 0.
    The queue keeps the counts as pods move: this costs one step per series, not per pod."""
    counts = components.queue.unschedulable_reasons()
    gauge = components.metrics.unschedulable_pods
    for key in reported.union(counts):
        gauge.labels(*key).set(counts.get(key, 0))
    return reported.union(counts)
