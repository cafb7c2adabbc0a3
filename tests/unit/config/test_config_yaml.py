# Tables of verbatim error messages read best one per line:
# ruff: noqa: E501
"""Malformed or unreadable config files: one line naming the file (and the YAML line)."""

from pathlib import Path

import pytest

from tests.unit.config.conftest import LoadErrors, WriteFile


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: [unclosed", "invalid YAML: line 1, column 22: expected ',' or ']'"),
        ("a: 1\n b: 2", "invalid YAML: line 2, column 3: mapping values are not allowed here"),
        ("a: 1\na: 2", "invalid YAML: line 2, column 1: duplicate field 'a'"),
        (
            "a: b\n---\nc: d",
            "invalid YAML: line 2, column 1: but found another document (expected a single document",
        ),
        (
            "a: !!python/object:os.system x",
            "invalid YAML: line 1, column 4: could not determine a constructor",
        ),
        ("a: *undefined", "found undefined alias"),
        ("a:\n\tb: 1", "line 2, column 1: found character '\\t' that cannot start any token"),
    ],
)
def test_malformed_yaml_is_one_line_with_file_and_line(
    load_errors: LoadErrors, write_file: WriteFile, text: str, message: str
) -> None:
    path = write_file(text)
    errors = load_errors(["--config", path])
    assert len(errors) == 1
    assert errors[0].startswith(f"{path}: ")
    assert message in errors[0]


def test_duplicate_fields_deeper_down(load_errors: LoadErrors, write_config: WriteFile) -> None:
    path = write_config("leaderElection:\n  resourceName: a\n  resourceName: b\n")
    assert "line 5, column 3: duplicate field 'resourceName'" in load_errors(["--config", path])[0]


def test_unreadable_config_file(load_errors: LoadErrors, tmp_path: Path) -> None:
    errors = load_errors([f"--config={tmp_path / 'missing.yaml'}"])
    assert errors == (
        f"--config: cannot read {tmp_path / 'missing.yaml'}: No such file or directory",
    )
    assert "Is a directory" in load_errors([f"--config={tmp_path}"])[0]
