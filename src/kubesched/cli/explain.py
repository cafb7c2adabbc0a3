"""`kubesched explain`: where a pending pod would go and why, from the scheduler's own view.

    kubesched explain NAMESPACE/POD [flags of `kubesched run`] [--kubeconfig=...] [-o json]
    kubesched explain -f pod.yaml [NAMESPACE/NAME] --scheduler-name=my-scheduler
    kubesched explain NAMESPACE/POD --scheduler-url=https://127.0.0.1:10259   # a gang member

Takes the flags and config file of `kubesched run`, so the profile and plugins are the ones
the scheduler would use. Reads the cluster once and never writes to it.
Exit code: 0 when the pod was explained (even if nothing fits), 1 on an error (one line),
2 on bad flags.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from kubesched.apis.waitingpods import WAITING_PODS_PATH
from kubesched.cli.kubeconfig_errors import connection_error_text
from kubesched.config import ConfigError, KubeSchedulerConfiguration, load_config
from kubesched.config.flagtable import BY_NAME, CANONICAL, FLAGS, Kind
from kubesched.doctor.session import REQUEST_TIMEOUT_SECONDS
from kubesched.errors import KubeschedError
from kubesched.explain import (
    ExplainError,
    Explanation,
    GetOnly,
    PermitSource,
    PodSource,
    as_json,
    explain_live,
    load_pod_file,
    parse_target,
    table,
)
from kubesched.framework.registry import PluginRegistrationError
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import Connection, ConnectionConfigError, load_connection
from kubesched.kube.errors import ApiError, ConnectionFailed
from kubesched.kube.scheduler_port import CA_FLAG, INSECURE_FLAG, SchedulerPort, get_json
from kubesched.runtime import FrameworkError
from kubesched.server.components import build_registry

PROG = "kubesched explain"
USAGE_ERROR = 2
USAGE = f"""usage: {PROG} NAMESPACE/POD [-f FILE] [-o table|json] [--kubeconfig=PATH]
       [--context=NAME] [flags of `kubesched run`: --config, --scheduler-name, ...]

Explain where kubesched would place a pending pod and why: every node's Filter verdict
(the plugin and reason that rejected it), each Score plugin's raw, normalized and weighted
score for the feasible nodes, the node it would choose, the FailedScheduling message when
nothing fits, and what preemption would do. Uses the live cluster state and the profile
serving the pod's spec.schedulerName; never writes to the cluster.

