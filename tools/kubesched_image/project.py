"""The repository the image is built from: its lock files, the files of kubesched's wheel, the
version, and the digest of everything that goes into the image."""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kubesched_image.errors import ImageError
from kubesched_image.platforms import NATIVE, Platform

BUILDER_DIR = Path(__file__).resolve().parent
DEFAULT_ROOT = BUILDER_DIR.parents[1]

# What `docker build` receives (.dockerignore): kubesched's wheel is built from these files.
CONTEXT_FILES = ("pyproject.toml", "README.md", "LICENSE", "requirements/runtime.lock")
CONTEXT_DIRS = ("src",)
_SKIPPED_PARTS = ("__pycache__",)
_SKIPPED_SUFFIXES = (".pyc", ".pyo")

# The earliest time a wheel (a zip file) can record, and so the default of SOURCE_DATE_EPOCH.
EPOCH_DEFAULT = 315532800  # 1980-01-01T00:00:00Z
EPOCH_ENV = "SOURCE_DATE_EPOCH"


@dataclass(frozen=True)
class Project:
    """A checkout of kubesched."""

    root: Path

    @classmethod
    def default(cls) -> Project:
        return cls(DEFAULT_ROOT)

    @property
    def debian_in(self) -> Path:
        """The Debian packages asked for (and those left out), resolved by `lock`."""
        return self.root / "requirements" / "image-debian.in"

    @property
    def debian_lock(self) -> Path:
        return self.debian_lock_for(NATIVE)

    @property
    def wheels_lock(self) -> Path:
        """requirements/runtime.lock with the file and sha256 of each wheel."""
        return self.wheels_lock_for(NATIVE)

    def debian_lock_for(self, platform: Platform) -> Path:
        """The Debian packages of `platform`: image-debian.lock, image-debian-arm64.lock."""
        return self.root / "requirements" / f"image-debian{platform.lock_suffix}.lock"

    def wheels_lock_for(self, platform: Platform) -> Path:
        return self.root / "requirements" / f"image-wheels{platform.lock_suffix}.lock"

    @property
    def build_lock(self) -> Path:
        """The build backend that makes kubesched's wheel (setuptools), pinned with its hash."""
        return self.root / "requirements" / "image-build.lock"

    @property
    def runtime_lock(self) -> Path:
        return self.root / "requirements" / "runtime.lock"

    def name_and_version(self) -> tuple[str, str]:
        path = self.root / "pyproject.toml"
        try:
            project = tomllib.loads(path.read_text())["project"]
            return str(project["name"]), str(project["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError) as error:
            raise ImageError(
                f"cannot read the project's name and version from {path}: {error}"
            ) from None

    def context_files(self) -> list[Path]:
        """The files kubesched's wheel is built from, sorted (the Dockerfile's COPY lines)."""
        files = [self.root / name for name in CONTEXT_FILES]
        for directory in CONTEXT_DIRS:
            files.extend(_walk(self.root / directory))
        missing = [path for path in files if not path.is_file()]
        if missing:
            raise ImageError(f"{missing[0]} is missing: run `make image` from a kubesched checkout")
        return sorted(files)

    def lock_files(self, platform: Platform = NATIVE) -> list[Path]:
        debian, wheels = self.debian_lock_for(platform), self.wheels_lock_for(platform)
        return [self.debian_in, debian, wheels, self.build_lock]


def _walk(directory: Path) -> Iterator[Path]:
    for path in directory.rglob("*"):
        if any(part in _SKIPPED_PARTS or part.endswith(".egg-info") for part in path.parts):
            continue
        if path.is_file() and path.suffix not in _SKIPPED_SUFFIXES:
            yield path


def source_date_epoch() -> int:
    """`$SOURCE_DATE_EPOCH` (the reproducible-builds convention), else 1980-01-01."""
    raw = os.environ.get(EPOCH_ENV, "").strip()
    if not raw:
        return EPOCH_DEFAULT
    if not raw.isdigit() or int(raw) < EPOCH_DEFAULT:
        raise ImageError(
            f"{EPOCH_ENV}={raw!r} is not a Unix time from 1980 on (zip files cannot hold older "
            f"times): unset it or set e.g. {EPOCH_ENV}={EPOCH_DEFAULT}"
        )
    return int(raw)


def inputs_digest(project: Project, *, epoch: int, platform: Platform = NATIVE) -> str:
    """sha256 over every input of the image of `platform`: the lock files, the wheel's
    sources, this builder's code and the epoch. Equal digests give equal images."""
    seed = f"epoch={epoch}\n" + ("" if platform == NATIVE else f"platform={platform.name}\n")
    digest = hashlib.sha256(seed.encode())
    locks = project.lock_files(platform)
    for path in locks:
        if not path.is_file():
            raise ImageError(f"{path} is missing: run `make image-lock` to write it")
    builder = sorted(BUILDER_DIR.glob("*.py"))
    for path in [*locks, *project.context_files(), *builder]:
        label = f"builder/{path.name}" if path in builder else path.relative_to(project.root)
        content = path.read_bytes()
        digest.update(f"{label}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()
