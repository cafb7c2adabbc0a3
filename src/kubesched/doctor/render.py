"""Doctor's output: a table for people, JSON (`-o json`) for scripts."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from kubesched.doctor.durations import plural
from kubesched.doctor.result import CheckResult, CheckStatus
from kubesched.doctor.target import Target
from kubesched.doctor.text import printable

_MARK = {CheckStatus.OK: "ok", CheckStatus.WARN: "WARN", CheckStatus.FAIL: "FAIL"}


def summary(results: list[CheckResult]) -> dict[str, int]:
    """How many checks ended in each status."""
    counts = Counter(result.status for result in results)
    return {status.value: counts.get(status, 0) for status in CheckStatus}


def table(results: list[CheckResult], target: Target) -> str:
    """STATUS CHECK DETAIL rows, each warning or failure followed by its fix."""
    width = max([len("CHECK"), *(len(result.name) for result in results)])
    subject = f", service account {target.service_account}" if target.service_account else ""
    lines = [
        f"kubesched doctor: scheduler {target.names}, Lease {target.lease}{subject}",
        "",
        f"{'STATUS':<7} {'CHECK':<{width}}  DETAIL",
    ]
    for result in results:
        lines.append(f"{_MARK[result.status]:<7} {result.name:<{width}}  {result.detail}")
        if result.fix and result.status is not CheckStatus.OK:
            lines.append(f"{'':<7} {'':<{width}}  fix: {result.fix}")
    counts = summary(results)
    lines += [
        "",
        f"{counts['fail']} failed, {plural(counts['warn'], 'warning')}, {counts['ok']} ok",
    ]
    return "\n".join(printable(line) for line in lines)


def as_json(results: list[CheckResult], target: Target) -> str:
    """The whole report as one JSON document."""
    document: dict[str, Any] = {
        "target": {
            "schedulerNames": list(target.scheduler_names),
            "lease": target.lease,
            "leaderElect": target.leader_elect,
            "serviceAccount": str(target.service_account) if target.service_account else None,
        },
        "checks": [result.to_json() for result in results],
        "summary": summary(results),
    }
    return json.dumps(document, indent=2, default=str)
