"""`kubesched shadow report`: summarise a shadow run (`kubesched run
--shadow-scheduler-name=...`).

    kubesched shadow report --scheduler-url=https://127.0.0.1:10259 [--log=kubesched.log]

Reads `kubesched_shadow_decisions_total` from the shadow's /metrics (with the kubeconfig's
credentials, as `kubesched explain --scheduler-url` reads /debug/waitingpods) and prints the
count per agreement and the share that agrees; with `--log`, every disagreement the shadow
logged (pod, both nodes, kubesched's scores of them).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from kubesched.apis.waitingpods import PermitViewError
from kubesched.kube.connection import ConnectionConfigError, load_connection
from kubesched.kube.scheduler_port import CA_FLAG, INSECURE_FLAG, SchedulerPort, get_text
from kubesched.scheduler.shadow_report import (
    ReportError,
    Summary,
    counts_from_metrics,
    disagreements_from_log,
    render,
)

PROG = "kubesched shadow"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Summarise a shadow run.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="report")
    report = commands.add_parser("report", help="counts per agreement and the disagreements")
    report.add_argument(
        "--scheduler-url",
        required=True,
        help="the https:// address of the shadow's secure port, e.g. https://127.0.0.1:10259 "
        "(GET /metrics with the kubeconfig's credentials)",
    )
    report.add_argument("--kubeconfig", default="", help="the kubeconfig (default: as kubectl)")
    report.add_argument("--context", default=None, help="the kubeconfig context to use")
    report.add_argument(CA_FLAG, dest="ca_file", default="", help="the CA of its certificate")
    report.add_argument(
        INSECURE_FLAG, dest="insecure", action="store_true", help="do not verify its certificate"
    )
    report.add_argument("--log", default="", help="the shadow's log, to list the disagreements")
    return parser


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    try:
        summary = Summary(counts=asyncio.run(_counts(args)))
        if args.log:
            summary.disagreements = disagreements_from_log(_read(args.log))
    except (ReportError, PermitViewError, ConnectionConfigError) as exc:
        print(f"{PROG} report: {exc}", file=sys.stderr)
        return 1
    print(render(summary, log_name=args.log))
    return 0


async def _counts(args: argparse.Namespace) -> dict[str, dict[str, int]]:
    connection = await load_connection(kubeconfig=args.kubeconfig, context=args.context)
    port = SchedulerPort(args.scheduler_url, ca_file=args.ca_file, insecure=args.insecure)
    return counts_from_metrics(await get_text(port, connection, "/metrics"))


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ReportError(
            f"--log={path}: cannot read it ({exc.strerror}); give the log file"
        ) from None
