"""`python -m kubesched_image build|lock` (run by `make image` and `make image-lock`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kubesched_image.build import build, cache_root, export
from kubesched_image.errors import ImageError
from kubesched_image.project import Project
from kubesched_image.relock import lock


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubesched-image",
        description="Build kubesched's container image without a container engine.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser(
        "build", help="build the image (or reuse the cached build of the same inputs)"
    )
    build_cmd.add_argument(
        "--out", type=Path, default=Path("build/image"), help="where to copy it (build/image)"
    )
    build_cmd.add_argument(
        "--plugin",
        dest="plugins",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="add a plugin module (NAME.py) or package folder in a layer on top, on PYTHONPATH "
        "(repeatable; make image IMAGE_PLUGINS=...)",
    )
    build_cmd.add_argument("--force", action="store_true", help="build even if cached")
    commands.add_parser("lock", help="pin the Debian packages and wheels anew")
    return parser


def main(argv: Sequence[str] | None = None, *, project: Project | None = None) -> int:
    args = _parser().parse_args(argv)
    project = project or Project.default()
    try:
        if args.command == "lock":
            lock(project)
            return 0
        result = build(project, plugins=args.plugins, force=args.force)
        written = export(result, args.out)
    except ImageError as error:
        print(f"kubesched-image: {error}", file=sys.stderr)
        if error.details:
            print("\n".join("    " + line for line in error.details.splitlines()), file=sys.stderr)
        return 1
    except OSError as error:
        where = error.filename or cache_root()
        print(
            f"kubesched-image: {where}: {error.strerror}: check that it is writable",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        return 130
    how = "reused the cached build" if result.reused else f"built in {result.seconds:g} s"
    print(f"{result.image} {result.manifest_digest} ({how})")
    for path in written:
        print(f"  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
