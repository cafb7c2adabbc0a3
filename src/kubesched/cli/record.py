"""`kubesched record`: record what scheduling reads from a live cluster into a trace.

    kubesched record --out trace.jsonl.gz [--duration 10m] [--max-bytes 100Mi]
                     [--kubeconfig PATH] [--context NAME] [--keep-annotation KEY ...]

Read-only (lists, watches, `/version`; docs/replay.md has the RBAC). A progress line on
stderr while recording; Ctrl-C or SIGTERM ends the trace cleanly, as the limits do.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path

from kubesched.apis.durations import DurationError, parse_duration
from kubesched.cli.kubeconfig_errors import connection_error_text
from kubesched.doctor.session import open_client
from kubesched.kube.connection import ConnectionConfigError
from kubesched.kube.errors import ApiError, ConnectionFailed
from kubesched.model.quantity import parse_quantity
from kubesched.replay.kinds import READ_ANNOTATIONS
from kubesched.replay.recorder import Limits, Summary, record

PROG = "kubesched record"
USAGE_ERROR = 2


def _duration(text: str) -> float:
    try:
        seconds = parse_duration(text)
    except DurationError as exc:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a duration (e.g. 90s, 10m): {exc}"
        ) from None
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: the duration must be positive")
    return seconds


def _bytes(text: str) -> int:
    try:
        value = int(parse_quantity(text))
    except (ValueError, ArithmeticError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (e.g. 100Mi, 1Gi)") from None
    if value < 4096:
        raise argparse.ArgumentTypeError(f"{text!r}: the size must be at least 4Ki")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Record what scheduling reads from a cluster into a trace for "
        "`kubesched replay` (read-only; docs/replay.md).",
        allow_abbrev=False,
    )
    parser.add_argument("--out", required=True, help="the trace file to write (gzip JSON lines)")
    parser.add_argument("--duration", type=_duration, default=600.0, help="stop after (10m)")
    parser.add_argument(
        "--max-bytes", type=_bytes, default=100 * 2**20, help="stop at this trace size (100Mi)"
    )
    parser.add_argument(
        "--keep-annotation",
        action="append",
        default=[],
        metavar="KEY",
        help="also keep this annotation (one your own plugin reads); repeatable",
    )
    parser.add_argument("--kubeconfig", default="", help="path to a kubeconfig file")
    parser.add_argument("--context", default=None, help="the kubeconfig context to use")
    parser.add_argument(
        "--master", default="", help="the API server address (overrides kubeconfig)"
    )
    return parser


LOG_EVERY = 10
"""Without a terminal (a log), one progress line in this many (one each 10 seconds)."""


class _Progress:
    """The progress line: rewritten in place on a terminal, else a line now and then."""

    def __init__(self) -> None:
        self._calls = 0

    def __call__(self, line: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{line}\x1b[K")
        elif self._calls % LOG_EVERY == 0:
            sys.stderr.write(f"{line}\n")
        self._calls += 1
        sys.stderr.flush()


async def _record(args: argparse.Namespace) -> Summary:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with open_client(
        kubeconfig=args.kubeconfig, master=args.master, context=args.context
    ) as client:
        return await record(
            client,
            Path(args.out),
            limits=Limits(duration=args.duration, max_bytes=args.max_bytes),
            stop=stop,
            progress=_Progress(),
            annotations=READ_ANNOTATIONS | frozenset(args.keep_annotation),
            version=_version(),
        )


def _version() -> str:
    try:
        return package_version("kubesched")
    except PackageNotFoundError:
        return "unknown"


def _fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    out = Path(args.out)
    if not out.absolute().parent.is_dir():
        print(f"{PROG}: the folder of {out} does not exist; create it first", file=sys.stderr)
        return USAGE_ERROR
    try:
        summary = asyncio.run(_record(args))
    except ConnectionFailed as exc:
        return _fail(f"cannot reach the API server: {exc.message}")
    except ConnectionConfigError as exc:
        return _fail(connection_error_text(exc))
    except ApiError as exc:
        return _fail(f"{exc} (recording needs list and watch on the kinds in docs/replay.md)")
    except OSError as exc:
        return _fail(f"cannot write {out}: {exc.strerror or exc}")
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    skipped = ""
    if summary.not_served:
        skipped += f"; not served, not recorded: {', '.join(summary.not_served)}"
    if summary.forbidden:
        skipped += f"; forbidden by RBAC, not recorded: {', '.join(summary.forbidden)}"
    print(
        f"{PROG}: wrote {out}: {summary.records} records, {out.stat().st_size} bytes,"
        f" {summary.seconds:.0f}s (ended by {summary.reason}){skipped}",
        file=sys.stderr,
    )
    return 0
