"""Ginkgo's JSON report of one run, cut to what we count and compare: each spec's full text,
its state, and why it failed or was skipped."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"
"""Skipped by the spec itself at run time (e.g. `e2eskipper`: too few nodes)."""
NOT_RUN = "not run"
"""Left out by our filters: a spec the local cluster cannot run, or another run's gate."""
_FAILURES = {"failed", "panicked", "timedout", "interrupted", "aborted"}


@dataclass(frozen=True)
class SpecResult:
    """One spec of the run."""

    text: str
    """The full text ginkgo matches `--ginkgo.focus` against."""
    state: str
    """`PASSED`, `FAILED`, `SKIPPED` or `NOT_RUN`."""
    message: str = ""
    """Why it failed or skipped (the first line of ginkgo's failure message)."""
    seconds: float = 0.0


def spec_results(report: Any) -> list[SpecResult]:
    """The `It` specs of a ginkgo JSON report (a list of suite reports)."""
    results = []
    for suite in report:
        for spec in suite.get("SpecReports") or []:
            if spec.get("LeafNodeType") != "It":
                continue
            results.append(_spec_result(spec))
    return sorted(results, key=lambda result: result.text)


def _spec_result(spec: dict[str, Any]) -> SpecResult:
    text = " ".join([*(spec.get("ContainerHierarchyTexts") or []), spec.get("LeafNodeText", "")])
    failure = spec.get("Failure") or {}
    message = str(failure.get("Message") or "").strip().splitlines()
    first = message[0] if message else ""
    state = str(spec.get("State", ""))
    if state in _FAILURES:
        kind = FAILED
    elif state == SKIPPED:
        kind = SKIPPED if first else NOT_RUN
    else:
        kind = PASSED if state == PASSED else state
    return SpecResult(text, kind, first[:300], round(spec.get("RunTime", 0) / 1e9, 1))


def counts(results: list[SpecResult]) -> dict[str, int]:
    """How many specs per state, every state named."""
    found = dict.fromkeys((PASSED, FAILED, SKIPPED, NOT_RUN), 0)
    for result in results:
        found[result.state] = found.get(result.state, 0) + 1
    return found


def write_summary(path: Path, *, name: str, results: list[SpecResult], seconds: float) -> None:
    """`summary.json` of a run: its name, counts, duration and every spec's result."""
    summary = {
        "run": name,
        "counts": counts(results),
        "seconds": round(seconds),
        "specs": [asdict(result) for result in results],
    }
    path.write_text(json.dumps(summary, indent=1) + "\n")


def read_summary(path: Path) -> list[SpecResult]:
    """The spec results a `summary.json` holds."""
    return [SpecResult(**spec) for spec in json.loads(path.read_text())["specs"]]


def regressions(ours: list[SpecResult], oracle: list[SpecResult]) -> list[SpecResult]:
    """Specs that fail in `ours` but pass in `oracle` (kube-scheduler's run): bugs."""
    passed = {result.text for result in oracle if result.state == PASSED}
    return [result for result in ours if result.state == FAILED and result.text in passed]
