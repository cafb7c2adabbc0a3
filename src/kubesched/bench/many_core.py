"""What more cores would give each contender: a model fed by one run's CPU figures.

Every contender's run keeps the machine's cores busy, so a rate on C cores is bounded twice:

    rate(C)    = min(C / system, ceiling(C))
    system     = CPU a bound pod of every process: the contender, kube-apiserver, etcd, the
                 benchmark's pod creator (and kube-controller-manager when it runs)
    ceiling(C) = 1 / (serial + on_path / min(workers, C))

`serial` is the CPU a pod spends on the one path that takes the pods one after the other
(more cores do not shorten it); `on_path` is work that path waits for but that spreads over
`workers` parallel workers; the rest of the contender's CPU (`parallel`) runs beside the
path and only counts in `system`. kube-apiserver and etcd are assumed to scale with the
cores (their CPU a pod stays what it was on this machine, and spreads over all cores).

- **kubesched**: `serial` is its scheduling thread's CPU a pod (/proc/<pid>/task/<pid>/stat:
  the cycle, the binding cycle, the event recorder, the informers all run on it);
  `parallel` is the rest (other threads, the writer process when it is on).
- **null binder**: one Python thread; `serial` is its whole CPU.
- **kube-scheduler** (and scheduler-plugins' build of it): from its own metrics over the
  measured phase (`bench.scheduler_metrics`), `serial` is the wall time a pod of its
  scheduling loop outside the parallel sections, (algorithm - Filter - Score + Reserve +
  Permit) / pods, capped at its CPU a pod; `on_path` is the Filter and Score sections'
  wall time times the cores of this machine (their 16 workers can use no more), capped at
  the CPU left; `workers` is 16 (kube-scheduler's default parallelism). Its garbage
  collector, binding goroutines, informers and event broadcaster are counted as parallel:
  they run on goroutines of their own, beside the loop. Limits: a wall time is an upper
  bound of the CPU (on a busy machine the loop also waits for a core), so `serial` tends
  to be high and kube-scheduler's ceiling low; the queue's pop and the loop's work between
  two cycles are not timed (they count as parallel); PreFilter's and PreScore's own
  parallel loops (InterPodAffinity, PodTopologySpread) count as serial.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kubesched.bench.contenders import (
    KUBE_SCHEDULER,
    KUBESCHED,
    NULL_BINDER,
    SCHEDULER_PLUGINS,
    source_tree,
)

if TYPE_CHECKING:
    from kubesched.bench.runner import ContenderResult

CORES = (8, 16, 32)
"""The core counts the model predicts for."""
KUBE_SCHEDULER_WORKERS = 16
"""kube-scheduler's default `parallelism`: the workers of its Filter and Score sections."""


@dataclass(frozen=True, slots=True)
class CpuSplit:
    """One contender's CPU milliseconds a bound pod, split for the model."""

    serial_ms: float
    """On the path that takes the pods one after the other: more cores do not shorten it."""
    parallel_ms: float
    """The rest of the contender's CPU: it runs beside the serial path."""
    system_ms: float
    """Every process's CPU: the contender, kube-apiserver, etcd, the pod creator."""
    on_path_ms: float = 0.0
    """Of `parallel_ms`, what the serial path waits for, spread over `workers`."""
    workers: int = 1

    def ceiling(self, cores: int) -> float:
        """Pods a second the serial path allows on `cores` cores."""
        path_ms = self.serial_ms + self.on_path_ms / min(self.workers, cores)
        return 1000.0 / path_ms if path_ms > 0 else float("inf")

    def rate(self, cores: int) -> float:
        """Predicted pods a second on `cores` cores: the smaller of both bounds."""
        system = cores * 1000.0 / self.system_ms if self.system_ms > 0 else float("inf")
        return min(system, self.ceiling(cores))


def one_thread(*, cpu_ms: float, thread_ms: float, system_ms: float) -> CpuSplit:
    """kubesched: its scheduling thread is the serial path."""
    serial = min(thread_ms, cpu_ms)
    return CpuSplit(serial, cpu_ms - serial, system_ms)


def whole(*, cpu_ms: float, system_ms: float) -> CpuSplit:
    """A one-thread contender (the null binder): all of its CPU is serial."""
    return CpuSplit(cpu_ms, 0.0, system_ms)


