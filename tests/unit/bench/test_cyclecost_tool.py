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
