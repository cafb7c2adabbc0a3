"""`lock`: write the image's lock files anew from what apt and the package index offer."""

from __future__ import annotations

import tempfile
from pathlib import Path

from kubesched_image import debian, platforms, wheels
from kubesched_image.assemble import apt_for, glibc_of
from kubesched_image.errors import ImageError, Progress, stderr_progress
from kubesched_image.lockfiles import (
    read_debian_request,
    read_requirement_pins,
    write_debian_lock,
    write_wheel_lock,
)
from kubesched_image.project import Project

# -- lock ----------------------------------------------------------------------------------
_HEADER_DEBIAN = (
    "# Debian 12 (bookworm) packages of the kubesched image{platform}: "
    "requirements/image-debian.in and what\n"
    "# its packages Depend or Pre-Depend on, at the versions apt offered. "
    "Written by `make image-lock`.\n"
    "# NAME VERSION ARCHITECTURE SHA256 POOL-PATH\n"
)
_HEADER_WHEELS = (
    "# The wheels of requirements/runtime.lock for the image{platform} (CPython 3.11, "
    "manylinux for Debian 12's\n"
    "# glibc), one file and its sha256 per distribution. Written by `make image-lock`.\n"
)
_HEADER_BUILD = """\
# What builds kubesched's wheel for the image: pyproject.toml's [build-system] requires, pinned.
# Written by `make image-lock`.
"""


def lock(project: Project, *, progress: Progress = stderr_progress) -> None:
    """Rewrite the lock files of every platform from what apt and the package index offer."""
    pythons = {p.name: lock_platform(project, p, progress=progress) for p in platforms.ALL}
    if len(set(pythons.values())) > 1:  # the native Python compiles every platform's bytecode
        raise ImageError(
            f"apt offers different Python versions per platform ({pythons}): the mirror is "
            "mid-update; run `apt-get update` and `make image-lock` again later"
        )
    with tempfile.TemporaryDirectory(prefix="kubesched-image-") as scratch:
        requires = Path(scratch) / "build-requires.txt"
        requires.write_text("".join(line + "\n" for line in wheels.build_requirements(project)))
        backend = wheels.lock(requires, extra_args=["--only-binary=:all:"], progress=progress)
    write_wheel_lock(project.build_lock, backend, header=_HEADER_BUILD)
    progress(f"image: locked {len(backend)} wheels for the build")


def lock_platform(project: Project, platform: platforms.Platform, *, progress: Progress) -> str:
    """Rewrite the Debian and wheel locks of `platform`; the version of its Python package."""
    said = "" if platform == platforms.NATIVE else f" for {platform.name}"
    request = read_debian_request(project.debian_in)
    debs = debian.resolve(request, progress=progress, source=apt_for(platform))
    header = _HEADER_DEBIAN.format(platform=said)
    write_debian_lock(project.debian_lock_for(platform), debs, header=header)
    pins = wheels.lock(
        project.runtime_lock,
        extra_args=["--no-deps", *wheels.target_args(glibc_of(debs), platform.machine)],
        progress=progress,
    )
    if {pin.key: pin.version for pin in pins} != read_requirement_pins(project.runtime_lock):
        raise ImageError(
            f"pip's wheels do not match {project.runtime_lock}: pin each distribution with =="
        )
    write_wheel_lock(
        project.wheels_lock_for(platform), pins, header=_HEADER_WHEELS.format(platform=said)
    )
    progress(f"image: locked {len(debs)} Debian packages, {len(pins)} wheels{said}")
    return next(pin.version for pin in debs if pin.name == "python3.11-minimal")
