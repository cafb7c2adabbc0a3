"""Assemble the image in a scratch folder: fetch the pinned inputs, stage the three layers'
folders (Debian packages, the locked dependencies, kubesched), check them with the image's own
Python, write the OCI layout, the tarball and the SBOM."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name

from kubesched_image import debian, foreign, oci, rootfs, sbom, spec, target, wheels
from kubesched_image.errors import ImageError, Progress
from kubesched_image.lockfiles import (
    DebPin,
    WheelPin,
    read_debian_lock,
    read_debian_request,
    read_requirement_hashes,
    read_requirement_pins,
    read_wheel_lock,
)
from kubesched_image.paths import cache_root
from kubesched_image.platforms import NATIVE, Platform
from kubesched_image.project import Project

SITE = wheels.site_packages(spec.PREFIX)
STDLIB = f"/usr/lib/python{wheels.PYTHON}"


@dataclass(frozen=True)
class Assembled:
    """What `assemble` wrote into its `out` folder."""

    image: str
    """`kubesched:0.1.0`."""
    manifest_digest: str
    archive_name: str
    sbom_name: str


def glibc_of(pins: Sequence[DebPin]) -> tuple[int, int]:
    libc = next((pin for pin in pins if pin.name == "libc6"), None)
    match = re.match(r"(\d+)\.(\d+)", libc.version) if libc else None
    if match is None:
        raise ImageError("requirements/image-debian.lock has no libc6: run `make image-lock`")
    return int(match[1]), int(match[2])


def apt_for(platform: Platform) -> debian.Apt:
    """The machine's apt for the native platform, a private index in the cache for another."""
    if platform == NATIVE:
        return debian.NATIVE_APT
    return debian.Apt.foreign(platform.architecture, cache_root() / f"apt-{platform.architecture}")


def checked_locks(
    project: Project, platform: Platform = NATIVE
) -> tuple[tuple[DebPin, ...], tuple[WheelPin, ...], tuple[WheelPin, ...]]:
    request = read_debian_request(project.debian_in)
    debian_lock, wheels_lock = project.debian_lock_for(platform), project.wheels_lock_for(platform)
    debs = read_debian_lock(debian_lock)
    names = {pin.name for pin in debs}
    stale = [name for name in request.roots if name not in names]
    stale += [name for name in request.excluded if name in names]
    stale += [pin.name for pin in debs if pin.architecture not in (platform.architecture, "all")]
    if stale:
        raise ImageError(
            f"{debian_lock.name} is older than {project.debian_in.name} ({stale[0]}): "
            "run `make image-lock`"
        )
    runtime = read_requirement_pins(project.runtime_lock)
    locked = read_wheel_lock(wheels_lock)
    if {pin.key: pin.version for pin in locked} != runtime:
        raise ImageError(
            f"{wheels_lock.name} does not pin what {project.runtime_lock.name} pins: "
            "run `make image-lock`"
        )
    allowed = read_requirement_hashes(project.runtime_lock)
    outside = [pin for pin in locked if pin.sha256 not in allowed[pin.key]]
    if outside:  # the Dockerfile installs runtime.lock with --require-hashes: it would refuse it
        raise ImageError(
            f"{outside[0].file_name} of {wheels_lock.name} is not among the files "
            f"{project.runtime_lock.name} allows (its --hash lines): run `make image-lock`"
        )
    return debs, locked, read_wheel_lock(project.build_lock)


@dataclass(frozen=True)
class Inputs:
    """The pinned inputs, fetched: every file on this machine."""

    debs: tuple[DebPin, ...]
    deb_files: dict[str, Path]
    """Debian package name -> its .deb."""
    wheels: tuple[WheelPin, ...]
    wheel_files: dict[str, Path]
    """Canonical distribution name -> its wheel."""
    app_wheel: Path
    """kubesched's own wheel, just built."""


@dataclass(frozen=True)
class Stage:
    """The three layers' folders, each laid out as the root filesystem."""

    base: Path
    """The Debian packages, the user, the dpkg database."""
    deps: Path
    """The virtualenv with the locked dependencies."""
    app: Path
    """kubesched in the same virtualenv."""
    owners: dict[str, tuple[int, int]]
    """Paths of `base` not owned by root."""

    @property
    def sites(self) -> list[Path]:
        return [self.deps / SITE.lstrip("/"), self.app / SITE.lstrip("/")]


