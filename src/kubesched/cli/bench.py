"""`kubesched bench`: measure scheduling throughput against kube-scheduler and a null binder.

kubesched bench                                  # basic: 1000 nodes, 1000 + 5000 pods
kubesched bench --workload constrained
kubesched bench --nodes 5 --initial-pods 0 --pods 30 --contenders kubesched,null-binder
kubesched bench --suite                          # scheduler_perf's catalogue, 500-node sizes
kubesched bench --suite --size 5000 --cases SchedulingBasic,TopologySpreading
kubesched bench --workload SchedulingPodAffinity --size 5000   # one test case
kubesched bench --trace trace.jsonl.gz --contenders kubesched,kube-scheduler  # a recorded trace
kubesched bench --workload CapacitySchedulingQuotas --contenders kubesched,scheduler-plugins
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kubesched.bench import (
    CONTENDERS,
    WORKLOADS,
    BenchSettings,
    ClientLimits,
    Workload,
    make_workload,
    run_bench,
    write_outputs,
)
from kubesched.bench.catalogue import CASES, SIZES, catalogue_workload
from kubesched.bench.contenders import KNOWN, is_contender
from kubesched.bench.suite import run_suite, write_suite
from kubesched.bench.trace_workload import TraceWorkloadError, trace_workload
from kubesched.replay import TraceError, read_trace

DEFAULT_SCHEDULER_NAME = "bench-scheduler"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubesched bench",
        description="Measure scheduling throughput (as kube-scheduler's scheduler_perf), "
        "latency, CPU and memory of kubesched, kube-scheduler and a null binder, each on "
        "a fresh local control plane.",
    )
    parser.add_argument(
        "--workload",
        choices=(*WORKLOADS, *CASES),
        default="basic",
        help="a workload, or one scheduler_perf test case of the catalogue (at --size)",
    )
    parser.add_argument(
        "--suite",
        action="store_true",
        help="run the scheduler_perf catalogue (all test cases, or --cases) at --size",
    )
    parser.add_argument("--size", choices=SIZES, default="500", help="catalogue size")
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="FILE",
        help="a trace from `kubesched record` (or the synthetic generator) as the workload: "
        "its nodes, then its pods at their recorded times (or at --create-rate)",
    )
    parser.add_argument(
        "--cases", default="", help=f"comma-separated test cases (default: all of {len(CASES)})"
    )
    parser.add_argument("--nodes", type=int, help="nodes (default: the workload's)")
    parser.add_argument("--initial-pods", type=int, help="pods bound before measuring")
    parser.add_argument("--pods", type=int, help="measured pods")
    parser.add_argument(
        "--contenders",
        default=",".join(CONTENDERS),
        help=f"comma-separated, run in this order (default {','.join(CONTENDERS)}); "
        "kubesched@DIR runs the kubesched of another checkout (e.g. a git worktree of an "
        "older commit) beside this one; scheduler-plugins runs scheduler-plugins' own build "
        "(for --workload CapacitySchedulingQuotas)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench-results"))
    parser.add_argument("--qps", type=float, default=5000.0, help="client QPS of contenders")
    parser.add_argument("--burst", type=int, default=5000, help="client burst of contenders")
    parser.add_argument("--binding-concurrency", type=int, default=64)
    parser.add_argument("--create-concurrency", type=int, default=32)
    parser.add_argument(
        "--create-rate", type=float, default=0.0, help="measured pods/s (0: as fast as possible)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of all contenders, interleaved; each row is its median round",
    )
    parser.add_argument("--stall-timeout", type=float, default=120.0)
    parser.add_argument(
        "--scheduler-flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="a kube-scheduler flag both schedulers get, e.g. "
        "--scheduler-flag=--pod-max-in-unschedulable-pods-duration=10s (repeatable)",
    )
    parser.add_argument("--scheduler-name", default=DEFAULT_SCHEDULER_NAME)
    return parser


class _Progress:
    """One line rewritten in place on a terminal; a line every few updates otherwise."""

    def __init__(self) -> None:
        self._tty = sys.stderr.isatty()
        self._count = 0

    def __call__(self, message: str) -> None:
        self._count += 1
        if self._tty:
            print(f"\r\033[K{message}", end="", file=sys.stderr, flush=True)
        elif "bound," not in message or self._count % 5 == 0:
            print(message, file=sys.stderr, flush=True)

    def done(self) -> None:
        if self._tty:
            print(file=sys.stderr)


def _settings(args: argparse.Namespace, workload: Workload) -> BenchSettings:
    return BenchSettings(
        workload=workload,
        limits=ClientLimits(
            scheduler_name=args.scheduler_name,
            qps=args.qps,
            burst=args.burst,
            binding_concurrency=args.binding_concurrency,
        ),
        create_concurrency=args.create_concurrency,
        create_rate=args.create_rate,
        stall_timeout=args.stall_timeout,
        scheduler_flags=tuple(args.scheduler_flag),
    )


def _suite(args: argparse.Namespace, contenders: list[str], argv: list[str]) -> int:
    cases = [c.strip() for c in args.cases.split(",") if c.strip()] or list(CASES)
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        print(f"kubesched bench: unknown test case(s) {unknown}; choose from {list(CASES)}")
        return 2
    base = _settings(args, catalogue_workload(cases[0], args.size))
    progress = _Progress()
    rows = run_suite(
        cases,
        size=args.size,
        base=base,
        contenders=contenders,
        progress=progress,
        repeat=args.repeat,
    )
    progress.done()
    command = " ".join(["kubesched bench", *argv])
    paths = write_suite(rows, args.out, command=command)
    print(paths["table"].read_text())
    for what, path in paths.items():
        print(f"{what}: {path}")
    return 1 if any(r.failure for row in rows for r in row.results) else 0


def _trace_workload(args: argparse.Namespace) -> Workload | str:
    """The workload of --trace, or the one line that says why there is none."""
    given = [flag for flag, value in _SIZE_FLAGS if getattr(args, value) is not None]
    if given:
        return f"--trace takes its nodes and pods from the trace; drop {', '.join(given)}"
    try:
        recorded = read_trace(args.trace)
        return trace_workload(recorded.records(), name=str(args.trace))
    except (TraceError, TraceWorkloadError) as exc:
        return str(exc)


_SIZE_FLAGS = (("--nodes", "nodes"), ("--initial-pods", "initial_pods"), ("--pods", "pods"))


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    contenders = [c.strip() for c in args.contenders.split(",") if c.strip()]
    unknown = [c for c in contenders if not is_contender(c)]
    if unknown or not contenders:
        print(
            f"kubesched bench: unknown contender(s) {unknown}; choose from {KNOWN}, "
            "or kubesched@DIR for the kubesched of another checkout (DIR/src/kubesched)"
        )
        return 2
    if args.suite and args.trace is not None:
        print("kubesched bench: --suite runs the catalogue, --trace one trace; give one of them")
        return 2
    if args.suite:
        return _suite(args, contenders, argv)
    if args.trace is not None:
        workload_or_error = _trace_workload(args)
        if isinstance(workload_or_error, str):
            print(f"kubesched bench: {workload_or_error}")
            return 2
        workload = workload_or_error
    elif args.workload in CASES:
        workload = catalogue_workload(
            args.workload,
            args.size,
            nodes=args.nodes,
            initial_pods=args.initial_pods,
            pods=args.pods,
        )
    else:
        workload = make_workload(
            args.workload, nodes=args.nodes, initial_pods=args.initial_pods, pods=args.pods
        )
    if workload.nodes < 1 or workload.pods < 1 or workload.initial_pods < 0:
        print("kubesched bench: --nodes and --pods must be at least 1, --initial-pods at least 0")
        return 2
    settings = _settings(args, workload)
    progress = _Progress()
    results, machine = run_bench(
        settings, contenders=contenders, progress=progress, repeat=args.repeat
    )
    progress.done()
    paths = write_outputs(results, settings, machine, args.out)
    print(paths["table"].read_text())
    for what, path in paths.items():
        print(f"{what}: {path}")
    return 1 if any(r.failure for r in results) else 0
