"""`build`: the image of the repository's inputs, from the cache when a build of the same
inputs is there, else assembled (`assemble`) in a scratch folder and kept in the cache; with
plugin modules, that image extended by a layer (`plugins.extend`), cached the same way."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kubesched_image import oci, plugin_deps
from kubesched_image.assemble import Assembled, assemble
from kubesched_image.errors import ImageError, Progress, stderr_progress
from kubesched_image.paths import cache_root
from kubesched_image.platforms import NATIVE, Platform
from kubesched_image.plugins import Extended, extend, plugin_sources, sources_digest
from kubesched_image.plugins_multi import transplant
from kubesched_image.project import Project, inputs_digest, source_date_epoch


@dataclass(frozen=True)
class Indexed:
    """What `_index` wrote: one image index of the platforms' images."""

    image: str
    manifest_digest: str
    """The index's digest: what a registry serves under the tag."""
    archive_name: str
    sbom_name: str
    extra_names: tuple[str, ...]
    """The other platforms' SBOMs."""


Built = Assembled | Extended | Indexed

KEEP_BUILDS = 8
"""Builds kept, least recently used pruned first: the plain image, the arm64 one and their
index, and a few with plugins (make test's image tests use five)."""


@dataclass(frozen=True)
class Result:
    """A finished build, in its cache folder."""

    folder: Path
    image: str
    """`kubesched:0.1.0`."""
    manifest_digest: str
    inputs_digest: str
    archive_name: str
    sbom_name: str
    seconds: float = 0.0
    """How long this call took."""
    reused: bool = False
    """Whether it found the build in the cache."""
    extra_names: Sequence[str] = ()
    """More files of the build to export (the SBOMs of the other platforms)."""

    @property
    def tag(self) -> str:
        return self.image.rpartition(":")[2]

    @property
    def layout(self) -> Path:
        return self.folder / "oci"

    @property
    def archive(self) -> Path:
        return self.folder / self.archive_name

    @property
    def sbom(self) -> Path:
        return self.folder / self.sbom_name


def build(
    project: Project,
    *,
    plugins: Sequence[Path] = (),
    plugin_requirements: Path | None = None,
    platforms: Sequence[Platform] = (NATIVE,),
    progress: Progress = stderr_progress,
    force: bool = False,
) -> Result:
    """The image of `project`'s inputs: from the cache when a build of the same inputs is
    there (unless `force`), else built (a minute or so, downloads cached). With `plugins`
    (module files or package folders), that image plus a layer holding them
    (`kubesched:0.1.0-plugins`, kubesched_image.plugins). With more `platforms` than the
    native one, one image index of each platform's image."""
    epoch = source_date_epoch()
    sources = plugin_sources(plugins)  # a mistyped path fails before a minute of building
    requirements = None
    if plugin_requirements is not None:
        if not sources:
            raise ImageError(
                "IMAGE_PLUGIN_REQUIREMENTS without IMAGE_PLUGINS: name the plugins too"
            )
        requirements = plugin_deps.read(plugin_requirements, runtime_lock=project.runtime_lock)
    started = time.monotonic()
    digest = inputs_digest(project, epoch=epoch)

    def plain(scratch: Path, out: Path) -> Built:
        return assemble(project, scratch, out, cache=cache_root(), epoch=epoch, progress=progress)

    results = [_cached(digest, make=plain, force=force)]
    results += _others(
        project, results[0], platforms[1:], epoch=epoch, progress=progress, force=force
    )
    if sources:
        name, version = project.name_and_version()
        base = results[0].folder

        def with_plugins(scratch: Path, out: Path) -> Built:
            return extend(
                base,
                sources,
                scratch,
                out,
                name=name,
                version=version,
                epoch=epoch,
                progress=progress,
                requirements=requirements,
                cache=cache_root() / "wheels",
            )

        key = sources_digest(digest, sources, requirements)
        plugged = _cached(key, make=with_plugins, force=force)
        results = [
            plugged,
            *(_transplanted(plugged, other, epoch=epoch, force=force) for other in results[1:]),
        ]
    result = results[0] if len(results) == 1 else _indexed(results, epoch=epoch, force=force)
    return replace(result, seconds=round(time.monotonic() - started, 1))


