"""The third-party distributions plugin modules import: `make image IMAGE_PLUGINS=...
IMAGE_PLUGIN_REQUIREMENTS=req.txt`. The file is a hash-locked pip requirements file (what
`pip-compile --generate-hashes` writes: every distribution pinned with == and its --hash
lines, dependencies included); its wheels are fetched for the image's platform in pip's
hash-checking mode and installed into the image's virtualenv, in the plugin layer, beside
kubesched's own pins. A distribution kubesched pins at another version, or a requirement
kubesched's pins do not meet, is refused in one line naming both pins."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name, parse_wheel_filename

from kubesched_image import sbom, spec, wheels
from kubesched_image.assemble import markers
from kubesched_image.debian import sha256_file
from kubesched_image.errors import ImageError, Progress
from kubesched_image.foreign import package_version
from kubesched_image.lockfiles import read_requirement_hashes, read_requirement_pins
from kubesched_image.platforms import NATIVE

SITE = wheels.site_packages(spec.PREFIX)

LOCK_IT = "lock it with `pip-compile --generate-hashes` (every distribution ==, with --hash)"


@dataclass(frozen=True)
class PluginRequirements:
    """IMAGE_PLUGIN_REQUIREMENTS, checked against kubesched's pins."""

    path: Path
    pins: dict[str, str]
    """Canonical name -> version, of the distributions kubesched does not pin already."""
    hashes: dict[str, frozenset[str]]

    def lines(self) -> str:
        """The requirements to fetch, in pip's hash-checking format."""
        return "".join(
            f"{name}=={version} "
            + " ".join(f"--hash=sha256:{h}" for h in sorted(self.hashes[name]))
            + "\n"
            for name, version in sorted(self.pins.items())
        )

    def digest_text(self) -> str:
        """What changes the image (part of its cache key)."""
        return self.lines()


def read(path: Path, *, runtime_lock: Path) -> PluginRequirements:
    """The file's pins, refused in one line when one is not hash-locked or clashes with
    kubesched's (`runtime_lock`)."""
    if not path.is_file():
        raise ImageError(f"IMAGE_PLUGIN_REQUIREMENTS={path}: no such file: {LOCK_IT}")
    pins = read_requirement_pins(path)
    hashes = read_requirement_hashes(path)
    unhashed = sorted(name for name in pins if not hashes[name])
    if unhashed:
        raise ImageError(f"{path}: {unhashed[0]}=={pins[unhashed[0]]} has no --hash: {LOCK_IT}")
    ours = read_requirement_pins(runtime_lock)
    for name, version in sorted(pins.items()):
        if name in ours and ours[name] != version:
            raise ImageError(
                f"{path} pins {name}=={version} but kubesched pins {name}=={ours[name]} "
                f"({runtime_lock.parent.name}/{runtime_lock.name}): pin {name}=={ours[name]} "
                "in it (or leave it out) so both fit in the one virtualenv"
            )
    mine = {name: version for name, version in pins.items() if name not in ours}
    return PluginRequirements(path, mine, {name: hashes[name] for name in mine})


def fetch(
    requirements: PluginRequirements, cache: Path, *, glibc: tuple[int, int], progress: Progress
) -> list[tuple[Path, str]]:
    """Each wheel (the image's platform, hash-checked by pip), kept in `cache`; (file, sha256)."""
    if not requirements.pins:
        return []
    cache.mkdir(parents=True, exist_ok=True)
    progress(f"image: pip download {len(requirements.pins)} plugin dependencies")
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as scratch:
        listed = Path(scratch) / "requirements.txt"
        listed.write_text(requirements.lines())
        out = Path(scratch) / "out"
        args = ["download", "--no-deps", "--require-hashes", "-d", str(out)]
        args += [*wheels.target_args(glibc), "-r", str(listed)]
        try:
            wheels.pip(args, what=f"download the wheels of {requirements.path}")
        except ImageError as error:
            if "DO NOT MATCH THE HASHES" in error.details:
                raise ImageError(
                    f"a wheel of {requirements.path} does not match its --hash: {LOCK_IT}",
                    details=error.details,
                ) from None
            raise
        found = []
        for path in sorted(out.iterdir()):
            if path.suffix != ".whl":
                raise ImageError(
                    f"{path.name} of {requirements.path} has no wheel for the image's platform "
                    "(the image has no compiler): pin a version that has one"
                )
            name = canonicalize_name(str(parse_wheel_filename(path.name)[0]))
            if name not in requirements.pins:  # pragma: no cover - pip downloads what it is asked
                raise ImageError(f"pip downloaded {path.name}, which {requirements.path} omits")
            kept = cache / path.name
            path.replace(kept)
            found.append((kept, sha256_file(kept)))
    return found


def install(
    requirements: PluginRequirements,
    *,
    root: Path,
    stage: Path,
    cache: Path,
    progress: Progress,
) -> list[sbom.Component]:
    """Fetch and install the wheels into `stage` (the plugin layer, laid out as the root
    filesystem) for the image unpacked at `root`; check that every requirement of every
    distribution is met by kubesched's pins and these; the SBOM's components."""
    libc = re.match(r"(\d+)\.(\d+)", package_version(root, "libc6"))
    if libc is None:
        raise ImageError(f"the image at {root} has no libc6: run `make image` with --force")
    files = fetch(requirements, cache, glibc=(int(libc[1]), int(libc[2])), progress=progress)
    wheels.install([path for path, _ in files], destdir=stage, prefix=spec.PREFIX)
    python = package_version(root, "python3.11-minimal").partition("-")[0]
    sites = [root / SITE.lstrip("/"), stage / SITE.lstrip("/")]
    wheels.check_requirements(
        sites,
        environment=markers(python, NATIVE),
        fix=f"pin versions in {requirements.path} that fit kubesched's "
        "(requirements/runtime.lock), with pip-compile --generate-hashes",
    )
    components = []
    for path, sha256 in files:
        name, version, _, _ = parse_wheel_filename(path.name)
        components.append(
            sbom.Component(
                ecosystem="pypi",
                name=str(name),
                version=str(version),
                sha256=sha256,
                file_name=path.name,
            )
        )
    return components
