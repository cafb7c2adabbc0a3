"""Debian packages: resolve the closure of image-debian.in with apt's index (`lock`), fetch the
pinned .debs with `apt-get download` into the cache, unpack them with `dpkg-deb -x`.

The native platform's packages come from the machine's own apt index. Another architecture's
(arm64) come from a private index of the same apt sources for that architecture, kept in the
cache (`Apt.foreign`): the machine's dpkg configuration is never changed (no
`dpkg --add-architecture`)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kubesched_image.errors import ImageError, Progress, tail
from kubesched_image.lockfiles import DebianRequest, DebPin

SUITE_MAJOR = "12"  # Debian 12, bookworm: base-files' version starts with it
_DEPENDS_FIELDS = ("Pre-Depends", "Depends")
_RELATION = re.compile(
    r"(?P<name>[a-z0-9][a-z0-9+.-]+)(?::\S+)?\s*(?:\((?P<op>[<>=]+)\s*(?P<v>[^)]+)\))?"
)
NO_APT = (
    "apt-get not found: the image's Debian packages are fetched with `apt-get download` on a "
    "Debian 12 (bookworm) host; build there, or with `docker build` (docs/deploying.md)"
)
NO_DPKG = (
    "dpkg-deb not found: the image's Debian packages are unpacked with `dpkg-deb -x`; build on a "
    "Debian 12 (bookworm) host, or with `docker build` (docs/deploying.md)"
)


@dataclass(frozen=True)
class Apt:
    """How apt is asked: the machine's own index (no options), or a private index of another
    architecture under `state` (the same sources.list, kept in the cache)."""

    options: tuple[str, ...] = ()
    state: Path | None = None

    @classmethod
    def foreign(cls, architecture: str, state: Path) -> Apt:
        options = (
            f"-oAPT::Architecture={architecture}",
            f"-oAPT::Architectures::={architecture}",
            f"-oDir::State::Lists={state / 'lists'}",
            f"-oDir::Cache={state / 'cache'}",
            "-oDir::State::status=/dev/null",
            "-oDebug::NoLocking=1",
        )
        return cls(options, state)

    def update(self, *, progress: Progress, always: bool) -> None:
        """`apt-get update` of the private index (when `always`, or when it has none yet)."""
        if self.state is None:
            return
        lists = self.state / "lists"
        if not always and any(lists.glob("*_Packages*")):
            return
        for folder in (lists / "partial", self.state / "cache" / "archives" / "partial"):
            folder.mkdir(parents=True, exist_ok=True)
        progress(f"image: apt-get update of the private index in {self.state}")
        _run(["apt-get", *self.options, *_sandbox(), "-q", "update"], missing=NO_APT)

    def argv(self, tool: str, *args: str) -> list[str]:
        return [tool, *self.options, *args]


NATIVE_APT = Apt()


def _sandbox() -> list[str]:
    """apt's _apt sandbox user cannot write a root-owned folder."""
    return ["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else []


def _run(argv: Sequence[str], *, cwd: Path | None = None, missing: str) -> str:
    """Run a tool; its stdout. Raise with `missing` when it is not installed."""
    if shutil.which(argv[0]) is None:
        raise ImageError(missing)
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ImageError(
            f"`{' '.join(argv[:3])} ...` failed (exit {done.returncode})",
            details=tail(done.stderr or done.stdout),
        )
    return done.stdout


# -- lock: the dependency closure --------------------------------------------------------
class _Apt:
    """apt's index, asked in batches (one apt-cache run per step of the walk)."""

    def __init__(self, apt: Apt) -> None:
        self.apt = apt
        self.candidates: dict[str, str | None] = {}

    def learn(self, names: Iterable[str]) -> None:
        """Record the candidate version (None: none, e.g. a virtual package) of each name."""
        unknown = sorted(set(names) - self.candidates.keys())
        if not unknown:
            return
        out = _run(self.apt.argv("apt-cache", "policy", *unknown), missing=NO_APT)
        for block in re.split(r"^(?=\S)", out, flags=re.MULTILINE):
            name, _, rest = block.partition(":")
            match = re.search(r"^\s*Candidate:\s*(\S+)", rest, re.MULTILINE)
            if match:
                self.candidates[name.strip()] = None if match[1] == "(none)" else match[1]
        for name in unknown:
            self.candidates.setdefault(name, None)

    def stanzas(self, pins: dict[str, str]) -> dict[str, dict[str, str]]:
        """The index paragraph of each `name: version`."""
        versions = (f"{n}={v}" for n, v in sorted(pins.items()))
        argv = self.apt.argv("apt-cache", "show", "--no-all-versions", *versions)
        found: dict[str, dict[str, str]] = {}
        for paragraph in _run(argv, missing=NO_APT).split("\n\n"):
            fields = _fields(paragraph)
            name = fields.get("Package", "")
            if pins.get(name) == fields.get("Version") and name not in found:
                found[name] = fields
        return found


def _fields(paragraph: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    key = ""
    for line in paragraph.splitlines():
        if line[:1].isspace() and key:
            fields[key] += "\n" + line
        elif ":" in line:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def _alternatives(fields: dict[str, str]) -> Iterable[list[tuple[str, str, str]]]:
    """Each dependency of a package: its alternatives as (name, operator, version)."""
    for field in _DEPENDS_FIELDS:
        for group in filter(None, (g.strip() for g in fields.get(field, "").split(","))):
            options = []
            for option in group.split("|"):
                match = _RELATION.match(option.strip())
                if match:
                    options.append((match["name"], match["op"] or "", (match["v"] or "").strip()))
            yield options


def resolve(
    request: DebianRequest, *, progress: Progress, source: Apt = NATIVE_APT
) -> list[DebPin]:
    """The packages of `request.roots` and everything they Depend or Pre-Depend on (the first
    installable alternative), less `request.excluded`, at apt's candidate versions."""
    source.update(progress=progress, always=True)
    apt = _Apt(source)
    apt.learn(["base-files", *request.roots])
    base = apt.candidates["base-files"]
    if base is None or not base.startswith(f"{SUITE_MAJOR}."):
        raise ImageError(
            f"apt's sources are not Debian {SUITE_MAJOR} (bookworm) (base-files {base}): lock on "
            "a bookworm host, after `apt-get update`"
        )
    chosen: dict[str, DebPin] = {}
    level = list(request.roots)
    while level:
        versions = {}
        for name in level:
            version = apt.candidates[name]
            if version is None:
                raise ImageError(
                    f"Debian package {name} is not in apt's sources: run `apt-get update`"
                )
            versions[name] = version
        stanzas = apt.stanzas(versions)
        dependencies: list[tuple[str, list[tuple[str, str, str]]]] = []
        for name, version in versions.items():
            fields = stanzas.get(name)
            if fields is None:
                raise ImageError(
                    f"apt-cache show {name}={version} says nothing: run `apt-get update`"
                )
            chosen[name] = DebPin(
                name=name,
                version=version,
                architecture=fields.get("Architecture", ""),
                sha256=fields.get("SHA256", ""),
                filename=fields.get("Filename", ""),
            )
            dependencies.extend((name, options) for options in _alternatives(fields))
        apt.learn(option for _, options in dependencies for option, _, _ in options)
        level = []
        for owner, options in dependencies:
            for name in _pick(owner, options, request, chosen, apt):
                if name not in level:
                    level.append(name)
    progress(f"image: {len(chosen)} Debian packages in the closure of {len(request.roots)}")
    return list(chosen.values())


def _pick(
    owner: str,
    options: list[tuple[str, str, str]],
    request: DebianRequest,
    chosen: dict[str, DebPin],
    apt: _Apt,
) -> list[str]:
    names = [name for name, _, _ in options]
    if any(name in chosen for name in names) or any(name in request.excluded for name in names):
        return []
    for name, op, version in options:
        candidate = apt.candidates.get(name)
        if candidate is None:
            continue  # a virtual package: the next alternative, or exclude it
        if op == "=" and candidate != version:
            raise ImageError(
                f"{owner} needs {name} (= {version}) but apt offers {candidate}: run "
                "`apt-get update` and lock again"
            )
        return [name]
    raise ImageError(
        f"{owner} depends on {' | '.join(names)}, which apt cannot install: add `-{names[0]} "
        "REASON` to requirements/image-debian.in if the image can do without it"
    )


# -- build: download and unpack ----------------------------------------------------------
def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(
    pins: Sequence[DebPin], cache: Path, *, progress: Progress, source: Apt = NATIVE_APT
) -> dict[str, Path]:
    """The .deb of every pin, from the cache or `apt-get download`, checked against its sha256."""
    cache.mkdir(parents=True, exist_ok=True)
    files = {pin.name: cache / pin.file_name for pin in pins}
    missing = [pin for pin in pins if not _valid(files[pin.name], pin)]
    if missing:
        progress(f"image: apt-get download {len(missing)} Debian packages")
        source.update(progress=progress, always=False)
        _download(missing, cache, source)
    return files


def _valid(path: Path, pin: DebPin) -> bool:
    return path.is_file() and sha256_file(path) == pin.sha256


def _download(pins: Sequence[DebPin], cache: Path, source: Apt) -> None:
    if shutil.which("apt-get") is None:
        raise ImageError(NO_APT)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as scratch:
        argv = source.argv("apt-get", "download", "-q", *_sandbox())
        argv += [f"{pin.name}={pin.version}" for pin in pins]
        try:
            _run(argv, cwd=Path(scratch), missing=NO_APT)
        except ImageError as error:
            raise _download_error(error, pins) from None
        by_hash = {sha256_file(path): path for path in Path(scratch).glob("*.deb")}
        for pin in pins:
            got = by_hash.get(pin.sha256)
            if got is None:
                raise ImageError(
                    f"apt-get download gave a {pin.name} {pin.version} whose sha256 is not the "
                    "locked one: run `make image-lock` if Debian rebuilt it, then `make image`"
                )
            got.replace(cache / pin.file_name)


def _download_error(error: ImageError, pins: Sequence[DebPin]) -> ImageError:
    gone = re.search(r"Version '([^']+)' for '([^']+)' was not found", error.details)
    if gone:
        return ImageError(
            f"Debian package {gone[2]} {gone[1]} is no longer in apt's sources (a newer one "
            "replaced it): run `make image-lock` to pin the current versions, then `make image`",
            details=error.details,
        )
    return ImageError(
        f"apt-get download of {len(pins)} Debian packages failed: run `apt-get update` (and "
        "check the network), then `make image`",
        details=error.details,
    )


def unpack(debs: Iterable[Path], into: Path) -> None:
    """`dpkg-deb -x` each package into `into` (files only: no maintainer script runs)."""
    into.mkdir(parents=True, exist_ok=True)
    for deb in debs:
        _run(["dpkg-deb", "-x", str(deb), str(into)], missing=NO_DPKG)


def control(deb: Path) -> str:
    """The package's control paragraph (`dpkg-deb -f`), for /var/lib/dpkg/status."""
    return _run(["dpkg-deb", "-f", str(deb)], missing=NO_DPKG).strip()
