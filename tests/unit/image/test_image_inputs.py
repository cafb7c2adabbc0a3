"""The image builder's inputs: lock files read strictly, each mistake one line that says the
fix; the Debian closure resolved from apt's answers; the installed distributions' requirements
checked; SBOM identifiers well formed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import pytest

from kubesched_image import debian, sbom, wheels
from kubesched_image.__main__ import main
from kubesched_image.errors import ImageError
from kubesched_image.lockfiles import (
    DebianRequest,
    read_debian_lock,
    read_debian_request,
    read_wheel_lock,
)
from kubesched_image.project import Project

HASH = "a" * 64


@pytest.mark.parametrize(
    ("reader", "text", "expected"),
    [
        (read_debian_lock, "libc6 2.36 amd64\n", "NAME VERSION ARCHITECTURE SHA256 POOL-PATH"),
        (read_debian_lock, f"libc6 2.36 amd64 {HASH[:10]} pool/x.deb\n", "SHA256 POOL-PATH"),
        (read_debian_lock, "# only a comment\n", "pins no package"),
        (read_wheel_lock, "six==1.17.0\n", "--hash=sha256:HEX  # FILE.whl"),
        (read_wheel_lock, f"six==1.17.0 --hash=sha256:{HASH}\n", "# FILE.whl"),
        (read_debian_request, "python3.11-minimal\n", "[-]PACKAGE REASON"),
        (read_debian_request, "-awk for scripts\n", "names no package"),
    ],
)
def test_a_bad_lock_line_is_one_line_naming_the_file_and_the_fix(
    tmp_path: Path, reader: Callable[[Path], object], text: str, expected: str
) -> None:
    path = tmp_path / "some.lock"
    path.write_text(text)
    with pytest.raises(ImageError) as caught:
        reader(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    assert expected in message


def test_lock_lines_are_read_back() -> None:
    pin = read_wheel_lock(Project.default().wheels_lock)[0]
    assert pin.line().startswith(f"{pin.name}=={pin.version} --hash=sha256:{pin.sha256}  # ")


def test_build_without_lock_files_says_to_write_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KUBESCHED_CACHE_DIR", str(tmp_path / "cache"))
    code = main(["build", "--out", str(tmp_path / "out")], project=Project(tmp_path))
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert err.startswith("kubesched-image: ")
    assert "run `make image-lock`" in err


def test_a_bad_source_date_epoch_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KUBESCHED_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "12")
    assert main(["build"], project=Project(tmp_path)) == 1
    assert "SOURCE_DATE_EPOCH='12' is not a Unix time from 1980 on" in capsys.readouterr().err


class FakeApt:
    """apt-cache's answers for a small archive."""

    def __init__(self, packages: dict[str, tuple[str, str]]) -> None:
        self.packages = packages  # name -> (version, Depends)

    def __call__(self, argv: Sequence[str], *, cwd: Path | None = None, missing: str) -> str:
        if argv[:2] == ["apt-cache", "policy"]:
            return "".join(
                f"{name}:\n  Installed: (none)\n  Candidate: "
                f"{self.packages.get(name, ('(none)', ''))[0]}\n"
                for name in argv[2:]
            )
        paragraphs = []
        for item in argv[3:]:
            name, version = item.split("=")
            depends = self.packages[name][1]
            paragraphs.append(
                f"Package: {name}\nVersion: {version}\nArchitecture: amd64\nDepends: {depends}\n"
                f"Filename: pool/{name}.deb\nSHA256: {HASH}\n"
            )
        return "\n".join(paragraphs)


def _resolve(
    monkeypatch: pytest.MonkeyPatch,
    packages: dict[str, tuple[str, str]],
    roots: Iterable[str],
    excluded: Iterable[str] = (),
) -> dict[str, str]:
    monkeypatch.setattr(debian, "_run", FakeApt({"base-files": ("12.4", ""), **packages}))
    request = DebianRequest(
        roots=dict.fromkeys(roots, "why"), excluded=dict.fromkeys(excluded, "why")
    )
    return {pin.name: pin.version for pin in debian.resolve(request, progress=lambda _: None)}


