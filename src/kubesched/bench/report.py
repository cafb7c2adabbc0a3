"""The benchmark's outputs: a Markdown table with ratios, raw JSON, and a PNG plot."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubesched.bench import many_core
from kubesched.bench.contenders import KUBE_SCHEDULER, KUBESCHED, NULL_BINDER, SCHEDULER_PLUGINS
from kubesched.bench.runner import BenchSettings, ContenderResult

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Machine:
    """Where the run happened: CPUs and load average at the start and the end."""

    cpus: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    python: str = platform.python_version()

    def describe(self) -> str:
        before = ", ".join(f"{x:.2f}" for x in self.load_before)
        after = ", ".join(f"{x:.2f}" for x in self.load_after)
        return (
            f"{self.cpus} CPUs ({platform.machine()}), Python {self.python}; "
            f"load average {before} before, {after} after"
        )


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def _row(result: ContenderResult) -> str:
    if result.skipped:
        return f"| {result.name} | n/a: {result.skipped} |" + " |" * 8
    if result.failure:
        return f"| {result.name} | FAILED: {result.failure} |" + " |" * 8
    t = result.throughput
    mark = "*" if result.samples_fallback else ""
    cells = [
        result.name,
        _fmt(t.average) + mark,
        _fmt(t.p50) + mark,
        _fmt(t.p90) + mark,
        _fmt(t.p99) + mark,
        f"{result.latency_p50:.2f}",
        f"{result.latency_p99:.2f}",
        _fmt(result.cpu_seconds),
        f"{result.peak_rss_bytes / MIB:.0f}",
        "passed",
    ]
    return "| " + " | ".join(cells) + " |"


def _per_pod_cpu(results: Sequence[ContenderResult], pods: int) -> list[str]:
    """CPU ms a pod of each contender that ran, and of kubesched's scheduling thread."""
    ran = [r for r in results if not r.failure and not r.skipped and r.cpu_seconds]
    if not ran or pods <= 0:
        return []
    parts = []
    for r in ran:
        text = f"{r.name} {r.cpu_seconds / pods * 1000:.2f} ms"
        if r.name.startswith(KUBESCHED):
            text += f" (its scheduling thread {r.main_thread_cpu_seconds / pods * 1000:.2f} ms)"
        parts.append(text)
    return ["CPU a measured pod: " + ", ".join(parts)]


def _ratio(a: ContenderResult | None, b: ContenderResult | None) -> tuple[float, float] | None:
    if a is None or b is None or a.failure or b.failure or not b.throughput.average:
        return None
    if a.skipped or b.skipped:
        return None
    rss = a.peak_rss_bytes / b.peak_rss_bytes if b.peak_rss_bytes else 0.0
    return a.throughput.average / b.throughput.average, rss


