"""Python wheels: pin and fetch the runtime wheels for the image's platform (pip), build
kubesched's wheel with the pinned build backend, install wheels into the image's virtualenv
(`installer`), and check every installed distribution's requirements (`pip check`'s job)."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from installer import install as install_wheel
from installer.destinations import SchemeDictionaryDestination
from installer.sources import WheelFile
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from kubesched_image.debian import sha256_file
from kubesched_image.errors import ImageError, Progress, tail
from kubesched_image.lockfiles import WheelPin
from kubesched_image.project import Project

PYTHON = "3.11"
ARCH = "x86_64"
"""The native platform's machine (platforms.NATIVE.machine); target_args takes another."""
INSTALLER_NAME = b"kubesched-image\n"


def target_args(glibc: tuple[int, int], machine: str = ARCH) -> list[str]:
    """pip's options selecting wheels for CPython 3.11 on glibc `glibc` (Debian's libc6) and
    `machine` (x86_64, aarch64), most specific platform first, as `packaging.tags` orders
    them for that interpreter (manylinux2010 and manylinux1 never had aarch64)."""
    major, minor = glibc
    platforms = [f"manylinux_{major}_{m}_{machine}" for m in range(minor, 16, -1)]
    platforms += [f"manylinux2014_{machine}"]
    if machine == ARCH:
        platforms += [f"manylinux2010_{machine}", f"manylinux1_{machine}"]
    args = ["--only-binary=:all:", "--implementation", "cp", "--python-version", PYTHON]
    args += ["--abi", "cp" + PYTHON.replace(".", "")]
    for platform in platforms:
        args += ["--platform", platform]
    return args


