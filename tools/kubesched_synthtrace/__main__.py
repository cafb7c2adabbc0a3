"""`python -m kubesched_synthtrace --nodes 500 --pods 2000 --out trace.jsonl.gz`: write a
synthetic trace (`generate`) for `kubesched replay` and `kubesched bench --trace`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kubesched_synthtrace.generate import Shape, end_time, write_synthetic

PROG = "python -m kubesched_synthtrace"


def _count(minimum: int) -> type[int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {value}")
        return value

    return parse  # type: ignore[return-value]


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__)
    parser.add_argument("--nodes", type=_count(1), default=500)
    parser.add_argument("--pods", type=_count(1), default=2000)
    parser.add_argument("--rate", type=_positive, default=100.0, help="pods created a second")
    parser.add_argument(
        "--delete-every", type=_count(0), default=10, help="delete one pod in this many (0: none)"
    )
    parser.add_argument(
        "--lifetime", type=_positive, default=30.0, help="seconds a deleted pod lives"
    )
    parser.add_argument("--out", required=True, type=Path, help="the trace file to write")
    return parser


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.out.absolute().parent.is_dir():
        parser.error(f"argument --out: the folder of {args.out} does not exist")
    shape = Shape(
        nodes=args.nodes,
        pods=args.pods,
        rate=args.rate,
        delete_every=args.delete_every,
        lifetime=args.lifetime,
    )
    write_synthetic(args.out, shape)
    sys.stdout.write(
        f"{args.out}: {shape.nodes} nodes, {shape.pods} pods over {end_time(shape):g} s\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
