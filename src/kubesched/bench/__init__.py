"""`kubesched bench`: scheduling throughput, latency, CPU and memory of kubesched side by side
with the real kube-scheduler and a null binder (the API server's ceiling), each on a fresh
local control plane, measured the way kube-scheduler's scheduler_perf measures.

    results = run_bench(settings, contenders=CONTENDERS, progress=print)
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from kubesched.bench.contenders import CONTENDERS, ClientLimits
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
    settings: BenchSettings, *, contenders: Sequence[str], progress: Progress
) -> tuple[list[ContenderResult], Machine]:
    """Run each contender in turn; return their results and the machine's description."""
    before = load_average()
    results = [run_contender(name, settings, progress) for name in contenders]
    machine = Machine(cpus=os.cpu_count() or 0, load_before=before, load_after=load_average())
    return results, machine
