"""The platforms the image is built for: linux/amd64 (this machine's, whose Python the build
runs) and linux/arm64 (Debian's arm64 packages and aarch64 wheels, checked by their ELF
headers; it cannot run here). `make image` builds linux/amd64; `IMAGE_PLATFORMS` adds arm64,
and then the OCI layout holds one image index of both."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kubesched_image.errors import ImageError


@dataclass(frozen=True)
class Platform:
    """One OS/architecture the image is built for."""

    architecture: str
    """OCI's and Debian's name: `amd64`, `arm64`."""
    machine: str
    """The kernel's (`uname -m`), the wheels' and PEP 508's platform_machine: `x86_64`."""
    multiarch: str
    """Debian's library folder under /lib and /usr/lib: `x86_64-linux-gnu`."""
    loader: str
    """The dynamic loader in /lib/<multiarch>."""
    elf_machine: int
    """e_machine of its ELF files (62 x86-64, 183 AArch64)."""
    variant: str = ""
    """The OCI platform variant (`v8` for arm64, as buildx writes it)."""
    lock_suffix: str = ""
    """The suffix of its lock files: image-debian{suffix}.lock, image-wheels{suffix}.lock."""

    @property
    def name(self) -> str:
        return f"linux/{self.architecture}" + (f"/{self.variant}" if self.variant else "")

    def oci(self) -> dict[str, str]:
        """Its `platform` in an image index (and the config's architecture, os, variant)."""
        found = {"architecture": self.architecture, "os": "linux"}
        return {**found, "variant": self.variant} if self.variant else found


AMD64 = Platform(
    architecture="amd64",
    machine="x86_64",
    multiarch="x86_64-linux-gnu",
    loader="ld-linux-x86-64.so.2",
    elf_machine=62,
)
ARM64 = Platform(
    architecture="arm64",
    machine="aarch64",
    multiarch="aarch64-linux-gnu",
    loader="ld-linux-aarch64.so.1",
    elf_machine=183,
    variant="v8",
    lock_suffix="-arm64",
)
NATIVE = AMD64
"""The platform whose Python the build runs (to compile bytecode and check imports)."""
ALL = (AMD64, ARM64)
USAGE = "IMAGE_PLATFORMS takes linux/amd64 and linux/arm64, separated by commas"


def parse(text: str) -> tuple[Platform, ...]:
    """`linux/amd64,linux/arm64` -> the platforms, native first; a mistake is one line."""
    names = [item.strip() for item in text.split(",") if item.strip()]
    chosen: list[Platform] = []
    for name in names:
        found = [p for p in ALL if name in (p.name, f"linux/{p.architecture}", p.architecture)]
        if not found:
            raise ImageError(f"unknown platform {name!r}: {USAGE}")
        if found[0] not in chosen:
            chosen.append(found[0])
    if NATIVE not in chosen:
        raise ImageError(
            f"IMAGE_PLATFORMS={text!r} leaves out {NATIVE.name}: the build runs the {NATIVE.name} "
            f"image's Python to compile and check it; {USAGE}"
        )
    return tuple(sorted(chosen, key=ALL.index))


def elf_machine(data: bytes) -> int | None:
    """e_machine of an ELF file's first bytes (None: not ELF)."""
    if len(data) < 20 or data[:4] != b"\x7fELF":
        return None
    if data[5] == 1:
        return int.from_bytes(data[18:20], "little")
    return int.from_bytes(data[18:20], "big")


def names(platforms: Sequence[Platform]) -> str:
    return ",".join(p.name for p in platforms)
