"""`lock`: write the image's lock files anew from what apt and the package index offer."""

from __future__ import annotations

import tempfile
from pathlib import Path

from kubesched_image import debian, wheels
from kubesched_image.assemble import glibc_of
from kubesched_image.errors import ImageError, Progress, stderr_progress
from kubesched_image.lockfiles import (
    read_debian_request,
    read_requirement_pins,
    write_debian_lock,
    write_wheel_lock,
)
from kubesched_image.project import Project

# -- lock ----------------------------------------------------------------------------------
_HEADER_DEBIAN = """\
# Debian 12 (bookworm) packages of the kubesched image: requirements/image-debian.in and what
# its packages Depend or Pre-Depend on, at the versions apt offered. Written by `make image-lock`.
# NAME VERSION ARCHITECTURE SHA256 POOL-PATH
"""
_HEADER_WHEELS = """\
# The wheels of requirements/runtime.lock for the image (CPython 3.11, manylinux for Debian 12's
# glibc), one file and its sha256 per distribution. Written by `make image-lock`.
"""
_HEADER_BUILD = """\
# What builds kubesched's wheel for the image: pyproject.toml's [build-system] requires, pinned.
# Written by `make image-lock`.
"""


def lock(project: Project, *, progress: Progress = stderr_progress) -> None:
    """Rewrite the three lock files from what apt and the package index offer today."""
    debs = debian.resolve(read_debian_request(project.debian_in), progress=progress)
    write_debian_lock(project.debian_lock, debs, header=_HEADER_DEBIAN)
    runtime = read_requirement_pins(project.runtime_lock)
    pins = wheels.lock(
        project.runtime_lock,
        extra_args=["--no-deps", *wheels.target_args(glibc_of(debs))],
        progress=progress,
    )
    if {pin.key: pin.version for pin in pins} != runtime:
        raise ImageError(
            f"pip's wheels do not match {project.runtime_lock}: pin each distribution with =="
        )
    write_wheel_lock(project.wheels_lock, pins, header=_HEADER_WHEELS)
    with tempfile.TemporaryDirectory(prefix="kubesched-image-") as scratch:
        requires = Path(scratch) / "build-requires.txt"
        requires.write_text("".join(line + "\n" for line in wheels.build_requirements(project)))
        backend = wheels.lock(requires, extra_args=["--only-binary=:all:"], progress=progress)
    write_wheel_lock(project.build_lock, backend, header=_HEADER_BUILD)
    counts = f"{len(debs)} Debian packages, {len(pins)} wheels, {len(backend)} for the build"
    progress(f"image: locked {counts}")
