"""`make image-push REGISTRY=...`, `IMAGE_PLATFORMS` and `IMAGE_PLUGIN_REQUIREMENTS`: what each
takes, each mistake one line with the fix and a non-zero exit before anything is built; the
arm64 lock files pin what the amd64 ones pin, for aarch64."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kubesched_image import foreign, oci, platforms, plugin_deps, plugins_multi, wheels
from kubesched_image.__main__ import main
from kubesched_image.assemble import apt_for, checked_locks, glibc_of, markers
from kubesched_image.build import Result, export
from kubesched_image.errors import ImageError
from kubesched_image.lockfiles import read_requirement_pins
from kubesched_image.project import Project
from kubesched_image.push import _failure, reference

PROJECT = Project.default()
EXAMPLE = PROJECT.root / "examples" / "prefer_label" / "prefer_label.py"
RUNTIME = read_requirement_pins(PROJECT.runtime_lock)
HASH = "0" * 64


def test_the_platforms_are_amd64_and_arm64_native_first() -> None:
    chosen = platforms.parse("linux/arm64, linux/amd64")
    assert [p.name for p in chosen] == ["linux/amd64", "linux/arm64/v8"]
    assert platforms.parse("amd64,linux/arm64/v8,arm64") == platforms.ALL
    assert platforms.ARM64.oci() == {"architecture": "arm64", "os": "linux", "variant": "v8"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("linux/s390x", "unknown platform 'linux/s390x': IMAGE_PLATFORMS takes"),
        ("linux/arm64", "leaves out linux/amd64: the build runs the linux/amd64 image's Python"),
    ],
)
def test_a_platform_the_build_cannot_make_is_one_line(text: str, expected: str) -> None:
    with pytest.raises(ImageError, match=re.escape(expected)) as caught:
        platforms.parse(text)
    assert "\n" not in str(caught.value)


def test_elf_machine_reads_the_header_of_this_machines_python() -> None:
    with Path(sys.executable).resolve().open("rb") as stream:
        assert platforms.elf_machine(stream.read(64)) == platforms.AMD64.elf_machine
    assert platforms.elf_machine(b"#!/bin/sh\n" + b"\0" * 30) is None


@pytest.mark.parametrize(
    ("registry", "expected"),
    [
        (
            "registry.example.com/platform/kubesched",
            "registry.example.com/platform/kubesched:0.1.0",
        ),
        ("127.0.0.1:5000/kubesched/", "127.0.0.1:5000/kubesched:0.1.0"),
        ("[::1]:5000/team/kubesched", "[::1]:5000/team/kubesched:0.1.0"),
    ],
)
def test_registry_is_a_repository_and_the_tag_is_the_version(registry: str, expected: str) -> None:
    assert reference(registry, "0.1.0") == expected


@pytest.mark.parametrize(
    ("registry", "expected"),
    [
        ("", "REGISTRY is empty: set REGISTRY to host[:port]/repository"),
        ("https://registry.example.com/k", "has a scheme: leave out https://"),
        ("registry.example.com/k:1.0", "names a tag or digest"),
        ("registry.example.com/k@sha256:" + HASH, "names a tag or digest"),
        ("registry.example.com", "is not host[:port]/repository in lower case"),
        ("registry.example.com/Kubesched", "is not host[:port]/repository in lower case"),
    ],
)
def test_a_registry_that_cannot_take_the_image_is_one_line(registry: str, expected: str) -> None:
    with pytest.raises(ImageError, match=re.escape(expected)) as caught:
        reference(registry, "0.1.0")
    assert "\n" not in str(caught.value)


def test_make_image_push_with_a_bad_registry_fails_in_one_line_before_building() -> None:
    done = subprocess.run(
        [
            "make",
            "-s",
            "image-push",
            "REGISTRY=https://registry.example.com/kubesched",
            f"BIN={Path(sys.prefix)}/bin",
            "-o",
            ".venv/.installed",  # this test's virtualenv, as it is
        ],
        cwd=PROJECT.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert done.stderr.splitlines()[0] == (
        "kubesched-image: REGISTRY=https://registry.example.com/kubesched has a scheme: leave "
        "out https://; set REGISTRY to host[:port]/repository without a tag, e.g. "
        "registry.example.com/kubesched"
    )
    assert "Traceback" not in done.stderr


def _requirements(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_plugin_requirements_keep_their_own_pins_and_drop_kubeschedss(tmp_path: Path) -> None:
    name, version = next(iter(RUNTIME.items()))
    listed = _requirements(
        tmp_path / "req.txt",
        [
            f"tabulate==0.9.0 \\\n    --hash=sha256:{HASH}",
            f"{name}=={version} --hash=sha256:{'1' * 64}",
        ],
    )
    read = plugin_deps.read(listed, runtime_lock=PROJECT.runtime_lock)
    assert read.pins == {"tabulate": "0.9.0"}  # kubesched's own pin is installed already
    assert read.lines() == f"tabulate==0.9.0 --hash=sha256:{HASH}\n"


def test_a_plugin_requirement_clashing_with_kubeschedss_pin_is_refused_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, version = "pyyaml", RUNTIME["pyyaml"]
    listed = _requirements(tmp_path / "req.txt", [f"PyYAML==5.4.1 --hash=sha256:{HASH}"])
    code = main(["build", "--plugin", str(EXAMPLE), "--plugin-requirements", str(listed)])
    err = capsys.readouterr().err
    assert code == 1
    assert err == (
        f"kubesched-image: {listed} pins {name}==5.4.1 but kubesched pins {name}=={version} "
        f"(requirements/runtime.lock): pin {name}=={version} in it (or leave it out) so both "
        "fit in the one virtualenv\n"
    )


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["tabulate==0.9.0"], "tabulate==0.9.0 has no --hash: lock it with `pip-compile"),
        (["tabulate>=0.9 --hash=sha256:" + HASH], "is not `NAME==VERSION`"),
    ],
)
def test_plugin_requirements_must_be_hash_locked(
    tmp_path: Path, lines: list[str], expected: str
) -> None:
    listed = _requirements(tmp_path / "req.txt", lines)
    with pytest.raises(ImageError, match=re.escape(expected)) as caught:
        plugin_deps.read(listed, runtime_lock=PROJECT.runtime_lock)
    assert "\n" not in str(caught.value)


def test_plugin_requirements_need_plugins_and_a_file(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file"):
        plugin_deps.read(tmp_path / "missing.txt", runtime_lock=PROJECT.runtime_lock)
    listed = _requirements(tmp_path / "req.txt", [f"tabulate==0.9.0 --hash=sha256:{HASH}"])
    assert main(["build", "--plugin-requirements", str(listed)]) == 1


def test_the_arm64_locks_pin_what_the_amd64_ones_pin_for_aarch64() -> None:
    amd64 = checked_locks(PROJECT, platforms.AMD64)
    arm64 = checked_locks(PROJECT, platforms.ARM64)
    assert {p.name for p in arm64[0]} == {p.name for p in amd64[0]}
    assert {p.architecture for p in arm64[0]} == {"arm64", "all"}
    versions = {p.name: p.version for p in amd64[0]}
    assert {p.name: p.version for p in arm64[0]}["python3.11-minimal"] == versions[
        "python3.11-minimal"
    ]
    assert glibc_of(arm64[0]) == glibc_of(amd64[0])
    assert {p.key: p.version for p in arm64[1]} == {p.key: p.version for p in amd64[1]} == RUNTIME
    native = [p.file_name for p in arm64[1] if not p.file_name.endswith("-none-any.whl")]
    assert native, "some wheels are built for a machine"
    assert all("aarch64" in name for name in native), native
    assert "--platform" in wheels.target_args((2, 36), "aarch64")
    assert "manylinux2014_aarch64" in wheels.target_args((2, 36), "aarch64")
    assert "manylinux1_aarch64" not in wheels.target_args((2, 36), "aarch64")


def test_arm64_packages_come_from_a_private_apt_index_in_the_cache() -> None:
    native, arm64 = apt_for(platforms.AMD64), apt_for(platforms.ARM64)
    assert native.argv("apt-cache", "policy", "libc6") == ["apt-cache", "policy", "libc6"]
    argv = arm64.argv("apt-get", "download", "libc6=2.36")
    assert "-oAPT::Architecture=arm64" in argv
    assert arm64.state is not None
    assert f"-oDir::State::Lists={arm64.state / 'lists'}" in argv
    assert "-oDir::State::status=/dev/null" in argv  # the machine's dpkg is never consulted


def _dist(site: Path, name: str, version: str, *requires: str) -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
    lines += [f"Requires-Dist: {requirement}\n" for requirement in requires]
    (info / "METADATA").write_text("".join(lines))


def test_a_plugin_dependency_needing_another_version_of_a_kubesched_pin_names_both(
    tmp_path: Path,
) -> None:
    ours, theirs = tmp_path / "image", tmp_path / "plugin-layer"
    _dist(ours, "PyYAML", RUNTIME["pyyaml"])
    _dist(theirs, "old_rules", "1.0", "PyYAML<6", 'colorama; sys_platform == "win32"')
    with pytest.raises(ImageError) as caught:
        wheels.check_requirements(
            [ours, theirs],
            environment=markers("3.11.2", platforms.AMD64),
            fix="pin versions in req.txt that fit kubesched's",
        )
    assert str(caught.value) == (
        "the image's Python distributions do not fit together (old_rules needs PyYAML<6, "
        f"PyYAML {RUNTIME['pyyaml']} is installed): pin versions in req.txt that fit kubesched's"
    )


REFUSED = 'Error: Get "https://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused'
UNAUTHORIZED = (
    "2026/12/06 18:47:27 pushed blob: sha256:00\n"
    "Error: PUT https://r/v2/k/blobs: UNAUTHORIZED: authentication required"
)
PLAIN_HTTP = 'Error: Get "https://r:5000/v2/": http: server gave HTTP response to HTTPS client'


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        (REFUSED, f"failed: {REFUSED.removeprefix('Error: ')}: check the registry's address"),
        (
            UNAUTHORIZED,
            "failed: PUT https://r/v2/k/blobs: UNAUTHORIZED: authentication required: log in first",
        ),
        (
            PLAIN_HTTP,
            "HTTPS client: the registry speaks plain HTTP: add IMAGE_PUSH_ARGS=--insecure",
        ),
    ],
)
def test_a_failed_push_is_crane_s_last_line_and_the_fix(stderr: str, expected: str) -> None:
    said = _failure(stderr, "r/k:0.1.0")
    assert said.startswith("crane push to r/k:0.1.0 failed: ")
    assert expected in said
    assert "\n" not in said


def _elf(machine: int) -> bytes:
    """The first bytes of a 64-bit little-endian ELF file for `machine`."""
    return b"\x7fELF\x02\x01\x01" + b"\0" * 11 + machine.to_bytes(2, "little") + b"\0" * 44


def test_an_arm64_tree_with_an_x86_64_extension_module_is_refused(tmp_path: Path) -> None:
    base, site = tmp_path / "debian", tmp_path / "site"
    arm = platforms.ARM64
    for path in (base / "lib" / arm.multiarch / arm.loader, base / "usr" / "bin" / "python3.11"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_elf(arm.elf_machine))
    (site / "yaml").mkdir(parents=True)
    (site / "yaml" / "__init__.py").write_text("# not ELF\n")
    (site / "yaml" / "_yaml.cpython-311-aarch64-linux-gnu.so").write_bytes(_elf(arm.elf_machine))
    assert foreign.check_binaries([base, site], platform=arm) == 3
    (site / "orjson.so").write_bytes(_elf(platforms.AMD64.elf_machine))
    with pytest.raises(ImageError) as caught:
        foreign.check_binaries([base, site], platform=arm)
    assert str(caught.value) == (
        "orjson.so is built for ELF machine 62, not for linux/arm64/v8: its wheel or package "
        "is the wrong one; run `make image-lock`"
    )


def test_export_leaves_no_file_of_an_earlier_build_beside_the_layout(tmp_path: Path) -> None:
    folder, out = tmp_path / "build", tmp_path / "out"
    (folder / "oci" / "blobs").mkdir(parents=True)
    for name in ("kubesched-0.1.0.tar", "kubesched-0.1.0.spdx.json"):
        (folder / name).write_text(name)
    out.mkdir()
    (out / "kubesched-0.1.0-arm64.spdx.json").write_text("the multi-arch build's")
    (out / "notes.txt").write_text("the user's")
    result = Result(
        folder=folder,
        image="kubesched:0.1.0",
        manifest_digest="sha256:" + HASH,
        inputs_digest=HASH,
        archive_name="kubesched-0.1.0.tar",
        sbom_name="kubesched-0.1.0.spdx.json",
    )
    written = export(result, out)
    assert sorted(p.name for p in out.iterdir()) == [
        "digest",
        "kubesched-0.1.0.spdx.json",
        "kubesched-0.1.0.tar",
        "notes.txt",
        "oci",
    ]
    assert [p.name for p in written] == [
        "oci",
        "kubesched-0.1.0.tar",
        "kubesched-0.1.0.spdx.json",
        "digest",
    ]


def test_a_plugin_layer_with_machine_code_is_not_put_on_another_platform(tmp_path: Path) -> None:
    pure, compiled = tmp_path / "pure", tmp_path / "compiled"
    site = "opt/kubesched/lib/python3.11/site-packages"
    (pure / site / "tabulate").mkdir(parents=True)
    (pure / site / "tabulate" / "__init__.py").write_text("x = 1\n")
    shutil.copytree(pure, compiled)
    (compiled / site / "fast.cpython-311-x86_64-linux-gnu.so").write_bytes(_elf(62))
    blobs = tmp_path / "blobs"
    layer = oci.write_layer(pure, blobs, epoch=315532800, owners={}, created_by="pure")
    plugins_multi._refuse_machine_code(blobs / layer.blob.hex)
    layer = oci.write_layer(compiled, blobs, epoch=315532800, owners={}, created_by="compiled")
    with pytest.raises(ImageError) as caught:
        plugins_multi._refuse_machine_code(blobs / layer.blob.hex)
    assert str(caught.value) == (
        f"/{site}/fast.cpython-311-x86_64-linux-gnu.so of the plugin layer is machine code: "
        "build that plugin image for linux/amd64 only (IMAGE_PLATFORMS=linux/amd64)"
    )