def test_the_closure_takes_the_first_installable_alternative_and_leaves_out_what_is_excluded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    packages = {
        "python": ("3.11-1", "libc (>= 2), media | mime, libpython (= 3.11-1)"),
        "libpython": ("3.11-1", "libc"),
        "libc": ("2.36-9", "awk"),
        "media": ("10", ""),
        "mime": ("3", ""),
    }
    closure = _resolve(monkeypatch, packages, ["python"], excluded=["awk"])
    assert closure == {"python": "3.11-1", "libpython": "3.11-1", "libc": "2.36-9", "media": "10"}


def test_a_dependency_apt_cannot_install_names_the_way_out(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        ImageError, match=r"libc depends on awk, which apt cannot install: add `-awk"
    ):
        _resolve(monkeypatch, {"libc": ("2.36-9", "awk")}, ["libc"])


def test_an_exact_version_apt_does_not_offer_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    packages = {"python": ("3.11-2", "libpython (= 3.11-2)"), "libpython": ("3.11-1", "")}
    with pytest.raises(ImageError, match=r"needs libpython \(= 3.11-2\) but apt offers 3.11-1"):
        _resolve(monkeypatch, packages, ["python"])


def test_apt_sources_of_another_release_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(debian, "_run", FakeApt({"base-files": ("13.8", "")}))
    request = DebianRequest(roots={"libc": "why"}, excluded={})
    with pytest.raises(ImageError, match=r"not Debian 12 \(bookworm\)"):
        debian.resolve(request, progress=lambda _: None)


def _dist(site: Path, name: str, version: str, *requires: str) -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = [f"Name: {name}", f"Version: {version}", *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n")


def test_requirements_are_checked_for_the_images_interpreter(tmp_path: Path) -> None:
    env = {"python_version": "3.11", "sys_platform": "linux", "python_full_version": "3.11.2"}
    _dist(tmp_path, "aiohttp", "3.14.5", "yarl>=1.17", "uvloop; sys_platform == 'win32'")
    _dist(tmp_path, "yarl", "1.25.1", "idna>=2.0", "pytest; extra == 'test'")
    _dist(tmp_path, "idna", "3.20")
    wheels.check_requirements([tmp_path], environment=env)
    _dist(tmp_path, "kubesched", "0.1.0", "aiohttp>=4", "orjson")
    with pytest.raises(ImageError) as caught:
        wheels.check_requirements([tmp_path], environment=env)
    assert "kubesched needs aiohttp>=4, aiohttp 3.14.5 is installed" in str(caught.value)
    assert "kubesched needs orjson, which is missing" in str(caught.value)


def test_wheels_are_chosen_for_cpython_311_on_the_images_glibc() -> None:
    args = wheels.target_args((2, 36))
    platforms = [args[i + 1] for i, arg in enumerate(args) if arg == "--platform"]
    assert platforms[0] == "manylinux_2_36_x86_64"
    assert platforms[-4:] == [
        "manylinux_2_17_x86_64",
        "manylinux2014_x86_64",
        "manylinux2010_x86_64",
        "manylinux1_x86_64",
    ]
    assert "manylinux_2_37_x86_64" not in platforms
    assert args[:6] == [
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        "3.11",
        "--abi",
    ]


def test_sbom_identifiers_and_purls_are_escaped() -> None:
    component = sbom.Component(
        ecosystem="deb",
        name="libstdc++6",
        version="1:1.2.13.dfsg-1+deb12u1",
        sha256=HASH,
        file_name="x.deb",
        architecture="amd64",
    )
    assert component.spdx_id == "SPDXRef-deb-libstdc--6"
    assert (
        component.purl
        == "pkg:deb/debian/libstdc++6@1%3A1.2.13.dfsg-1%2Bdeb12u1?arch=amd64&distro=debian-12"
    )
    wheel = sbom.Component(
        ecosystem="pypi", name="PyYAML", version="6.0.3", sha256=HASH, file_name="x"
    )
    assert wheel.purl == "pkg:pypi/pyyaml@6.0.3"


def test_without_apt_get_the_build_says_where_it_can_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    pin = read_debian_lock(Project.default().debian_lock)[0]
    with pytest.raises(ImageError) as caught:
        debian.fetch([pin], tmp_path / "debs", progress=lambda _: None)
    assert str(caught.value) == debian.NO_APT
    assert "\n" not in debian.NO_APT