def assemble(
    project: Project,
    scratch: Path,
    out: Path,
    *,
    cache: Path,
    epoch: int,
    progress: Progress,
    platform: Platform = NATIVE,
    native: Path | None = None,
) -> Assembled:
    """Build the image of `project` for `platform` in `scratch`, writing its files into `out`.
    Another platform than the native one needs `native`, the native build's folder: its
    Python compiles the bytecode."""
    name, version = project.name_and_version()
    inputs = fetch_inputs(
        project, cache, scratch=scratch, epoch=epoch, progress=progress, platform=platform
    )
    if platform == NATIVE:
        stage = _stage(inputs, scratch / "stage", progress=progress)
    else:
        assert native is not None, "a foreign platform's build needs the native build"
        stage = _stage_foreign(inputs, scratch, native, platform=platform, progress=progress)
    progress(f"image: writing the layers ({platform.name})")
    manifest = _write_layout(
        stage, out / "oci", name=name, version=version, epoch=epoch, platform=platform
    )
    image = f"{name}:{version}"
    suffix = "" if platform == NATIVE else f"-{platform.architecture}"
    archive_name = f"{name}-{version}{suffix}.tar"
    sbom_name = f"{name}-{version}{suffix}.spdx.json"
    oci.write_archive(out / "oci", out / archive_name, repo_tag=image, epoch=epoch)
    document = sbom.document(
        name=name,
        version=version,
        manifest_digest=manifest.digest,
        components=_components(inputs, stage.sites),
        epoch=epoch,
    )
    (out / sbom_name).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return Assembled(
        image=image,
        manifest_digest=manifest.digest,
        archive_name=archive_name,
        sbom_name=sbom_name,
    )


def fetch_inputs(
    project: Project,
    cache: Path,
    *,
    scratch: Path,
    epoch: int,
    progress: Progress,
    platform: Platform = NATIVE,
) -> Inputs:
    """The .debs and wheels of the lock files (downloaded once into `cache`), and kubesched's
    wheel built by the pinned build backend."""
    debs, runtime_pins, build_pins = checked_locks(project, platform)
    platform_args = wheels.target_args(glibc_of(debs), platform.machine)
    deb_files = debian.fetch(debs, cache / "debs", progress=progress, source=apt_for(platform))
    wheel_files = wheels.fetch(
        runtime_pins, cache / "wheels", extra_args=platform_args, progress=progress
    )
    backend = wheels.fetch(
        build_pins, cache / "wheels", extra_args=["--only-binary=:all:"], progress=progress
    )
    python_tag = "".join(map(str, sys.version_info[:3]))
    env = cache / f"build-env-{debian.sha256_file(project.build_lock)[:16]}-py{python_tag}"
    builder = wheels.build_env(backend.values(), env, progress=progress)
    app_wheel = wheels.build_project(project, python=builder, out=scratch / "wheel", epoch=epoch)
    return Inputs(debs, deb_files, runtime_pins, wheel_files, app_wheel)


def _stage(inputs: Inputs, stage: Path, *, progress: Progress) -> Stage:
    """Unpack and install everything, compile its bytecode and check it with the image's own
    interpreter."""
    progress(f"image: unpacking {len(inputs.debs)} Debian packages")
    base = stage / "debian"
    owners = _stage_debian(base, inputs.debs, inputs.deb_files)
    staged = Stage(base=base, deps=stage / "dependencies", app=stage / "kubesched", owners=owners)
    python = target.TargetPython(base)
    try:
        python_version = python.version()
        rootfs.write_venv(
            staged.deps, prefix=spec.PREFIX, python=spec.PYTHON, version=python_version
        )
        runtime = [inputs.wheel_files[pin.key] for pin in inputs.wheels]
        wheels.install(runtime, destdir=staged.deps, prefix=spec.PREFIX)
        wheels.install([inputs.app_wheel], destdir=staged.app, prefix=spec.PREFIX)
        wheels.check_requirements(staged.sites, environment=markers(python_version, NATIVE))
        progress("image: compiling bytecode with the image's Python")
        stdlib = base / STDLIB.lstrip("/")
        trees = [(stdlib, STDLIB), *((site, SITE) for site in staged.sites)]
        failed = target.compile_bytecode(python, trees)
        if failed:
            progress(f"image: {len(failed)} modules do not compile, left as source: {failed[:3]}")
        target.smoke(
            python, sites=staged.sites, extension_dirs=[stdlib / "lib-dynload", *staged.sites]
        )
    finally:
        python.close()
    return staged