def markdown(results: Sequence[ContenderResult], settings: BenchSettings, machine: Machine) -> str:
    """The table of contenders x figures, the ratios and what the run was."""
    w = settings.workload
    note = f" ({w.note})" if w.note else ""
    lines = [
        (
            f"Workload `{w.name}`: {w.nodes} nodes, {w.initial_pods} initial pods, "
            f"{w.pods} measured pods{note}; client QPS/burst {settings.limits.qps:g}/"
            f"{settings.limits.burst}, binding concurrency {settings.limits.binding_concurrency}."
        ),
        f"Machine: {machine.describe()}.",
        "",
        (
            "| contender | Average pods/s | P50 | P90 | P99 | latency p50 s | latency p99 s "
            "| CPU s | peak RSS MiB | checks |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    lines += [_row(r) for r in results]
    by_name = {r.name: r for r in results}
    ratios = []
    versus_kube = _ratio(by_name.get(KUBESCHED), by_name.get(KUBE_SCHEDULER))
    if versus_kube is not None:
        ratios.append(
            f"kubesched / kube-scheduler: Average throughput {versus_kube[0]:.2f}x, "
            f"peak RSS {versus_kube[1]:.2f}x"
        )
    versus_plugins = _ratio(by_name.get(KUBESCHED), by_name.get(SCHEDULER_PLUGINS))
    if versus_plugins is not None:
        ratios.append(
            f"kubesched / scheduler-plugins: Average throughput {versus_plugins[0]:.2f}x, "
            f"peak RSS {versus_plugins[1]:.2f}x"
        )
    versus_ceiling = _ratio(by_name.get(KUBESCHED), by_name.get(NULL_BINDER))
    if versus_ceiling is not None:
        ratios.append(f"kubesched / ceiling (null binder): Average {versus_ceiling[0]:.2f}x")
    ratios += _per_pod_cpu(results, w.pods)
    if ratios:
        lines += ["", *[f"- {r}" for r in ratios]]
    if any(len(r.round_averages) > 1 for r in results):
        per_round = "; ".join(
            f"{r.name} {', '.join(f'{a:.1f}' for a in r.round_averages)}"
            for r in results
            if r.round_averages
        )
        lines += [
            "",
            (
                "Each row is the round with the median Average (rounds interleaved); the "
                f"Averages of all rounds: {per_round}."
            ),
        ]
    model = many_core.table([(w.name, results, machine.cpus)])
    if model:
        lines += ["", many_core.NOTE, "", *model]
    if any(r.samples_fallback for r in results if not r.failure):
        lines += ["", "\\* too short for 1 s samples: the whole run's rate."]
    lines += [
        "",
        (
            "Throughput as scheduler_perf: pods bound per 1 s sample, first sample skipped, "
            "empty intervals folded. Latency: first watch event to bound. CPU s: the "
            "CPU time of the contender and the processes it started during the measured "
            "phase; RSS: their peaks (VmHWM) added up."
        ),
    ]
    return "\n".join(lines) + "\n"


def raw_json(
    results: Sequence[ContenderResult], settings: BenchSettings, machine: Machine
) -> dict[str, Any]:
    w = settings.workload
    return {
        "workload": {
            "name": w.name,
            "nodes": w.nodes,
            "initial_pods": w.initial_pods,
            "pods": w.pods,
        },
        "limits": {
            "qps": settings.limits.qps,
            "burst": settings.limits.burst,
            "binding_concurrency": settings.limits.binding_concurrency,
            "scheduler_name": settings.limits.scheduler_name,
        },
        "machine": {
            "cpus": machine.cpus,
            "load_before": machine.load_before,
            "load_after": machine.load_after,
            "python": machine.python,
        },
        "contenders": [
            r.as_json() | {"many_core": many_core.split_json(r, machine.cpus)} for r in results
        ],
        "many_core_ratio": many_core.ratios(results, machine.cpus),
    }


def plot(results: Sequence[ContenderResult], path: Path, *, title: str) -> bool:
    """Pods bound over time per contender, as a PNG; False if matplotlib is not installed
    (it is the optional `bench` extra)."""
    try:
        import matplotlib as mpl  # noqa: PLC0415 - optional dependency

        mpl.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        return False
    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=110)
    for result in results:
        if not result.bound_times:
            continue
        counts = range(1, len(result.bound_times) + 1)
        label = result.name + (" (FAILED)" if result.failure else "")
        axes.step(result.bound_times, list(counts), where="post", label=label)
    axes.set_xlabel("seconds since the first measured pod was created")
    axes.set_ylabel("measured pods bound")
    axes.set_title(title)
    axes.grid(visible=True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return True


def write_outputs(
    results: Sequence[ContenderResult], settings: BenchSettings, machine: Machine, out: Path
) -> dict[str, Path]:
    """Write table.md, results.json and throughput.png into `out`; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"table": out / "table.md", "json": out / "results.json"}
    paths["table"].write_text(markdown(results, settings, machine))
    paths["json"].write_text(json.dumps(raw_json(results, settings, machine), indent=1) + "\n")
    png = out / "throughput.png"
    title = f"{settings.workload.name}: pods bound over time ({os.cpu_count()} CPUs)"
    if plot(results, png, title=title):
        paths["plot"] = png
    return paths
