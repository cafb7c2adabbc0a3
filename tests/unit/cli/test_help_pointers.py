"""Every "unknown flag" points at a help text that lists the flags (`kubesched --help` lists
the commands only), and that help really lists them."""

from __future__ import annotations

import re

import pytest

from kubesched.cli import main as kubesched


def _help_command(text: str) -> list[str]:
    """The command a message points at (`kubesched ... --help`), as argv without `kubesched`."""
    found = re.search(r"`kubesched ([^`]*--help)`", text)
    assert found is not None, text
    return found[1].split()


@pytest.mark.parametrize(
    ("argv", "flag_listed"),
    [
        (["--leader-elect-lease-duraton=5s"], "--leader-elect-lease-duration"),
        (["run", "--zzz"], "--leader-elect-resource-name"),
        (["manifests", "--zzz"], "--leader-elect-resource-name"),
        (["manifests", "--namspace=x"], "--namespace"),
        (["doctor", "--zzz"], "--leader-elect-resource-name"),
    ],
)
def test_an_unknown_flag_points_at_a_help_that_lists_the_flags(
    capsys: pytest.CaptureFixture[str], argv: list[str], flag_listed: str
) -> None:
    assert kubesched(argv) != 0
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = [line for line in err.splitlines() if "unknown flag" in line]
    assert kubesched(_help_command(line)) == 0
    out, _ = capsys.readouterr()
    assert flag_listed in out


def test_the_commands_help_says_where_the_flags_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert kubesched(["--help"]) == 0
    out, _ = capsys.readouterr()
    assert "`kubesched run --help` lists its flags" in out
    assert kubesched(_help_command(out)) == 0
    assert "--leader-elect" in capsys.readouterr().out