def go_scheduler(
    *, cpu_ms: float, system_ms: float, loop_ms: Mapping[str, float], cpus: int
) -> CpuSplit:
    """kube-scheduler: its loop's wall time a pod (`loop_ms`: `scheduler_metrics.LOOP_KEYS`
    but `cycles`, in ms a pod) outside Filter and Score is serial; Filter and Score, on at
    most `cpus` cores, wait on the path over 16 workers."""
    get = loop_ms.get
    outside = get("algorithm", 0.0) - get("filter", 0.0) - get("score", 0.0)
    serial = min(max(outside + get("reserve", 0.0) + get("permit", 0.0), 0.0), cpu_ms)
    parallel = cpu_ms - serial
    on_path = min(cpus * (get("filter", 0.0) + get("score", 0.0)), parallel)
    return CpuSplit(serial, parallel, system_ms, on_path, KUBE_SCHEDULER_WORKERS)


def split_for(result: ContenderResult, cpus: int) -> CpuSplit | str:
    """The split of a contender's run, or why there is none."""
    if result.failure or result.skipped or result.bound <= 0:
        return "no run"
    per_pod = 1000.0 / result.bound
    cpu_ms = result.cpu_seconds * per_pod
    system_ms = cpu_ms + sum(result.control_plane_cpu.values()) * per_pod
    name = result.name
    if name == KUBESCHED or source_tree(name) is not None:
        thread_ms = result.main_thread_cpu_seconds * per_pod
        return one_thread(cpu_ms=cpu_ms, thread_ms=thread_ms, system_ms=system_ms)
    if name == NULL_BINDER:
        return whole(cpu_ms=cpu_ms, system_ms=system_ms)
    if name in (KUBE_SCHEDULER, SCHEDULER_PLUGINS):
        if result.scheduler_metrics_problem or not result.scheduler_loop:
            return result.scheduler_metrics_problem or "no metrics"
        loop_ms = {key: seconds * per_pod for key, seconds in result.scheduler_loop.items()}
        return go_scheduler(cpu_ms=cpu_ms, system_ms=system_ms, loop_ms=loop_ms, cpus=cpus)
    return f"no model for {name}"


def split_json(result: ContenderResult, cpus: int) -> dict[str, Any]:
    """`many_core` of a contender in results.json / suite.json."""
    split = split_for(result, cpus)
    if isinstance(split, str):
        return {"problem": split}
    return {
        "serial_ms": split.serial_ms,
        "parallel_ms": split.parallel_ms,
        "on_path_ms": split.on_path_ms,
        "workers": split.workers,
        "system_ms": split.system_ms,
        "pods_per_second": {str(cores): split.rate(cores) for cores in CORES},
    }


def ratios(results: Sequence[ContenderResult], cpus: int) -> dict[str, float]:
    """kubesched's predicted rate over kube-scheduler's at each of `CORES` ({} if either
    has no model)."""
    by_name = {r.name: split_for(r, cpus) for r in results}
    ours, theirs = by_name.get(KUBESCHED), by_name.get(KUBE_SCHEDULER)
    if not isinstance(ours, CpuSplit) or not isinstance(theirs, CpuSplit):
        return {}
    return {str(cores): ours.rate(cores) / theirs.rate(cores) for cores in CORES}


HEADER = (
    "| test case | contender | serial ms/pod | parallel ms/pod | system ms/pod "
    "| pods/s at " + " / ".join(map(str, CORES)) + " cores |"
)


def table(cases: Sequence[tuple[str, Sequence[ContenderResult], int]]) -> list[str]:
    """Markdown lines: the model's split and predictions per (test case, results, cpus)."""
    lines = [HEADER, "|---|---|---:|---:|---:|---:|"]
    for case, results, cpus in cases:
        for result in results:
            split = split_for(result, cpus)
            if isinstance(split, CpuSplit):
                rates = " / ".join(f"{split.rate(cores):.0f}" for cores in CORES)
                cells = f"{split.serial_ms:.2f} | {split.parallel_ms:.2f} | {split.system_ms:.2f}"
                lines.append(f"| {case} | {result.name} | {cells} | {rates} |")
            elif split != "no run":
                lines.append(f"| {case} | {result.name} | - | - | - | {split} |")
        versus = ratios(results, cpus)
        if versus:
            cells = " / ".join(f"{versus[str(cores)]:.2f}x" for cores in CORES)
            lines.append(f"| {case} | kubesched / kube-scheduler | | | | {cells} |")
    return lines if len(lines) > 2 else []


NOTE = (
    'Many-core model (docs/performance.md, "Where the cost is, and what more cores give"): '
    "rate(C) = min(C / system, 1 / (serial + on-path / min(workers, C))); serial = "
    "kubesched's scheduling thread, the null binder's whole CPU, kube-scheduler's loop "
    "outside Filter and Score (its metrics' wall time); kube-apiserver and etcd assumed "
    "to scale with the cores."
)
