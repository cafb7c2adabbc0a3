"""`python -m kubesched_conformance build|run` (run by `make conformance`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kubesched.localcluster import LocalClusterError, gates
from kubesched_conformance import report
from kubesched_conformance.binary import ensure_conformance_binary
from kubesched_conformance.cluster import KUBE_SCHEDULER, KUBESCHED, SCHEDULERS, Setup
from kubesched_conformance.run import ConformanceError, RunResult, Selection, run_setup

RUNS = ("defaults", "GenericWorkload")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubesched-conformance",
        description="Kubernetes' own test/e2e/scheduling specs against the local cluster.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="build the specs' test binary (once; then cached)")
    run = commands.add_parser("run", help="run the specs, once per gate setting")
    run.add_argument("--scheduler", choices=SCHEDULERS, default=KUBESCHED)
    run.add_argument(
        "--runs", default=",".join(RUNS), help=f"comma-separated, of {', '.join(RUNS)}"
    )
    run.add_argument(
        "--feature-gates",
        default="",
        metavar="A=true,B=true",
        help="one run instead of --runs': these gates on in kube-apiserver, the scheduler and "
        "kube-controller-manager, every spec of no gate or of these gates selected "
        f"(e.g. {gates.TOPOLOGY_GATES})",
    )
    run.add_argument("--focus", default="", help="only the specs matching this regexp")
    run.add_argument("--skip", default="", help="leave out the specs matching this regexp")
    run.add_argument(
        "--include-unrunnable",
        action="store_true",
        help="run the specs the local cluster cannot run, too",
    )
    run.add_argument("--out", type=Path, default=Path("conformance-results"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        binary = ensure_conformance_binary()
        if args.command == "build":
            print(binary)
            return 0
        return _run(args, binary)
    except LocalClusterError as error:
        print(f"kubesched-conformance: {error}", file=sys.stderr)
        if error.details:
            print(error.details, file=sys.stderr)
        return 1
    except (ConformanceError, OSError) as error:
        print(f"kubesched-conformance: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _run(args: argparse.Namespace, binary: Path) -> int:
    runs = [run for run in args.runs.split(",") if run]
    unknown = sorted(set(runs) - set(RUNS))
    if unknown:
        print(f"kubesched-conformance: unknown runs {unknown}; choose from {RUNS}", file=sys.stderr)
        return 2
    selection = Selection(
        focus=args.focus, skip=args.skip, include_unrunnable=args.include_unrunnable
    )
    setups = [Setup(args.scheduler, generic_workload=run == "GenericWorkload") for run in runs]
    if args.feature_gates:
        gates.parse(args.feature_gates)  # a malformed list fails before any cluster starts
        setups = [Setup(args.scheduler, gates=args.feature_gates)]
    results = [
        run_setup(setup, binary=binary, out=args.out, selection=selection) for setup in setups
    ]
    for result in results:
        _print_run(result, out=args.out)
    return 1 if any(result.failed for result in results) else 0


def _print_run(result: RunResult, *, out: Path) -> None:
    counts = ", ".join(f"{n} {state}" for state, n in report.counts(result.results).items())
    print(f"{result.name}: {counts} in {result.seconds:.0f} s ({result.summary})")
    for spec in result.failed:
        print(f"  FAILED {spec.text}\n    {spec.message}")
    if not result.name.startswith(KUBESCHED):
        return
    oracle = out / (KUBE_SCHEDULER + result.name.removeprefix(KUBESCHED)) / "summary.json"
    if oracle.is_file():
        bugs = report.regressions(result.results, report.read_summary(oracle))
        print(f"  {len(bugs)} failed with kubesched but passed with kube-scheduler ({oracle})")
        for spec in bugs:
            print(f"    {spec.text}")


if __name__ == "__main__":
    sys.exit(main())
