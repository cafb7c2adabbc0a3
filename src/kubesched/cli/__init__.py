"""Command line: `kubesched [COMMAND] [FLAGS]`; with only flags it runs the scheduler.

Each command lives in its own module with a `main(argv) -> int`, so the container args of
"Configure Multiple Schedulers" and of the guide on leader-election conflicts
(`kubesched --config=... --leader-elect=true`) work unchanged.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from kubesched.cli.kubeconfig_errors import quiet_kubeconfig_loader

SIGPIPE_EXIT = 141
"""The exit code when the reader of stdout went away (a shell's 128 + SIGPIPE)."""

COMMANDS = {
    "run": ("kubesched.cli.run", "run the scheduler (the default command)"),
    "dev-cluster": ("kubesched.cli.devcluster", "build and run a local control plane"),
    "doctor": ("kubesched.cli.doctor", "check why pods are pending and whether kubesched can work"),
    "leases": ("kubesched.cli.leases", "list scheduler Leases and their holders"),
    "bench": ("kubesched.cli.bench", "measure throughput against kube-scheduler"),
    "manifests": ("kubesched.cli.manifests", "print the YAML to deploy kubesched"),
    "explain": ("kubesched.cli.explain", "explain where a pending pod would go and why"),
    "record": ("kubesched.cli.record", "record what scheduling reads from a cluster into a trace"),
    "replay": ("kubesched.cli.replay", "replay a recorded trace against configurations"),
    "shadow": ("kubesched.cli.shadow", "summarise a shadow run (run --shadow-scheduler-name)"),
}


def _usage() -> str:
    lines = ["usage: kubesched [COMMAND] [FLAGS]", "", "commands:"]
    lines += [f"  {name:<14}{summary}" for name, (_, summary) in COMMANDS.items()]
    lines += [
        "",
        "With no command, kubesched runs the scheduler: `kubesched run --help` lists its flags;",
        "`kubesched COMMAND --help` those of a command.",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    command = "run"
    if args and not args[0].startswith("-"):
        command = args.pop(0)
    if command not in COMMANDS:
        print(
            f"kubesched: unknown command {command!r}; run `kubesched --help` for the list",
            file=sys.stderr,
        )
        return 2
    quiet_kubeconfig_loader()  # each command prints a kubeconfig's error once, itself
    module = importlib.import_module(COMMANDS[command][0])
    try:
        result: int = module.main(args)
        sys.stdout.flush()  # here, not at exit, where a closed pipe would print a warning
    except BrokenPipeError:  # `kubesched manifests | head`: the reader left; no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT
    return result