arguments:
  NAMESPACE/POD         a pending pod in the cluster (with -f: the hypothetical pod's name)
  -f, --filename FILE   explain a hypothetical pod from a YAML/JSON file (a Pod, or the pod
                        template of a Deployment, ReplicaSet, StatefulSet, Job, CronJob or
                        ReplicationController); `-` reads standard input
  -o, --output FORMAT   table (default) or json
  --kubeconfig PATH     the kubeconfig file (default: as kubectl finds it)
  --context NAME        the kubeconfig context to use
  --scheduler-url URL   for a pod of a group (PodGroup): the https:// address of the running
                        kubesched leader's secure port (e.g. https://127.0.0.1:10259), to show
                        which members it holds at Permit (GET /debug/waitingpods with the
                        kubeconfig's credentials; RBAC: get on that non-resource URL)
  --scheduler-certificate-authority FILE
                        the CA of the scheduler's serving certificate (default: system CAs)
  --scheduler-insecure-skip-tls-verify
                        do not verify the scheduler's certificate (its self-signed one)
  -h, --help            show this help

All flags of `kubesched run` are accepted; the ones that matter here choose the profile:
--config, --scheduler-name, --plugin-module, --master."""

_OWN = {
    "-f": "filename",
    "--filename": "filename",
    "-o": "output",
    "--output": "output",
    "--kubeconfig": "kubeconfig",
    "--context": "context",
    "--scheduler-url": "scheduler_url",
    CA_FLAG: "scheduler_ca",
}
_OWN_BOOL = {INSECURE_FLAG: "scheduler_insecure"}
_OUTPUTS = ("table", "json")
_BOOL_VALUES = {"1", "t", "T", "true", "TRUE", "True", "0", "f", "F", "false", "FALSE", "False"}
_SHORT = {f"-{flag.short}": flag.name for flag in FLAGS if flag.short}


class UsageError(KubeschedError):
    """Bad flags or arguments; exit code 2."""


@dataclass
class Args:
    pod: str = ""
    filename: str = ""
    output: str = "table"
    kubeconfig: str = ""
    context: str | None = None
    scheduler_url: str = ""
    scheduler_ca: str = ""
    scheduler_insecure: bool = False
    help: bool = False
    run_flags: list[str] = field(default_factory=list)
    """Everything else, for `load_config` (the flags of `kubesched run`)."""


def parse_args(argv: Sequence[str]) -> Args:
    """Split the explain options and the pod argument from the flags of `kubesched run`
    (which may be written `--flag value`, so their values are told apart from the pod)."""
    args = Args()
    positionals: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        i = _consume(args, items, i, positionals)
    if len(positionals) > 1:
        raise UsageError(f"expected one NAMESPACE/POD, got {' '.join(positionals)}")
    args.pod = positionals[0] if positionals else ""
    if args.output not in _OUTPUTS:
        raise UsageError(f"-o {args.output!r}: use one of {', '.join(_OUTPUTS)}")
    if not args.help and not args.pod and not args.filename:
        raise UsageError("give the pod as NAMESPACE/POD, or a file with -f")
    return args


def _consume(args: Args, items: list[str], i: int, positionals: list[str]) -> int:
    """Take `items[i]` (and its value, if separate); returns the index of the next item."""
    arg = items[i]
    name, eq, value = arg.partition("=")
    if arg in ("-h", "--help"):
        args.help = True
    elif arg.startswith("-o") and not arg.startswith("--") and len(arg) > 2 and not eq:
        args.output = arg[2:]  # -ojson, as kubectl
    elif name in _OWN_BOOL:
        if eq and value not in _BOOL_VALUES:
            raise UsageError(f"{name}={value}: use true or false")
        setattr(args, _OWN_BOOL[name], not eq or value.lower() in ("1", "t", "true"))
    elif name in _OWN:
        if not eq:
            if i + 1 >= len(items):
                raise UsageError(f"{name} needs a value")
            i += 1
            value = items[i]
        setattr(args, _OWN[name], value)
    elif arg.startswith("-") and arg != "-":
        args.run_flags.append(arg)
        if not eq and i + 1 < len(items) and _takes(name, items[i + 1]):
            i += 1
            args.run_flags.append(items[i])
    else:
        positionals.append(arg)
    return i + 1


def _takes(spelling: str, following: str) -> bool:
    """Whether the run flag `spelling` (no `=value`) consumes the next argument."""
    name = _SHORT.get(spelling) or spelling.lstrip("-")
    flag = BY_NAME.get(CANONICAL.get(name, name))
    if flag is None:
        return False
    if flag.kind is Kind.BOOL:
        return following in _BOOL_VALUES
    return True


async def _explain(args: Args, config: KubeSchedulerConfiguration) -> Explanation:
    target = parse_target(args.pod) if args.pod else None
    notes: list[str] = []
    source = PodSource(*(target or ("", "")))
    if args.filename:
        obj, notes = load_pod_file(
            args.filename, target=target, default_scheduler=config.profiles[0].scheduler_name
        )
        source = PodSource(obj=obj)
    registry = build_registry(config)
    connection = await load_connection(
        kubeconfig=args.kubeconfig or config.client_connection.kubeconfig,
        master=config.client_connection.master,
        context=args.context,
    )
    client = KubeClient(connection, timeout=REQUEST_TIMEOUT_SECONDS)
    try:
        return await explain_live(
            GetOnly(client),
            config=config,
            registry=registry,
            source=source,
            notes=notes,
            permit=_permit_source(args, connection),
        )
    finally:
        await client.close()


def _permit_source(args: Args, connection: Connection) -> PermitSource | None:
    """How to read what the scheduler holds at Permit (None without --scheduler-url)."""
    if not args.scheduler_url:
        return None
    port = SchedulerPort(
        url=args.scheduler_url, ca_file=args.scheduler_ca, insecure=args.scheduler_insecure
    )

    async def read() -> object:
        return await get_json(port, connection, WAITING_PODS_PATH)

    return PermitSource(url=args.scheduler_url, read=read)


def _fail(message: str, code: int = 1) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return code


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except UsageError as exc:
        return _fail(f"{exc}; see `{PROG} --help`", USAGE_ERROR)
    if args.help:
        print(USAGE)
        return 0
    try:
        loaded = load_config(args.run_flags)
    except ConfigError as exc:
        for notice in exc.notices:
            print(notice, file=sys.stderr)
        _fail(exc.line)  # every problem in one line, as run's
        return USAGE_ERROR
    for notice in loaded.notices:
        print(notice, file=sys.stderr)
    try:
        explanation = asyncio.run(_explain(args, loaded.config))
    except ConnectionFailed as exc:
        return _fail(f"cannot reach the API server: {exc.message}")
    except (
        ExplainError,
        ApiError,
        ConnectionConfigError,
        FrameworkError,
        PluginRegistrationError,
    ) as exc:
        return _fail(connection_error_text(exc))
    print(as_json(explanation) if args.output == "json" else table(explanation))
    return 0
