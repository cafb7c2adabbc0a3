"""The suite's outputs: one Markdown table (a row per test case) and one bar plot."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kubesched.bench import many_core
from kubesched.bench.contenders import (
    CONTENDERS,
    KUBE_SCHEDULER,
    KUBESCHED,
    NULL_BINDER,
    source_tree,
)
from kubesched.bench.report import MIB
from kubesched.bench.runner import ContenderResult

if TYPE_CHECKING:
    from kubesched.bench.suite import SuiteRow

_HEADER = (
    "| test case | nodes / initial / measured | kubesched pods/s | kube-scheduler pods/s "
    "| null-binder pods/s | ks / k-s | latency p50 s (ks / k-s) | latency p99 s (ks / k-s) "
    "| CPU s (ks / k-s) | peak RSS MiB (ks / k-s) | checks | load before -> after |"
)


def _average(result: ContenderResult | None) -> str:
    if result is None:
        return "-"
    if result.skipped:
        return "n/a"
    if result.failure:
        return "FAILED"
    return f"{result.throughput.average:.1f}" + ("*" if result.samples_fallback else "")


def _pair(a: ContenderResult | None, b: ContenderResult | None, fmt: str, attr: str) -> str:
    def one(result: ContenderResult | None) -> str:
        if result is None or result.failure or result.skipped:
            return "-"
        value = getattr(result, attr)
        return format(value / MIB if attr == "peak_rss_bytes" else value, fmt)

    return f"{one(a)} / {one(b)}"


def _ratio(a: ContenderResult | None, b: ContenderResult | None) -> str:
    ok = a and b and not (a.failure or b.failure or a.skipped or b.skipped)
    if not ok or not b or not b.throughput.average or not a:
        return "-"
    return f"**{a.throughput.average / b.throughput.average:.2f}x**"


def _checks(results: Sequence[ContenderResult]) -> str:
    failed = [f"{r.name}: {r.failure}" for r in results if r.failure]
    return "FAILED " + "; ".join(failed) if failed else "passed"


def _line(row: SuiteRow) -> str:
    by_name = {r.name: r for r in row.results}
    ks, kube = by_name.get(KUBESCHED), by_name.get(KUBE_SCHEDULER)
    w = row.settings.workload
    load = f"{row.machine.load_before[0]:.1f} -> {row.machine.load_after[0]:.1f}"
    cells = [
        w.name + (f" ({w.note})" if w.note else ""),
        f"{w.nodes} / {w.initial_pods} / {w.pods}",
        _average(ks),
        _average(kube),
        _average(by_name.get(NULL_BINDER)),
        _ratio(ks, kube),
        _pair(ks, kube, ".2f", "latency_p50"),
        _pair(ks, kube, ".2f", "latency_p99"),
        _pair(ks, kube, ".1f", "cpu_seconds"),
        _pair(ks, kube, ".0f", "peak_rss_bytes"),
        _checks(row.results),
        load,
    ]
    return "| " + " | ".join(cells) + " |"


def _other_checkouts(rows: Sequence[SuiteRow]) -> list[str]:
    """With a `kubesched@DIR` contender, a table of every kubesched's CPU per measured pod
    and pods/s, and its CPU per pod against this checkout's (`kubesched`)."""
    names = [r.name for r in rows[0].results if source_tree(r.name) is not None] if rows else []
    if not names:
        return []
    lines = [
        "",
        "| test case | kubesched | pods/s | CPU s | CPU ms per pod | CPU per pod vs this one |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        by_name = {r.name: r for r in row.results}
        ours = by_name.get(KUBESCHED)
        for name in [KUBESCHED, *names]:
            result = by_name.get(name)
            if result is None or result.failure or result.skipped:
                continue
            per_pod = result.cpu_seconds / row.settings.workload.pods * 1000
            versus = "-"
            if ours is not None and not ours.failure and ours.cpu_seconds:
                versus = f"{result.cpu_seconds / ours.cpu_seconds:.3f}"
            lines.append(
                f"| {row.settings.workload.name} | {name} | {result.throughput.average:.1f} "
                f"| {result.cpu_seconds:.2f} | {per_pod:.3f} | {versus} |"
            )
    return lines


def suite_markdown(rows: Sequence[SuiteRow], *, command: str) -> str:
    """The suite's table: a row per test case, the command and the machine."""
    machine = rows[0].machine.describe() if rows else ""
    limits = rows[0].settings.limits if rows else None
    lines = [f"Command: `{command}`.", f"Machine: {machine} (first test case)."]
    if limits is not None:
        lines.append(
            f"Client QPS/burst {limits.qps:g}/{limits.burst}, binding concurrency "
            f"{limits.binding_concurrency}; each contender on its own fresh control plane."
        )
    lines += ["", _HEADER, "|---|---|" + "---:|" * 8 + "---|---|"]
    lines += [_line(row) for row in rows]
    lines += _other_checkouts(rows)
    model = many_core.table([(r.settings.workload.name, r.results, r.machine.cpus) for r in rows])
    if model:
        lines += ["", many_core.NOTE, "", *model]
    lines += [
        "",
        (
            "Average pods/s as scheduler_perf's throughput collector (1 s samples); ks = "
            "kubesched, k-s = kube-scheduler; latency from creation to bound; CPU s of the "
            "contender during the measured phase; load = 1-minute load average around the "
            "test case. n/a: the null binder cannot preempt. * too short for 1 s samples."
        ),
    ]
    return "\n".join(lines) + "\n"


def plot_suite(rows: Sequence[SuiteRow], path: Path) -> bool:
    """Average pods/s per test case and contender (grouped bars); False without
    matplotlib (the optional `bench` extra)."""
    try:
        import matplotlib as mpl  # noqa: PLC0415 - optional dependency

        mpl.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        return False
    names = [row.settings.workload.name for row in rows]
    figure, axes = plt.subplots(figsize=(10, 0.5 * len(rows) + 2), dpi=110)
    height = 0.8 / len(CONTENDERS)
    for offset, contender in enumerate(CONTENDERS):
        values = []
        for row in rows:
            found = [r for r in row.results if r.name == contender]
            ok = found and not found[0].failure and not found[0].skipped
            values.append(found[0].throughput.average if ok else 0.0)
        positions = [i + offset * height for i in range(len(rows))]
        axes.barh(positions, values, height=height, label=contender)
    axes.set_yticks([i + height for i in range(len(rows))], names)
    axes.invert_yaxis()
    axes.set_xlabel("Average pods/s (scheduler_perf throughput)")
    axes.set_title(f"scheduler_perf catalogue ({os.cpu_count()} CPUs)")
    axes.grid(visible=True, axis="x", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return True