def _stage_foreign(
    inputs: Inputs, scratch: Path, native: Path, *, platform: Platform, progress: Progress
) -> Stage:
    """Unpack and install everything for `platform`, whose Python cannot run here: the
    native image's Python (the same Debian version, checked) compiles the bytecode, and
    every executable and extension module is checked to be an ELF file of `platform`."""
    progress(f"image: unpacking {len(inputs.debs)} Debian packages ({platform.name})")
    base = scratch / "stage" / "debian"
    owners = _stage_debian(base, inputs.debs, inputs.deb_files)
    stage = scratch / "stage"
    staged = Stage(base=base, deps=stage / "dependencies", app=stage / "kubesched", owners=owners)
    python = foreign.native_python(native, scratch / "native", progress=progress)
    try:
        python_version = python.version()
        foreign.check_python_version(base, python_version, platform=platform)
        rootfs.write_venv(
            staged.deps, prefix=spec.PREFIX, python=spec.PYTHON, version=python_version
        )
        runtime = [inputs.wheel_files[pin.key] for pin in inputs.wheels]
        wheels.install(runtime, destdir=staged.deps, prefix=spec.PREFIX)
        wheels.install([inputs.app_wheel], destdir=staged.app, prefix=spec.PREFIX)
        wheels.check_requirements(staged.sites, environment=markers(python_version, platform))
        progress(f"image: compiling bytecode with the {NATIVE.name} image's Python")
        stdlib = base / STDLIB.lstrip("/")
        trees = [(stdlib, STDLIB), *((site, SITE) for site in staged.sites)]
        failed = target.compile_bytecode(python, trees)
        if failed:
            progress(f"image: {len(failed)} modules do not compile, left as source: {failed[:3]}")
    finally:
        python.close()
    foreign.check_binaries([base, *staged.sites], platform=platform)
    return staged


def _write_layout(
    stage: Stage, layout: Path, *, name: str, version: str, epoch: int, platform: Platform
) -> oci.Blob:
    blobs = layout / "blobs" / "sha256"
    said = (
        "Debian 12 (bookworm): the packages of requirements/image-debian.lock",
        f"{spec.PREFIX}: requirements/runtime.lock",
        f"{spec.PREFIX}: {name} {version}",
    )
    folders = (stage.base, stage.deps, stage.app)
    layers = [
        oci.write_layer(
            folder,
            blobs,
            epoch=epoch,
            owners=stage.owners if folder == stage.base else {},
            created_by=text,
        )
        for folder, text in zip(folders, said, strict=True)
    ]
    config = oci.ImageConfig(
        entrypoint=spec.ENTRYPOINT,
        user=spec.USER,
        env=spec.ENV,
        exposed_ports=spec.EXPOSED_PORTS,
        labels={**spec.LABELS, "org.opencontainers.image.version": version},
    )
    return oci.write_image(
        layout,
        layers=layers,
        config=config,
        epoch=epoch,
        ref_name=version,
        image_name=f"docker.io/library/{name}:{version}",
        platform=platform.oci(),
    )


def _stage_debian(
    base: Path, debs: Sequence[DebPin], files: dict[str, Path]
) -> dict[str, tuple[int, int]]:
    debian.unpack([files[pin.name] for pin in debs], base)
    rootfs.prune(base)
    rootfs.write_dpkg_status(base, {pin.name: debian.control(files[pin.name]) for pin in debs})
    return rootfs.write_identity(base)


def markers(python_version: str, platform: Platform) -> dict[str, str]:
    """PEP 508 marker values of the image's interpreter."""
    return {
        "implementation_name": "cpython",
        "implementation_version": python_version,
        "os_name": "posix",
        "platform_machine": platform.machine,
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_system": "Linux",
        "platform_version": "",
        "python_full_version": python_version,
        "python_version": wheels.PYTHON,
        "sys_platform": "linux",
    }


def _components(inputs: Inputs, sites: Sequence[Path]) -> list[sbom.Component]:
    """Every Debian package unpacked and every distribution installed (read back from the
    dist-info folders), each with the sha256 of its file."""
    components: list[sbom.Component] = []
    for pin in inputs.debs:
        fields = dict(
            line.split(": ", 1)
            for line in debian.control(inputs.deb_files[pin.name]).splitlines()
            if ": " in line
        )
        components.append(
            sbom.Component(
                ecosystem="deb",
                name=pin.name,
                version=pin.version,
                sha256=pin.sha256,
                file_name=pin.file_name,
                download=f"{sbom.DEBIAN_MIRROR}/{pin.filename}",
                architecture=pin.architecture,
                supplier="Organization: Debian",
                source=f"built package from: {fields.get('Source', pin.name).split(' ')[0]}",
            )
        )
    files = {pin.key: (pin.file_name, pin.sha256) for pin in inputs.wheels}
    installed = {}
    for site in sites:
        installed.update(wheels.distributions(site))
    app_key = canonicalize_name(inputs.app_wheel.name.split("-")[0])
    files[app_key] = (inputs.app_wheel.name, debian.sha256_file(inputs.app_wheel))
    for key, (dist, version, _) in sorted(installed.items()):
        if key not in files:
            raise ImageError(f"{dist} {version} is installed but not locked: run `make image-lock`")
        file_name, sha256 = files.pop(key)
        components.append(
            sbom.Component(
                ecosystem="pypi", name=dist, version=version, sha256=sha256, file_name=file_name
            )
        )
    if files:
        raise ImageError(f"{min(files)} is locked but was not installed: run `make image-lock`")
    return components
