"""docs/writing-plugins.md's quick start, as a plugin author follows it: its plugin, test and
profile are the files of examples/prefer_label/, and its commands run as written in a folder
holding the page's own blocks (those that need a cluster are named with the end-to-end test
that runs them), so the page cannot rot."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "writing-plugins.md"
EXAMPLE = ROOT / "examples" / "prefer_label"
MAX_LINES = 170
"""The quick start stays one page; detail belongs to the reference below it."""

ELSEWHERE = {
    "kubectl create namespace custom-scheduler-ns": "tests/e2e/test_scheduling_bad_input.py",
    "PYTHONPATH=. kubesched --config=profile.yaml --plugin-module=prefer_label --secure-port=0": (
        "tests/e2e/test_scheduling_bad_input.py"
    ),
}
"""Commands that need a cluster -> the end-to-end test that runs them on the real control
plane (test_documented_example_plugin_changes_placement: the Lease's namespace, then kubesched
with the example's profile and `--plugin-module=prefer_label`)."""


def _head() -> str:
    """The page up to its reference part: the title, the introduction and the quick start."""
    text = GUIDE.read_text()
    return text[: text.index("\n# Reference\n")]


def _blocks() -> dict[str, str]:
    """The quick start's blocks by the file (or shell) they are."""
    found = re.findall(r"```(\w+)\n(.*?)```", _head(), flags=re.DOTALL)
    assert [language for language, _ in found] == ["python", "python", "yaml", "sh"]
    names = ["prefer_label.py", "test_prefer_label.py", "profile.yaml", "commands"]
    return dict(zip(names, (block for _, block in found), strict=True))


def _commands() -> list[str]:
    return [line for line in _blocks()["commands"].splitlines() if line.strip()]


def test_the_quick_start_is_one_page() -> None:
    lines = len(_head().splitlines())
    assert lines <= MAX_LINES, f"the quick start has {lines} lines: move detail to the reference"


def test_its_plugin_is_the_example_without_its_docstring() -> None:
    source = (EXAMPLE / "prefer_label.py").read_text()
    docstring = ast.parse(source).body[0]
    assert isinstance(docstring, ast.Expr)
    assert docstring.end_lineno is not None
    code = "\n".join(source.splitlines()[docstring.end_lineno :]).strip("\n") + "\n"
    assert _blocks()["prefer_label.py"] == code


@pytest.mark.parametrize("name", ["test_prefer_label.py", "profile.yaml"])
def test_its_test_and_profile_are_the_examples_without_the_leading_comment(name: str) -> None:
    first, rest = (EXAMPLE / name).read_text().split("\n", 1)
    assert first.startswith("#")
    assert _blocks()[name] == rest


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`command` by a shell in `cwd`, with this interpreter's `kubesched` and `pytest`."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        ["sh", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _author_folder(tmp_path: Path) -> Path:
    """A folder holding the page's own blocks, as an author who copied them has it."""
    for name, text in _blocks().items():
        if name != "commands":
            (tmp_path / name).write_text(text)
    return tmp_path


def test_its_commands_run_as_written(tmp_path: Path) -> None:
    folder = _author_folder(tmp_path)
    ran = []
    for command in _commands():
        if command in ELSEWHERE:
            assert (ROOT / ELSEWHERE[command]).exists()
            continue
        done = _shell(command, folder)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        ran.append(command)
    assert [command.split()[0] for command in ran] == ["pytest", "PYTHONPATH=."]
    checked = yaml.safe_load((folder / "checked.yaml").read_text())
    (profile,) = checked["profiles"]
    enabled = profile["plugins"]["multiPoint"]["enabled"]
    assert {"name": "PreferNodeLabel", "weight": 5} in enabled
    (config,) = [c for c in profile["pluginConfig"] if c["name"] == "PreferNodeLabel"]
    assert config["args"]["key"] == "node-role.example.com/batch"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("key: node-role", "kee: node-role", "PreferNodeLabel args: unknown fields ['kee']"),
        ("PreferNodeLabel", "PreferNodeLable", 'PreFilterPlugin "PreferNodeLable" does not exist'),
    ],
)
def test_its_offline_check_refuses_a_mistake_in_one_line(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    folder = _author_folder(tmp_path)
    profile = folder / "profile.yaml"
    assert old in profile.read_text()
    profile.write_text(profile.read_text().replace(old, new))
    (check,) = [command for command in _commands() if "--write-config-to" in command]
    done = _shell(check, folder)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert expected in done.stderr
