"""`kubesched manifests --helm-chart DIR` writes into a missing or empty folder, rewrites a
chart it wrote, and refuses, in one line and without touching anything, a folder whose files
it would change (unless `--overwrite`) or a path it cannot write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kubesched.cli import main as kubesched

PROG = "kubesched manifests"


def refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert kubesched(["manifests", *argv]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith(f"{PROG}: ")
    return line.removeprefix(f"{PROG}: ")


def test_an_edited_values_file_is_not_replaced_without_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chart = tmp_path / "chart"
    assert kubesched(["manifests", f"--helm-chart={chart}"]) == 0
    first = capsys.readouterr().out.split()
    assert str(chart / "values.yaml") in first
    assert kubesched(["manifests", f"--helm-chart={chart}"]) == 0  # the same files again
    assert capsys.readouterr().out.split() == first
    values = chart / "values.yaml"
    edited = values.read_text() + "# mine\n"
    values.write_text(edited)
    (chart / "dashboards").mkdir(exist_ok=True)
    (chart / "dashboards" / "mine.json").write_text("{}")  # not the chart's: left alone
    line = refusal(capsys, [f"--helm-chart={chart}", "--replicas=3"])
    assert line.startswith(f"--helm-chart {chart}: values.yaml")
    assert line.endswith(
        "from what kubesched writes; pass --overwrite to replace them, or write the chart into "
        "a new folder"
    )
    assert values.read_text() == edited
    assert kubesched(["manifests", f"--helm-chart={chart}", "--overwrite"]) == 0
    assert "# mine" not in values.read_text()
    assert (chart / "dashboards" / "mine.json").read_text() == "{}"


def test_paths_it_cannot_write_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert refusal(capsys, [f"--helm-chart={a_file}"]) == (
        f"--helm-chart {a_file}: is a file, not a folder; name a folder (it is created if missing)"
    )
    below = a_file / "chart"
    assert refusal(capsys, [f"--helm-chart={below}"]) == (
        f"--helm-chart {below}: {a_file} is a file, not a folder"
    )
    assert refusal(capsys, ["--helm-chart=/proc/kubesched-chart"]).startswith(
        "--helm-chart /proc/kubesched-chart: cannot write the chart: "
    )
    assert refusal(capsys, ["--helm-chart="]) == (
        "--helm-chart: empty; name the folder to write the chart into"
    )
    assert refusal(capsys, ["--overwrite"]) == (
        "--overwrite only applies to --helm-chart DIR; add --helm-chart"
    )


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """`kubesched manifests | head -1`: the pipe closes under kubesched."""
    process = subprocess.Popen(
        [sys.executable, "-m", "kubesched", "manifests", "--with-crds"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()
    _, err = process.communicate(timeout=60)
    assert b"Traceback" not in err
    assert b"BrokenPipe" not in err
    assert process.returncode in (0, 141)
