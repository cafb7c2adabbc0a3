"""`python -m kubesched_cyclecost` (docs/performance.md's in-process cycle figures) runs, and
places the same pods on the same nodes every run (fixed seeds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched_cyclecost.__main__ import main


@pytest.mark.parametrize("template", ["pod_default", "pod_with_pod_anti_affinity"])
def test_a_tiny_run_prints_the_cost_and_repeats_its_placements(
    template: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--nodes", "120", "--initial-pods", "30", "--pods", "40", "--zones", "3"]
    runs = []
    for run in range(2):
        out = tmp_path / f"hosts-{run}.txt"
        assert main([*args, "--template", template, "--placements", str(out)]) == 0
        runs.append(out.read_text("utf-8").split())
    assert len(runs[0]) == 40
    assert runs[0] == runs[1]
    assert "ms of CPU a pod" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "code", "line"),
    [
        (["--nodes", "0"], 2, "argument --nodes: must be 1 or more, got 0"),
        (["--pods", "-3"], 2, "argument --pods: must be 1 or more, got -3"),
        (
            ["--nodes", "5", "--pods", "2", "--placements", "/nonexistent/x/p.txt"],
            2,
            "argument --placements: the folder of /nonexistent/x/p.txt does not exist",
        ),
        (
            ["--nodes", "5", "--pods", "2", "--profile", "/proc/cycle.prof"],
            1,
            "kubesched-cyclecost: No such file or directory (/proc/cycle.prof)",
        ),
    ],
)
def test_a_run_that_cannot_be_made_ends_in_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], code: int, line: str
) -> None:
    if code == 2:
        with pytest.raises(SystemExit) as exited:
            main(args)
        assert exited.value.code == code
    else:
        assert main(args) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1].endswith(line)
