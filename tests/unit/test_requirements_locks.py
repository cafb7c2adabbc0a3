"""requirements/runtime.lock and dev.lock, as `make lock` writes them (pip-compile
--generate-hashes): every requirement pinned exactly with the sha256 of its files, both pinning
the shared distributions alike, installed in hash-checking mode by `make venv` and the
Dockerfile; the image's wheels among the files runtime.lock allows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesched_image.lockfiles import (
    read_requirement_hashes,
    read_requirement_pins,
    read_wheel_lock,
)
from kubesched_image.project import Project

ROOT = Project.default().root
LOCKS = ("runtime.lock", "dev.lock")


@pytest.mark.parametrize("name", LOCKS)
def test_every_requirement_is_pinned_with_the_sha256_of_its_files(name: str) -> None:
    path = ROOT / "requirements" / name
    hashes = read_requirement_hashes(path)
    assert hashes, f"{name} pins nothing"
    assert [key for key, files in hashes.items() if not files] == []
    text = path.read_text()
    assert not re.search(r"^-e ", text, flags=re.MULTILINE), "an editable cannot be hashed"
    assert "make lock" in text.splitlines()[4], "the header names the command that wrote it"


def test_the_two_locks_pin_the_shared_distributions_alike() -> None:
    runtime = read_requirement_pins(ROOT / "requirements" / "runtime.lock")
    dev = read_requirement_pins(ROOT / "requirements" / "dev.lock")
    assert {key: dev.get(key) for key in runtime} == runtime


def test_the_images_wheels_are_files_runtime_lock_allows() -> None:
    project = Project.default()
    allowed = read_requirement_hashes(project.runtime_lock)
    for pin in read_wheel_lock(project.wheels_lock):
        assert pin.sha256 in allowed[pin.key], pin.file_name


def test_make_venv_and_the_dockerfile_install_in_hash_checking_mode() -> None:
    makefile = (ROOT / "Makefile").read_text()
    stamp = makefile.split("$(STAMP): ", 1)[1].split("\n\n", 1)[0]
    assert "--require-hashes -r requirements/dev.lock" in stamp
    assert "--no-deps -e ." in stamp
    dockerfile = re.sub(r"\\\n\s*", "", (ROOT / "Dockerfile").read_text())
    assert "--require-hashes -r requirements/runtime.lock" in dockerfile
    assert "pip-compile" in makefile.split("\nlock:", 1)[0].rsplit("\n\n", 1)[1]


def test_a_pip_compile_requirement_is_read_across_its_continuation_lines(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    lock.write_text(
        "# header\n"
        'uvloop==0.23.0 ; sys_platform != "win32" \\\n'
        f"    --hash=sha256:{'a' * 64} \\\n"
        f"    --hash=sha256:{'b' * 64}\n"
        "    # via kubesched (pyproject.toml)\n"
        "Six==1.17.0\n"
    )
    assert read_requirement_pins(lock) == {"uvloop": "0.23.0", "six": "1.17.0"}
    assert read_requirement_hashes(lock) == {
        "uvloop": frozenset({"a" * 64, "b" * 64}),
        "six": frozenset(),
    }
