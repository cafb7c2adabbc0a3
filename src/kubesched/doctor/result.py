"""What a check returns: a name, ok/warn/fail, one line of detail and, when not ok, the fix.

`fail` means kubesched cannot do its job as configured (doctor exits 1); `warn` means
something to look at that does not stop it (exit 0). `data` carries the check's findings
for `-o json` (pod names, denied permissions, Lease timings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class CheckStatus(StrEnum):
    """The verdict of one check."""

    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """One check's answer. `detail` is one line; `fix` says what to do (empty when ok)."""

    name: str
    status: CheckStatus
    detail: str
    fix: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The result as `-o json` prints it."""
        return {
            "name": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "fix": self.fix,
            "data": self.data,
        }


def ok(name: str, detail: str, **data: Any) -> CheckResult:
    """A passing check."""
    return CheckResult(name=name, status=CheckStatus.OK, detail=detail, data=data)


def warn(name: str, detail: str, fix: str, **data: Any) -> CheckResult:
    """A check that found something to look at."""
    return CheckResult(name=name, status=CheckStatus.WARN, detail=detail, fix=fix, data=data)


def fail(name: str, detail: str, fix: str, **data: Any) -> CheckResult:
    """A check that found why kubesched cannot work."""
    return CheckResult(name=name, status=CheckStatus.FAIL, detail=detail, fix=fix, data=data)
