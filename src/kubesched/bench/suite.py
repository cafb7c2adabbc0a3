"""`kubesched bench --suite`: the scheduler_perf catalogue (`bench.catalogue`), every test
case run by every contender in turn, into one table and one plot.

    rows = run_suite(cases, size="500", base=settings, contenders=CONTENDERS, progress=print)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kubesched.bench import run_bench
from kubesched.bench.catalogue import catalogue_workload
from kubesched.bench.report import Machine, raw_json
from kubesched.bench.runner import BenchSettings, ContenderResult, Progress
from kubesched.bench.suite_report import plot_suite, suite_markdown


@dataclass(frozen=True, slots=True)
class SuiteRow:
    """One test case: its settings, every contender's result, the machine meanwhile."""

    settings: BenchSettings
    results: list[ContenderResult]
    machine: Machine

    def as_json(self) -> dict[str, Any]:
        return raw_json(self.results, self.settings, self.machine) | {
            "note": self.settings.workload.note
        }


def run_suite(
    cases: Sequence[str],
    *,
    size: str,
    base: BenchSettings,
    contenders: Sequence[str],
    progress: Progress,
    repeat: int = 1,
) -> list[SuiteRow]:
    """Run test cases `cases` at `size` (see `catalogue.SIZES`), one after the other."""
    rows = []
    for number, case in enumerate(cases, 1):
        settings = replace(base, workload=catalogue_workload(case, size))
        progress(f"== {case} ({number}/{len(cases)}), size {size}")
        results, machine = run_bench(
            settings, contenders=contenders, progress=progress, repeat=repeat
        )
        rows.append(SuiteRow(settings, results, machine))
    return rows


def write_suite(rows: Sequence[SuiteRow], out: Path, *, command: str) -> dict[str, Path]:
    """suite.md (the table), suite.json (every figure) and suite.png into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"table": out / "suite.md", "json": out / "suite.json"}
    paths["table"].write_text(suite_markdown(rows, command=command))
    raw = {"command": command, "workloads": [row.as_json() for row in rows]}
    paths["json"].write_text(json.dumps(raw, indent=1) + "\n")
    png = out / "suite.png"
    if plot_suite(rows, png):
        paths["plot"] = png
    return paths
