"""`build`: the image of the repository's inputs, from the cache when a build of the same
inputs is there, else assembled (`assemble`) in a scratch folder and kept in the cache."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kubesched.localcluster.paths import cache_dir
from kubesched_image.assemble import assemble
from kubesched_image.errors import Progress, stderr_progress
from kubesched_image.project import Project, inputs_digest, source_date_epoch

KEEP_BUILDS = 3


def cache_root() -> Path:
    """`~/.cache/kubesched/image` (or under $KUBESCHED_CACHE_DIR): downloads and builds."""
    return cache_dir() / "image"


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

    @property
    def layout(self) -> Path:
        return self.folder / "oci"

    @property
    def archive(self) -> Path:
        return self.folder / self.archive_name

    @property
    def sbom(self) -> Path:
        return self.folder / self.sbom_name


def build(project: Project, *, progress: Progress = stderr_progress, force: bool = False) -> Result:
    """The image of `project`'s inputs: from the cache when a build of the same inputs is
    there (unless `force`), else built (a minute or so, downloads cached)."""
    epoch = source_date_epoch()
    digest = inputs_digest(project, epoch=epoch)
    builds = cache_root() / "builds"
    folder = builds / digest[:24]
    builds.mkdir(parents=True, exist_ok=True)
    with _exclusive(cache_root() / ".lock"):
        done = folder / "result.json"
        if done.is_file() and not force:
            return Result(**{**json.loads(done.read_text()), "folder": folder, "reused": True})
        started = time.monotonic()
        umask = os.umask(0o022)  # the modes of the files written (a layer records them)
        try:
            result = _build_cached(project, folder, epoch=epoch, digest=digest, progress=progress)
        finally:
            os.umask(umask)
        _prune(builds)
    return replace(result, seconds=round(time.monotonic() - started, 1))


def _build_cached(
    project: Project, folder: Path, *, epoch: int, digest: str, progress: Progress
) -> Result:
    """Build in a scratch folder beside `folder`, then rename it to `folder`."""
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".build-") as scratch:
        out = Path(scratch) / "out"
        built = assemble(
            project, Path(scratch), out, cache=cache_root(), epoch=epoch, progress=progress
        )
        record = {**asdict(built), "inputs_digest": digest}
        (out / "result.json").write_text(json.dumps(record, indent=2) + "\n")
        shutil.rmtree(folder, ignore_errors=True)
        out.rename(folder)
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
    for source in (result.archive, result.sbom):
        shutil.copyfile(source, out / source.name)
        written.append(out / source.name)
    (out / "digest").write_text(result.manifest_digest + "\n")
    written.append(out / "digest")
    return written
