"""The image's lock files: what they hold and their line formats.

requirements/image-debian.in, one package a line with the reason it is there; a leading `-`
leaves a package (or a virtual one) out of the dependency closure:

    python3.11-minimal     the interpreter
    -awk                   base-files' Pre-Depends, for its maintainer scripts only

requirements/image-debian.lock, written by `make image-lock`:

    NAME VERSION ARCHITECTURE SHA256 POOL-PATH

requirements/image-wheels.lock and image-build.lock, pip's hash-checking format with the
wheel's file name as a comment:

    NAME==VERSION --hash=sha256:HEX  # FILE.whl
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from packaging.utils import canonicalize_name

from kubesched_image.errors import ImageError

RELOCK = "run `make image-lock` to rewrite it"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_WHEEL_LINE = re.compile(
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)\s+--hash=sha256:(?P<sha256>[0-9a-f]{64})"
    r"\s+#\s*(?P<file>\S+\.whl)"
)
_PIN_LINE = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;#]+)")
_HASH_OPTION = re.compile(r"--hash=sha256:([0-9a-f]{64})")
_DEB_NAME = re.compile(r"[a-z0-9][a-z0-9+.-]+")


@dataclass(frozen=True)
class DebPin:
    """One Debian package at one version, as its archive's index describes it."""

    name: str
    version: str
    architecture: str
    sha256: str
    filename: str
    """Its path in the archive (`pool/main/g/glibc/libc6_..._amd64.deb`)."""

    @property
    def file_name(self) -> str:
        return PurePosixPath(self.filename).name

    def line(self) -> str:
        return f"{self.name} {self.version} {self.architecture} {self.sha256} {self.filename}"


@dataclass(frozen=True)
class WheelPin:
    """One wheel: a distribution at one version, one file, its sha256."""

    name: str
    version: str
    file_name: str
    sha256: str

    @property
    def key(self) -> str:
        return canonicalize_name(self.name)

    def line(self) -> str:
        return f"{self.name}=={self.version} --hash=sha256:{self.sha256}  # {self.file_name}"


@dataclass(frozen=True)
class DebianRequest:
    """image-debian.in: the packages asked for and those left out, each with its reason."""

    roots: dict[str, str]
    excluded: dict[str, str]


def _lines(path: Path) -> Iterable[tuple[int, str]]:
    try:
        text = path.read_text()
    except OSError as error:
        raise ImageError(f"cannot read {path}: {error.strerror}: {RELOCK}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            yield number, line


def _bad(path: Path, number: int, line: str, expected: str, fix: str = RELOCK) -> ImageError:
    return ImageError(f"{path}:{number}: {line!r} is not `{expected}`: {fix}")


def read_debian_request(path: Path) -> DebianRequest:
    roots: dict[str, str] = {}
    excluded: dict[str, str] = {}
    for number, line in _lines(path):
        name, _, reason = line.partition(" ")
        target = excluded if name.startswith("-") else roots
        name = name.removeprefix("-")
        if not _DEB_NAME.fullmatch(name) or not reason.strip():
            fix = "name one Debian package a line, then why it is there"
            raise _bad(path, number, line, "[-]PACKAGE REASON", fix)
        target[name] = reason.strip()
    if not roots:
        raise ImageError(f"{path} names no package: add python3.11-minimal")
    return DebianRequest(roots=roots, excluded=excluded)


def read_debian_lock(path: Path) -> tuple[DebPin, ...]:
    pins: list[DebPin] = []
    for number, line in _lines(path):
        fields = line.split()
        if len(fields) != 5 or not _HEX64.fullmatch(fields[3]) or not fields[4].endswith(".deb"):
            raise _bad(path, number, line, "NAME VERSION ARCHITECTURE SHA256 POOL-PATH")
        pins.append(DebPin(*fields))
    if not pins:
        raise ImageError(f"{path} pins no package: {RELOCK}")
    return tuple(pins)


def write_debian_lock(path: Path, pins: Iterable[DebPin], *, header: str) -> None:
    body = "\n".join(pin.line() for pin in sorted(pins, key=lambda pin: pin.name))
    path.write_text(f"{header}{body}\n")


def read_wheel_lock(path: Path) -> tuple[WheelPin, ...]:
    pins: list[WheelPin] = []
    for number, line in _lines(path):
        match = _WHEEL_LINE.fullmatch(line)
        if match is None:
            raise _bad(path, number, line, "NAME==VERSION --hash=sha256:HEX  # FILE.whl")
        pins.append(WheelPin(match["name"], match["version"], match["file"], match["sha256"]))
    if not pins:
        raise ImageError(f"{path} pins no wheel: {RELOCK}")
    return tuple(pins)


def write_wheel_lock(path: Path, pins: Iterable[WheelPin], *, header: str) -> None:
    body = "\n".join(pin.line() for pin in sorted(pins, key=lambda pin: pin.key))
    path.write_text(f"{header}{body}\n")


def read_requirement_pins(path: Path) -> dict[str, str]:
    """`name==version` requirements of a pip lock (runtime.lock, as pip-compile writes it: a
    marker and `--hash` options may follow, on continuation lines): canonical name -> version."""
    pins: dict[str, str] = {}
    for number, line in _requirements(path):
        match = _PIN_LINE.match(line)
        if match is None:
            fix = "pin every distribution exactly (`make lock`)"
            raise _bad(path, number, line, "NAME==VERSION", fix)
        pins[canonicalize_name(match["name"])] = match["version"]
    return pins


def read_requirement_hashes(path: Path) -> dict[str, frozenset[str]]:
    """The `--hash=sha256:HEX` options of each requirement of a pip lock: canonical name ->
    the sha256 of every file it allows (empty without hashes)."""
    read_requirement_pins(path)  # the same lines, checked
    hashes: dict[str, frozenset[str]] = {}
    for _, line in _requirements(path):
        match = _PIN_LINE.match(line)
        assert match is not None
        hashes[canonicalize_name(match["name"])] = frozenset(_HASH_OPTION.findall(line))
    return hashes


def _requirements(path: Path) -> Iterable[tuple[int, str]]:
    """The requirements of a pip requirements file, each with the number of its first line:
    lines ending in a backslash joined to the next, comments dropped."""
    pending: list[str] = []
    start = 0
    for number, line in _lines(path):
        start = start or number
        pending.append(line.removesuffix("\\").strip())
        if not line.endswith("\\"):
            yield start, " ".join(pending)
            pending, start = [], 0
    if pending:
        yield start, " ".join(pending)