def _others(
    project: Project,
    native: Result,
    platforms: Sequence[Platform],
    *,
    epoch: int,
    progress: Progress,
    force: bool,
) -> list[Result]:
    """The image of every other platform, each cached on its own inputs."""
    results = []
    for platform in platforms:

        def other(scratch: Path, out: Path, platform: Platform = platform) -> Built:
            return assemble(
                project,
                scratch,
                out,
                cache=cache_root(),
                epoch=epoch,
                progress=progress,
                platform=platform,
                native=native.folder,
            )

        digest = inputs_digest(project, epoch=epoch, platform=platform)
        results.append(_cached(digest, make=other, force=force))
    return results


def _transplanted(plugged: Result, other: Result, *, epoch: int, force: bool) -> Result:
    """The native image's plugin layer on top of another platform's image (plugins_multi)."""
    name, _, tag = plugged.image.partition(":")
    key = _digest_of(plugged, other)
    return _cached(
        key,
        make=lambda _, out: transplant(
            plugged.folder, other.folder, out, name=name, tag=tag, epoch=epoch
        ),
        force=force,
    )


def _indexed(results: Sequence[Result], *, epoch: int, force: bool) -> Result:
    """One image index of `results` (the native image first), cached."""
    key = _digest_of(*results)
    return _cached(key, make=lambda _, out: _index(results, out, epoch=epoch), force=force)


def _digest_of(*results: Result) -> str:
    return hashlib.sha256("\n".join(r.inputs_digest for r in results).encode()).hexdigest()


def _index(results: Sequence[Result], out: Path, *, epoch: int) -> Indexed:
    native = results[0]
    version = native.tag
    index = oci.write_index(
        out / "oci",
        [result.layout for result in results],
        ref_name=version,
        image_name=f"docker.io/library/{native.image}",
    )
    archive = out / native.archive_name  # docker load: the native image
    oci.write_archive(
        out / "oci",
        archive,
        repo_tag=native.image,
        epoch=epoch,
        manifest_digest=native.manifest_digest,
    )
    for result in results:
        shutil.copyfile(result.sbom, out / result.sbom_name)
    extra = tuple(result.sbom_name for result in results[1:])
    return Indexed(native.image, index.digest, native.archive_name, native.sbom_name, extra)


def _cached(digest: str, *, make: Callable[[Path, Path], Built], force: bool) -> Result:
    """The build of `digest` from the cache, else made by `make(scratch, out)` in a scratch
    folder that is then renamed into the cache."""
    builds = cache_root() / "builds"
    folder = builds / digest[:24]
    builds.mkdir(parents=True, exist_ok=True)
    with _exclusive(cache_root() / ".lock"):
        done = folder / "result.json"
        if done.is_file() and not force:
            done.touch()  # recently used: pruned last
            return Result(**{**json.loads(done.read_text()), "folder": folder, "reused": True})
        umask = os.umask(0o022)  # the modes of the files written (a layer records them)
        try:
            with tempfile.TemporaryDirectory(dir=builds, prefix=".build-") as scratch:
                out = Path(scratch) / "out"
                out.mkdir()
                built = make(Path(scratch), out)
                record = {**asdict(built), "inputs_digest": digest}
                (out / "result.json").write_text(json.dumps(record, indent=2) + "\n")
                shutil.rmtree(folder, ignore_errors=True)
                out.rename(folder)
        finally:
            os.umask(umask)
        _prune(builds)
    return Result(folder=folder, **record)


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """One build at a time per cache (make image and the e2e test may overlap)."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _prune(builds: Path) -> None:
    finished = sorted(
        (p for p in builds.iterdir() if (p / "result.json").is_file()),
        key=lambda p: (p / "result.json").stat().st_mtime,
    )
    for old in finished[:-KEEP_BUILDS]:
        shutil.rmtree(old, ignore_errors=True)


def export(result: Result, out: Path) -> list[Path]:
    """Copy a build to `out` (e.g. build/image): the OCI layout folder, the tarball, the SBOM
    and the manifest digest; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    layout = out / "oci"
    shutil.rmtree(layout, ignore_errors=True)
    shutil.copytree(result.layout, layout, symlinks=True)
    written = [layout]
    for source in (result.archive, result.sbom, *(result.folder / n for n in result.extra_names)):
        shutil.copyfile(source, out / source.name)
        written.append(out / source.name)
    name = result.image.partition(":")[0]
    for stale in [*out.glob(f"{name}-*.tar"), *out.glob(f"{name}-*.spdx.json")]:
        if stale not in written:  # an earlier build's (another tag, the other platform's SBOM)
            stale.unlink()
    (out / "digest").write_text(result.manifest_digest + "\n")
    written.append(out / "digest")
    return written
