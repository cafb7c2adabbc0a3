"""`python -m kubesched_image build|push|lock` (run by `make image`, `make image-push` and
`make image-lock`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from kubesched.localcluster.binaries import cached_crane
from kubesched_image import platforms, spec
from kubesched_image.build import Result, build, export
from kubesched_image.errors import ImageError, stderr_progress
from kubesched_image.paths import cache_root
from kubesched_image.project import Project
from kubesched_image.push import crane, push, reference
from kubesched_image.relock import lock


def _build_args(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--out", type=Path, default=Path("build/image"), help="where to copy it (build/image)"
    )
    command.add_argument(
        "--plugin",
        dest="plugins",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="add a plugin module (NAME.py) or package folder in a layer on top, on PYTHONPATH "
        "(repeatable; make image IMAGE_PLUGINS=...)",
    )
    command.add_argument(
        "--plugin-requirements",
        type=Path,
        default=None,
        metavar="FILE",
        help="the plugins' own dependencies, pinned with == and --hash (pip-compile "
        "--generate-hashes), installed beside kubesched's (IMAGE_PLUGIN_REQUIREMENTS=...)",
    )
    command.add_argument(
        "--platforms",
        default="",
        help=f"comma-separated platforms, e.g. {platforms.names(platforms.ALL)} for one image "
        f"index of both (default: build {platforms.NATIVE.name}; push: both)",
    )
    command.add_argument("--force", action="store_true", help="build even if cached")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kubesched-image",
        description="Build kubesched's container image without a container engine.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build_cmd = commands.add_parser(
        "build", help="build the image (or reuse the cached build of the same inputs)"
    )
    _build_args(build_cmd)
    push_cmd = commands.add_parser(
        "push", help="build the image (cached) and push it to REGISTRY with crane"
    )
    _build_args(push_cmd)
    push_cmd.add_argument("--registry", required=True, help="host[:port]/repository, no tag")
    push_cmd.add_argument(
        "--push-arg", dest="push_args", action="append", default=[], help="an option for crane push"
    )
    crane_cmd = commands.add_parser("crane", help="print the path of crane (built once)")
    crane_cmd.add_argument(
        "--cached", action="store_true", help="only if it needs no build; else exit 1"
    )
    commands.add_parser("lock", help="pin the Debian packages and wheels anew")
    return parser


def main(argv: Sequence[str] | None = None, *, project: Project | None = None) -> int:
    args = _parser().parse_args(argv)
    project = project or Project.default()
    try:
        if args.command == "lock":
            lock(project)
            return 0
        if args.command == "crane":
            return _crane(cached=args.cached)
        result, written, pushed = _build_and_push(args, project)
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
    if pushed:
        print(f"pushed {pushed}")
        print(f"  kubesched manifests --image={pushed} ...")
    return 0


def _build_and_push(args: argparse.Namespace, project: Project) -> tuple[Result, list[Path], str]:
    if args.platforms:
        chosen = platforms.parse(args.platforms)
    elif args.command == "push":
        chosen = platforms.ALL
    else:
        chosen = (platforms.NATIVE,)
    ref = ""
    if args.command == "push":  # a bad REGISTRY before a minute of building
        version = project.name_and_version()[1]
        ref = reference(args.registry, version + (spec.PLUGINS_TAG_SUFFIX if args.plugins else ""))
    result = build(
        project,
        plugins=args.plugins,
        plugin_requirements=args.plugin_requirements,
        platforms=chosen,
        force=args.force,
    )
    written = export(result, args.out)
    if not ref:
        return result, written, ""
    layout = args.out / "oci"
    return result, written, push(layout, ref, extra_args=args.push_args, progress=stderr_progress)


def _crane(*, cached: bool) -> int:
    path = cached_crane() if cached else push_crane()
    if path is None:
        return 1
    print(path)
    return 0


def push_crane() -> Path:
    return crane(stderr_progress)


if __name__ == "__main__":
    sys.exit(main())
