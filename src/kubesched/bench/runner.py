"""One contender's run: a fresh control plane, nodes, the contender, initial pods, then the
measured pods with the throughput sampler running, then the checks.

    cluster up -> N nodes -> contender started -> I initial pods, all bound (or one warm-up
    pod when I = 0: the contender is known to be ready) -> [pods not waited for: gated ones,
    ones deleted later; for some cases, until the scheduler attempted each] -> watch +
    sampler -> M measured pods created -> all bound (or stalled / contender exited) ->
    checks -> cluster down

A DRA workload also gets kube-controller-manager with the resourceclaim controller (as
scheduler_perf runs it: it makes each pod's claims from their templates) and its objects
(ResourceSlices, DeviceClass, claims, templates; some claims allocated directly) after the
nodes. A steady-state workload keeps M pods pending for its duration instead (`steady`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.bench.barrier import create_unwaited
from kubesched.bench.checks import workload_problems
from kubesched.bench.churn import run_churn
from kubesched.bench.contenders import NULL_BINDER, SERVES_METRICS, ClientLimits, start_contender
from kubesched.bench.dra_setup import prepare_dra
from kubesched.bench.gates import cluster_options, scheduler_gate_flags
from kubesched.bench.load import create_all
from kubesched.bench.numa_setup import prepare_topologies
from kubesched.bench.procstat import (
    cpu_seconds,
    thread_cpu_seconds,
    tree_cpu_seconds,
    tree_peak_rss_bytes,
)
from kubesched.bench.quota_setup import prepare_quotas
from kubesched.bench.scheduler_metrics import LoopMetrics
from kubesched.bench.script import ScriptSettings, run_prelude, run_steps
from kubesched.bench.stats import Summary, ThroughputSampler, nearest_rank
from kubesched.bench.steady import SteadyPods
from kubesched.bench.templates import pod_default
from kubesched.bench.templates_more import NAMESPACE_LABELS
from kubesched.bench.tracker import PodTracker, TrackerError
from kubesched.bench.workloads import PodGroup, Workload
from kubesched.errors import KubeschedError
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.kube.errors import ApiError
from kubesched.localcluster import LocalCluster, LocalClusterError, Process

SAMPLE_INTERVAL = 1.0
WARM_UP_NAMESPACE = "bench-warm-up"
WARM_UP_POD = f"/api/v1/namespaces/{WARM_UP_NAMESPACE}/pods/warm-up-0"
DRA_CONTROLLER_FLAGS = (
    "--controllers=resourceclaim-controller,garbage-collector-controller",
    "--concurrent-resourceclaim-syncs=5",
    "--kube-api-qps=5000",
    "--kube-api-burst=5000",
)
"""kube-controller-manager for DRA workloads, as scheduler_perf's `mustSetupCluster`: the
resourceclaim controller with 5 workers and the garbage collector, on a 5000 QPS client
(no node lifecycle controller: the nodes have no kubelet)."""

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BenchSettings:
    """Everything one invocation of the benchmark runs with."""

    workload: Workload
    limits: ClientLimits
    create_concurrency: int = 32
    """Pod and node creations in flight at once."""
    create_rate: float = 0.0
    """Measured pods created per second; 0: as fast as the API server accepts them."""
    stall_timeout: float = 120.0
    """A run with no pod bound for this long fails."""
    scheduler_flags: tuple[str, ...] = ()
    """Flags both schedulers get after their own (the null binder takes none)."""


@dataclass(slots=True)
class ContenderResult:
    """The figures of one contender (or why it failed)."""

    name: str
    failure: str = ""
    skipped: str = ""
    """Why the contender did not run this workload (the null binder cannot preempt)."""
    throughput: Summary = field(default_factory=lambda: Summary.of([]))
    samples: list[float] = field(default_factory=list)
    whole_run_rate: float = 0.0
    samples_fallback: bool = False
    latency_p50: float = 0.0
    latency_p99: float = 0.0
    cpu_seconds: float = 0.0
    """CPU of the contender and every process it started (kubesched's writer process)."""
    main_thread_cpu_seconds: float = 0.0
    """CPU of the contender's main thread alone (kubesched's scheduling thread)."""
    peak_rss_bytes: int = 0
    control_plane_cpu: dict[str, float] = field(default_factory=dict)
    scheduler_loop: dict[str, float] = field(default_factory=dict)
    """kube-scheduler's timings of its loop over the measured phase, from its /metrics
    (`bench.scheduler_metrics`); empty for the other contenders."""
    scheduler_metrics_problem: str = ""
    """Why `scheduler_loop` could not be read (the run itself is not failed for it)."""
    duration: float = 0.0
    bound: int = 0
    bound_times: list[float] = field(default_factory=list)
    """Seconds after the first measured pod was created at which each pod was bound."""
    round_averages: list[float] = field(default_factory=list)
    """With several rounds: the Average of every round that passed (this is the median)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "failure": self.failure,
            "skipped": self.skipped,
            "throughput": {
                "average": self.throughput.average,
                "p50": self.throughput.p50,
                "p90": self.throughput.p90,
                "p99": self.throughput.p99,
                "samples": self.samples,
                "whole_run_rate": self.whole_run_rate,
                "samples_fallback": self.samples_fallback,
            },
            "latency_seconds": {"p50": self.latency_p50, "p99": self.latency_p99},
            "cpu_seconds": self.cpu_seconds,
            "main_thread_cpu_seconds": self.main_thread_cpu_seconds,
            "peak_rss_bytes": self.peak_rss_bytes,
            "control_plane_cpu_seconds": self.control_plane_cpu,
            "scheduler_loop_seconds": self.scheduler_loop,
            "scheduler_metrics_problem": self.scheduler_metrics_problem,
            "duration_seconds": self.duration,
            "bound": self.bound,
            "round_averages": self.round_averages,
            "bound_times": [round(t, 4) for t in self.bound_times],
        }


@dataclass(frozen=True, slots=True)
class _CpuBefore:
    """CPU seconds when the measured phase started: the contender's, the benchmark
    client's, and every control plane process's."""

    contender: float
    client: float
    plane: dict[str, float]
    main_thread: float = 0.0


class RunFailed(KubeschedError):
    """The contender did not finish the run; the message says why."""


def run_contender(name: str, settings: BenchSettings, progress: Progress) -> ContenderResult:
    """Run one contender on its own fresh control plane; never raises for its failures."""
    result = ContenderResult(name=name)
    progress(f"[{name}] starting a local control plane")
    gates = settings.workload.feature_gates
    cluster = LocalCluster(progress=lambda _message: None, **cluster_options(gates))
    try:
        cluster.start()
        if settings.workload.dra is not None:
            cluster.start_controller_manager(extra_args=DRA_CONTROLLER_FLAGS)
        asyncio.run(_Run(name, cluster, settings, progress, result).run())
    except Exception as exc:  # any failure becomes the contender's FAILED row
        message = str(exc).splitlines()[0] if str(exc) else ""
        known = isinstance(exc, RunFailed | LocalClusterError | ApiError | TrackerError)
        result.failure = message if known and message else f"{type(exc).__name__}: {message}"
        logs = cluster.logs_dir / f"{name}.log" if cluster.server else None
        if logs is not None and logs.exists():
            cluster.keep_logs = True
            result.failure += f" (log: {logs})"
    finally:
        cluster.stop()
    return result


class _Run:
    def __init__(
        self,
        name: str,
        cluster: LocalCluster,
        settings: BenchSettings,
        progress: Progress,
        result: ContenderResult,
    ) -> None:
        self.name = name
        self.cluster = cluster
        self.settings = settings
        self.workload = settings.workload
        self.progress = progress
        self.result = result
        serves = name in SERVES_METRICS
        token, profile = cluster.admin_token, settings.limits.scheduler_name
        self.loop = LoopMetrics.on_free_port(serves=serves, token=token, profile=profile)

    async def run(self) -> None:
        connection = await load_connection(kubeconfig=str(self.cluster.kubeconfig_path))
        connections = self.settings.create_concurrency + 8
        client = KubeClient(connection, qps=1e6, burst=1_000_000, max_connections=connections)
        try:
            await self._run(client)
        finally:
            await client.close()

    async def _run(self, client: KubeClient) -> None:
        labelled = set(self.workload.labelled_namespaces)
        for namespace in [*self.workload.all_namespaces(), WARM_UP_NAMESPACE]:
            metadata: dict[str, Any] = {"name": namespace}
            if namespace in labelled:
                metadata["labels"] = dict(NAMESPACE_LABELS)
            namespace_body = {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}
            await client.post("/api/v1/namespaces", namespace_body)
        for name, value in self.workload.priority_classes:
            body: dict[str, Any] = {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
            await client.post("/apis/scheduling.k8s.io/v1/priorityclasses", body)
        self.progress(f"[{self.name}] creating {self.workload.nodes} nodes")
        nodes = (("/api/v1/nodes", self.workload.node(i)) for i in range(self.workload.nodes))
        await create_all(client, nodes, concurrency=self.settings.create_concurrency)
        for path, body in self.workload.objects:
            await client.post(path, body)
        if self.workload.topologies is not None:
            self.progress(f"[{self.name}] creating the NodeResourceTopology objects")
            await prepare_topologies(
                client,
                self.workload.topologies,
                self.workload.nodes,
                concurrency=self.settings.create_concurrency,
            )
        if self.workload.quotas:
            self.progress(f"[{self.name}] creating {len(self.workload.quotas)} ElasticQuotas")
            await prepare_quotas(client, self.workload.quotas)
        if self.workload.dra is not None:
            self.progress(f"[{self.name}] creating the DRA objects")
            allocated = await prepare_dra(
                client, self.workload.dra, concurrency=self.settings.create_concurrency
            )
            if allocated:
                self.progress(f"[{self.name}] {allocated} claims allocated directly")
        process = start_contender(
            self.name,
            self.cluster,
            self.settings.limits,
            flags=(
                *scheduler_gate_flags(self.workload.feature_gates),
                *self.settings.scheduler_flags,
            ),
            plugin_config=self.workload.plugin_config,
            plugins=self.workload.plugins,
            metrics_port=self.loop.port,
        )
        assert process.pid is not None
        await self._initial_pods(client, process)
        await create_unwaited(client, self.settings)
        if self.workload.script is not None:
            await run_prelude(client, self.workload.script, WARM_UP_POD)
        await self._measure(client, process)

    def _initial(self) -> list[PodGroup]:
        """The initial pods; with none, one warm-up pod proves the contender is ready."""
        groups = [group for group in self.workload.initial if group.count]
        if groups:
            return groups
        return [PodGroup(pod_default, 1, WARM_UP_NAMESPACE, "warm-up-")]

    async def _initial_pods(self, client: KubeClient, process: Process) -> None:
        groups = self._initial()
        count = sum(group.count for group in groups)
        self.progress(f"[{self.name}] {count} initial pod(s), waiting until all are bound")
        namespaces = dict.fromkeys(ns for group in groups for ns in group.namespaces())
        trackers = [PodTracker(client, ns) for ns in namespaces]
        for tracker in trackers:
            await tracker.start()
        watches = [asyncio.create_task(tracker.run()) for tracker in trackers]
        name = self.settings.limits.scheduler_name
        try:
            pods = itertools.chain.from_iterable(group.pods(name) for group in groups)
            await create_all(client, pods, concurrency=self.settings.create_concurrency)
            last, last_change = 0, time.monotonic()
            while (bound := sum(t.bound for t in trackers)) < count:
                for watch in watches:
                    _check_alive(watch, process)
                if bound != last:
                    last, last_change = bound, time.monotonic()
                if time.monotonic() - last_change > self.settings.stall_timeout:
                    waiting = ", ".join(t.pending() for t in trackers if t.bound < len(t.pods))
                    raise RunFailed(
                        f"stalled: {bound}/{count} initial pods bound; waiting: {waiting}"
                    )
                await asyncio.sleep(0.1)
        finally:
            for watch in watches:
                watch.cancel()

    async def _measure(self, client: KubeClient, process: Process) -> None:
        total = self.workload.pods
        measured = self.workload.measured
        name = self.settings.limits.scheduler_name
        steady = SteadyPods(client, measured, name) if self.workload.steady > 0 else None
        script = self.workload.script
        tracker = PodTracker(
            client,
            measured.namespaces(),
            steady=steady is not None,
            on_bound=steady.bound if steady is not None else None,
            selector=script.selector if script is not None else "",
        )
        await tracker.start()
        watch = asyncio.create_task(tracker.run())
        pid = process.pid or 0
        plane = {n: p.pid or 0 for n, p in self.cluster.processes.items() if n != self.name}
        await self.loop.start()
        before = _CpuBefore(
            tree_cpu_seconds(pid),
            time.process_time(),
            {n: cpu_seconds(p) for n, p in plane.items()},
            thread_cpu_seconds(pid),
        )
        churn = self.workload.churn
        tasks = [watch]
        if churn is not None:
            tasks.append(asyncio.create_task(run_churn(client, churn, name)))
        started = time.monotonic()
        concurrency = self.settings.create_concurrency
        if steady is not None:
            creation = steady.run(concurrency=concurrency)
        elif script is not None:
            stall = self.settings.stall_timeout
            creation = run_steps(client, script, ScriptSettings(name, concurrency, stall))
        else:
            creation = create_all(
                client,
                measured.pods(name),
                concurrency=concurrency,
                rate=self.settings.create_rate,
                at=self.workload.arrivals,
            )
        creator = asyncio.create_task(creation)
        tasks.append(creator)
        try:
            sampler = await self._sample(tracker, total, started, tasks, process)
            if steady is None:
                await creator
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*tasks, return_exceptions=True)
        self._figures(tracker, sampler, started, pid, before)
        self.result.scheduler_loop, self.result.scheduler_metrics_problem = await self.loop.finish()
        expected = None if steady is not None else total
        allocates = self.name != NULL_BINDER
        problems = await workload_problems(
            client, tracker, self.workload, expected=expected, allocates=allocates
        )
        if problems:
            raise RunFailed("; ".join(problems))

    def _figures(
        self,
        tracker: PodTracker,
        sampler: ThroughputSampler,
        started: float,
        pid: int,
        before: _CpuBefore,
    ) -> None:
        result = self.result
        if self.workload.steady > 0:
            result.duration = self.workload.steady
        else:
            result.duration = max(tracker.bound_times()[-1] - started, 1e-9)
        result.cpu_seconds = tree_cpu_seconds(pid) - before.contender
        result.main_thread_cpu_seconds = thread_cpu_seconds(pid) - before.main_thread
        result.peak_rss_bytes = tree_peak_rss_bytes(pid)
        plane = {n: p.pid or 0 for n, p in self.cluster.processes.items() if n in before.plane}
        result.control_plane_cpu = {n: cpu_seconds(p) - before.plane[n] for n, p in plane.items()}
        result.control_plane_cpu["bench client"] = time.process_time() - before.client
        result.whole_run_rate = tracker.bound / result.duration
        # A run shorter than two sample intervals has no interval sample: use the whole run.
        result.samples_fallback = not sampler.samples
        result.samples = sampler.samples or [result.whole_run_rate]
        result.throughput = Summary.of(result.samples)
        latencies = sorted(tracker.latencies())
        result.latency_p50 = nearest_rank(latencies, 50)
        result.latency_p99 = nearest_rank(latencies, 99)
        result.bound = tracker.bound
        result.bound_times = [t - started for t in tracker.bound_times()]

    def _done(self, tracker: PodTracker, total: int, started: float, now: float) -> bool:
        if self.workload.steady > 0:
            return now - started >= self.workload.steady
        return tracker.bound >= total

    async def _sample(
        self,
        tracker: PodTracker,
        total: int,
        started: float,
        tasks: Sequence[asyncio.Task[None]],
        process: Process,
    ) -> ThroughputSampler:
        """Read the bound count once per interval until every measured pod is bound (in a
        steady-state run: until its duration is over)."""
        sampler = ThroughputSampler(interval=SAMPLE_INTERVAL)
        tick = 0
        last, last_change = 0, started
        while not self._done(tracker, total, started, time.monotonic()):
            tick += 1
            await asyncio.sleep(max(started + tick * SAMPLE_INTERVAL - time.monotonic(), 0))
            now = time.monotonic()
            bound = tracker.bound
            sampler.observe(now, bound)
            for task in tasks:
                _check_alive(task, process)
            if bound != last:
                last, last_change = bound, now
            elif now - last_change > self.settings.stall_timeout:
                raise RunFailed(
                    f"stalled: {bound}/{total} measured pods bound; waiting: {tracker.pending()}"
                )
            rate = sampler.samples[-1] if sampler.samples else 0.0
            self.progress(
                f"[{self.name}] {bound}/{total} bound, {len(tracker.pods)} created, "
                f"{rate:.0f} pods/s, {now - started:.0f} s",
            )
        if tracker.bound == 0:
            raise RunFailed("no pod at all got scheduled")
        return sampler


def _check_alive(task: asyncio.Task[None], process: Process) -> None:
    if not process.running():
        raise RunFailed(f"the contender exited with code {process.returncode()}")
    if task.done() and not task.cancelled() and task.exception() is not None:
        exc = task.exception()
        raise RunFailed(f"{type(exc).__name__}: {exc}")
