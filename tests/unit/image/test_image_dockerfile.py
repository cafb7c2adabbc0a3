"""The Dockerfile and `make image` (tools/kubesched_image) build the same image: the same
entrypoint, user, ports, environment, labels, Python minor version, virtualenv and lock file,
from the same files of the repository."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from kubesched_image import spec, wheels
from kubesched_image.lockfiles import read_debian_lock, read_requirement_pins, read_wheel_lock
from kubesched_image.project import CONTEXT_DIRS, CONTEXT_FILES, Project

PROJECT = Project.default()


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = (PROJECT.root / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    found = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def _final_stage() -> list[tuple[str, str]]:
    steps = _instructions()
    last_from = max(i for i, (keyword, _) in enumerate(steps) if keyword == "FROM")
    return steps[last_from:]


def _one(keyword: str) -> str:
    (value,) = [rest for k, rest in _final_stage() if k == keyword]
    return value


def _pairs(keyword: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for k, rest in _final_stage():
        if k == keyword:
            for item in shlex.split(rest):
                key, value = item.split("=", 1)
                pairs[key] = value
    return pairs


def test_the_same_entrypoint_user_and_port() -> None:
    assert json.loads(_one("ENTRYPOINT")) == list(spec.ENTRYPOINT)
    assert _one("USER") == spec.USER
    assert [f"{port}/tcp" for port in _one("EXPOSE").split()] == list(spec.EXPOSED_PORTS)


def test_the_same_environment() -> None:
    ours = dict(item.split("=", 1) for item in spec.ENV)
    theirs = _pairs("ENV")
    assert theirs.pop("PATH") == f"{spec.PREFIX}/bin:$PATH"
    assert ours.pop("PATH").startswith(f"{spec.PREFIX}/bin:")
    assert theirs == ours


def test_the_same_labels() -> None:
    assert _pairs("LABEL") == spec.LABELS


def test_the_same_python_minor_version() -> None:
    (argument,) = [rest for k, rest in _instructions() if k == "ARG" and "PYTHON_IMAGE" in rest]
    base = argument.split("=", 1)[1]
    found = re.fullmatch(r"python:(\d+\.\d+)-slim", base)
    assert found is not None, base
    assert found[1] == wheels.PYTHON
    debs = {pin.name: pin.version for pin in read_debian_lock(PROJECT.debian_lock)}
    assert debs["python3.11-minimal"].startswith(wheels.PYTHON + ".")
    assert f"/usr/bin/python{wheels.PYTHON}" == spec.PYTHON


def test_the_same_virtualenv_and_lock_file() -> None:
    runs = " ".join(rest for k, rest in _instructions() if k == "RUN")
    assert f"python -m venv --without-pip {spec.PREFIX}" in runs
    assert f"pip --python {spec.PREFIX}/bin/python install --only-binary=:all: --no-deps" in runs
    assert "-r requirements/runtime.lock" in runs
    runtime = read_requirement_pins(PROJECT.runtime_lock)
    assert {pin.key: pin.version for pin in read_wheel_lock(PROJECT.wheels_lock)} == runtime


def test_the_same_files_of_the_repository() -> None:
    """.dockerignore lets through exactly what kubesched's wheel is built from here."""
    allowed = [
        line.removeprefix("!").rstrip("/")
        for line in (PROJECT.root / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    ]
    assert sorted(allowed) == sorted([*CONTEXT_FILES, *CONTEXT_DIRS])


@pytest.mark.parametrize("name", ["image-debian.lock", "image-wheels.lock", "image-build.lock"])
def test_the_lock_files_are_committed_and_readable(name: str) -> None:
    path = PROJECT.root / "requirements" / name
    reader = read_debian_lock if name == "image-debian.lock" else read_wheel_lock
    assert reader(path)
