"""The image of a platform whose Python cannot run on this machine (linux/arm64 on an x86_64
host): its bytecode is compiled by the native image's Python, which must be the same Debian
build of CPython (the .pyc files of one CPython version do not depend on the machine), and
every ELF file is checked to be built for that platform instead of being run."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from kubesched_image import oci, target
from kubesched_image.errors import ImageError, Progress
from kubesched_image.platforms import Platform, elf_machine

PYTHON_PACKAGE = "python3.11-minimal"
STATUS = "var/lib/dpkg/status"


def native_python(native: Path, scratch: Path, *, progress: Progress) -> target.TargetPython:
    """The interpreter of the native build in the folder `native` (its Debian layer,
    unpacked into `scratch`)."""
    layers, _ = oci.read_image(native / "oci")
    progress("image: unpacking the native image's Debian layer to compile with its Python")
    oci.unpack(native / "oci", layers[:1], scratch)
    return target.TargetPython(scratch)


def package_version(root: Path, package: str) -> str:
    status = (root / STATUS).read_text()
    pattern = rf"^Package: {re.escape(package)}\n(?:.+\n)*?Version: (\S+)"
    match = re.search(pattern, status, re.MULTILINE)
    return match[1] if match else ""


def check_python_version(base: Path, native_version: str, *, platform: Platform) -> None:
    """The platform's CPython is the one whose bytecode the native Python writes."""
    version = package_version(base, PYTHON_PACKAGE)
    if not version.startswith(f"{native_version}-"):
        raise ImageError(
            f"{platform.name}'s {PYTHON_PACKAGE} is {version or 'missing'} but the native image's "
            f"Python is {native_version}: run `make image-lock` so that both pin the same version"
        )


def check_binaries(folders: Sequence[Path], *, platform: Platform) -> int:
    """Every ELF file under `folders` (executables, shared libraries, extension modules) is
    built for `platform`, and its dynamic loader and Python are there; the number checked."""
    base = folders[0]
    for needed in (f"lib/{platform.multiarch}/{platform.loader}", "usr/bin/python3.11"):
        path = base / needed
        if elf_machine(path.read_bytes()[:64] if path.is_file() else b"") != platform.elf_machine:
            raise ImageError(
                f"/{needed} is not an ELF file for {platform.name}: run `make image-lock`"
            )
    checked = 0
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            with path.open("rb") as stream:
                machine = elf_machine(stream.read(64))
            if machine is None:
                continue
            checked += 1
            if machine != platform.elf_machine:
                raise ImageError(
                    f"{path.relative_to(folder)} is built for ELF machine {machine}, not for "
                    f"{platform.name}: its wheel or package is the wrong one; run `make image-lock`"
                )
    return checked
