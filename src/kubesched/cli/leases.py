"""`kubesched leases`: list scheduler Leases and their holders.

Scheduler Leases are kube-scheduler's `kube-system/kube-scheduler` and every Lease labelled
`kubesched.io/lease=scheduler`. For each: namespace/name, holder, the scheduler names its
holder serves, when it was renewed, when it expires, transitions, and live/stale/released.

    kubesched leases            # all namespaces (same as -A)
    kubesched leases -n custom-scheduler-ns -o json
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from kubesched.cli.kubeconfig_errors import connection_error_text
from kubesched.doctor import list_scheduler_leases
from kubesched.doctor.leasetable import leases_json, leases_table
from kubesched.doctor.session import open_client
from kubesched.kube.connection import ConnectionConfigError
from kubesched.kube.errors import ApiError, ConnectionFailed
from kubesched.leaderelection.clock import utc_now


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubesched leases",
        description="List scheduler Leases and their holders.",
        allow_abbrev=False,
    )
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "-A",
        "--all-namespaces",
        action="store_true",
        help="list the Leases of all namespaces (the default)",
    )
    scope.add_argument("-n", "--namespace", default="", help="list only this namespace's Leases")
    parser.add_argument(
        "-o", "--output", choices=("table", "json"), default="table", help="output format"
    )
    parser.add_argument("--kubeconfig", default="", help="path to a kubeconfig file")
    parser.add_argument("--context", default=None, help="the kubeconfig context to use")
    parser.add_argument(
        "--master", default="", help="the API server address (overrides kubeconfig)"
    )
    return parser


async def _leases(args: argparse.Namespace) -> int:
    async with open_client(
        kubeconfig=args.kubeconfig, master=args.master, context=args.context
    ) as client:
        leases = await list_scheduler_leases(client, namespace=args.namespace)
    now = utc_now()
    print(leases_json(leases, now) if args.output == "json" else leases_table(leases, now))
    return 0


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        return asyncio.run(_leases(args))
    except ConnectionFailed as exc:
        print(f"kubesched leases: cannot reach the API server: {exc.message}", file=sys.stderr)
        return 1
    except ConnectionConfigError as exc:
        print(f"kubesched leases: {connection_error_text(exc)}", file=sys.stderr)
        return 1
    except ApiError as exc:
        print(f"kubesched leases: {exc}", file=sys.stderr)
        return 1