def pip(args: Sequence[str], *, python: str = sys.executable, what: str) -> str:
    argv = [python, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ImageError(
            f"pip could not {what}: check the network and the package index (pip's config), "
            "then run it again",
            details=tail(done.stderr or done.stdout),
        )
    return done.stdout


# -- lock ----------------------------------------------------------------------------------
def lock(requirements: Path, *, extra_args: Sequence[str], progress: Progress) -> list[WheelPin]:
    """Download the wheels pip picks for `requirements` (pinned with ==) and pin their files."""
    progress(f"image: pip download for {requirements.name}")
    with tempfile.TemporaryDirectory(prefix="kubesched-image-lock-") as scratch:
        args = ["download", "--no-deps", "-d", scratch, *extra_args, "-r", str(requirements)]
        pip(args, what=f"download the wheels of {requirements}")
        pins = []
        for path in sorted(Path(scratch).iterdir()):
            if path.suffix != ".whl":
                raise ImageError(
                    f"{path.name} has no wheel for the image's platform: pin a version of it "
                    f"that has one in {requirements}"
                )
            name, version, _, _ = parse_wheel_filename(path.name)
            pins.append(WheelPin(str(name), str(version), path.name, sha256_file(path)))
    return pins


def build_requirements(project: Project) -> list[str]:
    """pyproject.toml's [build-system] requires: what builds kubesched's wheel."""
    data = tomllib.loads((project.root / "pyproject.toml").read_text())
    return [str(item) for item in data.get("build-system", {}).get("requires", [])]


# -- fetch ---------------------------------------------------------------------------------
def fetch(
    pins: Sequence[WheelPin], cache: Path, *, extra_args: Sequence[str], progress: Progress
) -> dict[str, Path]:
    """The file of every pin, from the cache or `pip download` (hash-checked)."""
    cache.mkdir(parents=True, exist_ok=True)
    files = {pin.key: cache / pin.file_name for pin in pins}
    missing = [
        pin
        for pin in pins
        if not files[pin.key].is_file() or sha256_file(files[pin.key]) != pin.sha256
    ]
    if not missing:
        return files
    progress(f"image: pip download {len(missing)} wheels")
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as scratch:
        requirements = Path(scratch) / "requirements.txt"
        requirements.write_text("".join(pin.line() + "\n" for pin in missing))
        out = Path(scratch) / "out"
        args = ["download", "--no-deps", "--require-hashes", "-d", str(out), *extra_args]
        pip([*args, "-r", str(requirements)], what=f"download {len(missing)} locked wheels")
        for pin in missing:
            got = out / pin.file_name
            if not got.is_file() or sha256_file(got) != pin.sha256:
                raise ImageError(
                    f"pip did not give the locked {pin.file_name}: run `make image-lock` if "
                    f"{pin.name} {pin.version} changed on the index, then `make image`"
                )
            got.replace(files[pin.key])
    return files


# -- build kubesched's wheel ------------------------------------------------------------------
def build_env(wheels: Iterable[Path], folder: Path, *, progress: Progress) -> Path:
    """A virtualenv holding exactly the pinned build backend; its python."""
    python = folder / "bin" / "python"
    ready = folder / ".ready"
    if ready.is_file():
        return python
    progress("image: a virtualenv with the pinned build backend")
    shutil.rmtree(folder, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-m", "venv", str(folder)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise ImageError(
            f"cannot create a virtualenv in {folder}: install python3-venv",
            details=tail(done.stderr),
        )
    args = ["install", "--no-deps", "--no-index", *map(str, wheels)]
    pip(args, python=str(python), what="install the build backend")
    ready.touch()
    return python


def build_project(project: Project, *, python: Path, out: Path, epoch: int) -> Path:
    """kubesched's wheel, built from a copy of the files `docker build` receives."""
    with tempfile.TemporaryDirectory(prefix="kubesched-image-src-") as scratch:
        source = Path(scratch) / "src"
        for path in project.context_files():
            target = source / path.relative_to(project.root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        out.mkdir(parents=True, exist_ok=True)
        argv = [str(python), "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        argv += ["--no-index", "--disable-pip-version-check", "-w", str(out), str(source)]
        env = {"PATH": "/usr/bin:/bin", "SOURCE_DATE_EPOCH": str(epoch), "HOME": scratch}
        done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
        if done.returncode != 0:
            raise ImageError(
                "building kubesched's wheel failed: fix pyproject.toml (see below)",
                details=tail(done.stderr or done.stdout),
            )
    wheels = sorted(out.glob("*.whl"))
    if len(wheels) != 1:
        raise ImageError(f"building kubesched's wheel left {len(wheels)} wheels in {out}")
    return wheels[0]


# -- install -------------------------------------------------------------------------------
def site_packages(prefix: str) -> str:
    return f"{prefix}/lib/python{PYTHON}/site-packages"


def install(wheels: Iterable[Path], *, destdir: Path, prefix: str) -> None:
    """Install each wheel into the virtualenv `prefix` as seen inside the image, writing under
    `destdir`; console scripts start with `#!{prefix}/bin/python`."""
    for wheel in wheels:
        name = str(parse_wheel_filename(wheel.name)[0])
        scheme = {
            "purelib": site_packages(prefix),
            "platlib": site_packages(prefix),
            "scripts": f"{prefix}/bin",
            "data": prefix,
            "headers": f"{prefix}/include/site/python{PYTHON}/{name}",
        }
        destination = SchemeDictionaryDestination(
            scheme_dict=scheme,
            interpreter=f"{prefix}/bin/python",
            script_kind="posix",
            destdir=str(destdir),
        )
        with WheelFile.open(wheel) as source:
            install_wheel(source, destination, {"INSTALLER": INSTALLER_NAME})


def distributions(site: Path) -> dict[str, tuple[str, str, list[str]]]:
    """The distributions installed in `site`: canonical name -> (name, version, requires)."""
    found: dict[str, tuple[str, str, list[str]]] = {}
    for metadata in sorted(site.glob("*.dist-info/METADATA")):
        message = email.parser.Parser().parsestr(metadata.read_text(encoding="utf-8"))
        name, version = message["Name"], message["Version"]
        found[canonicalize_name(name)] = (name, version, message.get_all("Requires-Dist") or [])
    return found


def check_requirements(
    sites: Iterable[Path],
    *,
    environment: Mapping[str, str],
    fix: str = "fix requirements/runtime.lock, then `make image-lock`",
) -> None:
    """Every Requires-Dist of every installed distribution that applies in `environment` is
    installed at an allowed version (what `pip check` checks in the Dockerfile)."""
    installed: dict[str, tuple[str, str, list[str]]] = {}
    for site in sites:
        installed.update(distributions(site))
    problems = []
    for name, _, requires in installed.values():
        for raw in requires:
            problems.extend(_unmet(name, raw, installed, environment))
    if problems:
        raise ImageError(
            f"the image's Python distributions do not fit together ({'; '.join(problems)}): {fix}"
        )


def _unmet(
    owner: str,
    raw: str,
    installed: Mapping[str, tuple[str, str, list[str]]],
    env: Mapping[str, str],
) -> list[str]:
    try:
        requirement = Requirement(raw)
    except InvalidRequirement:
        return [f"{owner} has an unreadable requirement {raw!r}"]
    if requirement.marker is not None and not requirement.marker.evaluate({**env, "extra": ""}):
        return []
    have = installed.get(canonicalize_name(requirement.name))
    if have is None:
        return [f"{owner} needs {requirement}, which is missing"]
    if not requirement.specifier.contains(have[1], prereleases=True):
        return [f"{owner} needs {requirement}, {have[0]} {have[1]} is installed"]
    return []
