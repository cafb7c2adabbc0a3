"""`kubesched replay`: replay a recorded trace in process against configurations.

    kubesched replay TRACE [--config A.yaml --config B.yaml ...] [--plugin-module m ...]
                     [--json out.json] [--html report.html] [--seed N]

No API server: each configuration's production engine (its profiles' frameworks, built as
`kubesched run` builds them; kubesched's default profile without --config) schedules the
trace's pods on a virtual clock. Prints one table, a column per configuration; --json
writes every decision too, --html a self-contained page with charts (docs/replay.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config import ConfigError, load_config
from kubesched.framework.registry import PluginRegistrationError
from kubesched.replay import Trace, TraceError, read_trace, replay_trace
from kubesched.replay.html_report import render
from kubesched.replay.report import ConfigReport, table
from kubesched.runtime import FrameworkError

PROG = "kubesched replay"
USAGE_ERROR = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Replay a trace from `kubesched record` against configurations, in "
        "process, on a virtual clock (never contacts a cluster; docs/replay.md).",
        allow_abbrev=False,
    )
    parser.add_argument("trace", help="the trace file `kubesched record --out` wrote")
    parser.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="a KubeSchedulerConfiguration to replay (repeatable; default: kubesched's "
        "default profile)",
    )
    parser.add_argument(
        "--plugin-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import this module's plugins for every configuration (repeatable)",
    )
    parser.add_argument(
        "--feature-gates",
        default="",
        metavar="GATES",
        help="kube-scheduler's feature gates for every configuration, as `kubesched run "
        "--feature-gates` takes them (GenericWorkload=true: native pod groups)",
    )
    parser.add_argument("--json", default="", metavar="FILE", help="also write the report as JSON")
    parser.add_argument(
        "--html",
        default="",
        metavar="FILE",
        help="also write the report as one self-contained HTML page with charts",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the tie-breaking RNG (0)")
    parser.add_argument(
        "--random-ties",
        action="store_true",
        help="break every tie with the RNG (default: a tie that includes the node the "
        "trace's scheduler chose goes to that node)",
    )
    return parser


def _configs(args: argparse.Namespace) -> list[tuple[str, KubeSchedulerConfiguration]]:
    """(name, completed config) per --config, or kubesched's defaults; ConfigError."""
    modules = [f"--plugin-module={module}" for module in args.plugin_module]
    if args.feature_gates:
        modules.append(f"--feature-gates={args.feature_gates}")
    if not args.config:
        return [("default", load_config(modules).config)]
    return [(path, load_config([f"--config={path}", *modules]).config) for path in args.config]


def _title(path: str, recorded: Trace) -> str:
    """`replay of PATH: 600 s recorded from v1.37.2 (12345 records)`."""
    server = f" from {recorded.header.server}" if recorded.header.server else ""
    return f"replay of {path}: {recorded.duration:g} s recorded{server} ({recorded.count} records)"


def _fail(message: str, code: int = 1) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return code


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    for out in (args.json, args.html):
        if out and not Path(out).absolute().parent.is_dir():
            return _fail(f"the folder of {out} does not exist; create it first", USAGE_ERROR)
    try:
        recorded = read_trace(Path(args.trace))
        configs = _configs(args)
    except TraceError as exc:
        return _fail(str(exc), USAGE_ERROR)
    except ConfigError as exc:
        return _fail(exc.line, USAGE_ERROR)
    try:
        reports = replay_trace(recorded, configs, seed=args.seed, follow_ties=not args.random_ties)
    except TraceError as exc:  # the file changed after it was checked
        return _fail(str(exc), USAGE_ERROR)
    except (FrameworkError, PluginRegistrationError) as exc:
        return _fail(str(exc))
    title = _title(args.trace, recorded)
    print(table(title, reports))
    skipped = reports[0].result.malformed
    if skipped:
        print(
            f"{PROG}: skipped {len(skipped)} record(s) whose object could not be parsed;"
            f" the first: {skipped[0]}",
            file=sys.stderr,
        )
    _write(args, recorded, title, reports)
    return 0


def _write(
    args: argparse.Namespace, recorded: Trace, title: str, reports: list[ConfigReport]
) -> None:
    """The --json and --html files, when asked for."""
    if args.json:
        document = {
            "trace": args.trace,
            "seed": args.seed,
            "recorded_seconds": recorded.duration,
            "configs": [report.as_json() for report in reports],
        }
        Path(args.json).write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    if args.html:
        Path(args.html).write_text(render(title, reports), encoding="utf-8")
