"""`kubesched doctor`: check why pods are pending and whether kubesched can work.

Takes the flags and config file of `kubesched run` (so it checks the very Lease and
scheduler names the scheduler would use) plus its own:

    kubesched doctor --scheduler-name=my-custom-scheduler \\
        --leader-elect-resource-namespace=custom-scheduler-ns \\
        --service-account=custom-scheduler-ns/custom-scheduler-sa [-o json]

Exit code: 0 when no check failed (warnings allowed), 1 when one did, 2 on bad flags.
Doctor writes nothing to the cluster except access reviews.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from kubesched.cli.kubeconfig_errors import connection_error_text
from kubesched.config import ConfigError, KubeSchedulerConfiguration, load_config
from kubesched.doctor import ServiceAccount, Target, as_json, exit_code, run_checks, table
from kubesched.doctor.session import open_client
from kubesched.kube.connection import ConnectionConfigError
from kubesched.manifests.preemption import preemption_enabled, volumes_enabled
from kubesched.plugins import config_resources

USAGE_ERROR = 2
_EPILOG = (
    "doctor also takes the flags of `kubesched run` that say which scheduler to check: "
    "--config, --scheduler-name, --leader-elect, --leader-elect-resource-name, "
    "--leader-elect-resource-namespace (and their aliases), --master."
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubesched doctor",
        description="Check why pods are pending and whether kubesched can work.",
        epilog=_EPILOG,
        allow_abbrev=False,
    )
    parser.add_argument(
        "--service-account",
        metavar="NAMESPACE/NAME",
        help="review the permissions of this ServiceAccount (SubjectAccessReview) instead "
        "of your own credentials (SelfSubjectAccessReview)",
    )
    parser.add_argument(
        "-o", "--output", choices=("table", "json"), default="table", help="output format"
    )
    parser.add_argument("--kubeconfig", default="", help="path to a kubeconfig file")
    parser.add_argument("--context", default=None, help="the kubeconfig context to use")
    return parser


def target_of(config: KubeSchedulerConfiguration, service_account: str | None) -> Target:
    """The Target a completed config describes."""
    election = config.leader_election
    return Target(
        scheduler_names=config.scheduler_names,
        lease_namespace=election.resource_namespace,
        lease_name=election.resource_name,
        leader_elect=election.leader_elect,
        service_account=ServiceAccount.parse(service_account) if service_account else None,
        preemption=preemption_enabled(config),
        resources=tuple(config_resources(config)),
        volumes=volumes_enabled(config),
    )


async def _doctor(
    args: argparse.Namespace, config: KubeSchedulerConfiguration, target: Target
) -> int:
    async with open_client(
        kubeconfig=args.kubeconfig or config.client_connection.kubeconfig,
        master=config.client_connection.master,
        context=args.context,
    ) as client:
        results = await run_checks(client, target, server=client.server)
    print(as_json(results, target) if args.output == "json" else table(results, target))
    return exit_code(results)


def main(argv: list[str]) -> int:
    args, rest = _parser().parse_known_args(argv)
    try:
        loaded = load_config(rest)
    except ConfigError as exc:
        for line in (*exc.notices, f"kubesched doctor: {exc.line}"):  # one line, as run's
            print(line, file=sys.stderr)
        return USAGE_ERROR
    for notice in loaded.notices:
        print(notice, file=sys.stderr)
    try:
        target = target_of(loaded.config, args.service_account)
    except ValueError as exc:
        print(f"kubesched doctor: {exc}", file=sys.stderr)
        return USAGE_ERROR
    try:
        return asyncio.run(_doctor(args, loaded.config, target))
    except ConnectionConfigError as exc:
        print(f"kubesched doctor: {connection_error_text(exc)}", file=sys.stderr)
        return 1
