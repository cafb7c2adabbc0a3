"""`kubesched bench`: scheduling throughput, latency, CPU and memory of kubesched side by side
with the real kube-scheduler and a null binder (the API server's ceiling), each on a fresh
local control plane, measured the way kube-scheduler's scheduler_perf measures.

    results = run_bench(settings, contenders=CONTENDERS, progress=print)
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from kubesched.bench.contenders import CONTENDERS, NULL_BINDER, ClientLimits
from kubesched.bench.procstat import load_average
from kubesched.bench.report import Machine, markdown, write_outputs
from kubesched.bench.runner import BenchSettings, ContenderResult, Progress, run_contender
from kubesched.bench.workloads import WORKLOADS, Workload, make_workload

__all__ = [
    "CONTENDERS",
    "WORKLOADS",
    "BenchSettings",
    "ClientLimits",
    "ContenderResult",
    "Machine",
    "Workload",
    "make_workload",
    "markdown",
    "run_bench",
    "write_outputs",
]


def run_bench(
    settings: BenchSettings, *, contenders: Sequence[str], progress: Progress, repeat: int = 1
) -> tuple[list[ContenderResult], Machine]:
    """Run the contenders in turn, `repeat` rounds (interleaved, so that a change in the
    machine's load hits every contender alike); per contender, the round with the median
    Average is reported (a failed round wins: a failure is never hidden)."""
    before = load_average()
    rounds: dict[str, list[ContenderResult]] = {name: [] for name in contenders}
    for round_number in range(1, max(repeat, 1) + 1):
        if repeat > 1:
            progress(f"round {round_number} of {repeat}")
        for name in contenders:
            rounds[name].append(_run_or_skip(name, settings, progress))
    results = [_median_round(runs) for runs in rounds.values()]
    machine = Machine(cpus=os.cpu_count() or 0, load_before=before, load_after=load_average())
    return results, machine


def _run_or_skip(name: str, settings: BenchSettings, progress: Progress) -> ContenderResult:
    if name == NULL_BINDER and not settings.workload.ceiling:
        return ContenderResult(name=name, skipped="the null binder cannot preempt")
    why = dict(settings.workload.unsupported).get(name)
    if why is not None:
        return ContenderResult(name=name, skipped=why)
    return run_contender(name, settings, progress)


def _median_round(runs: list[ContenderResult]) -> ContenderResult:
    if runs[0].skipped:
        return runs[0]
    failed = [run for run in runs if run.failure]
    chosen = (
        failed[0]
        if failed
        else sorted(runs, key=lambda r: r.throughput.average)[(len(runs) - 1) // 2]
    )
    chosen.round_averages = [run.throughput.average for run in runs if not run.failure]
    return chosen
