"""The named checks behind /healthz, /livez and /readyz, answered as kube-scheduler's
(k8s.io/apiserver healthz): `ok` when all pass; with `?verbose` one `[+]name ok` line per
check and `<endpoint> check passed`; on a failure the same listing with `[-]name failed:
reason withheld`, `<endpoint> check failed` and status 500; `?exclude=name` skips a check;
`/<endpoint>/<name>` runs one check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

CheckFn = Callable[[], str | None]
"""None when the check passes, else why it fails (logged, never served)."""
Check = tuple[str, CheckFn]


def passing() -> str | None:
    """`ping`: answering at all is the check."""
    return None


def from_bool(ok: Callable[[], bool], why: str) -> CheckFn:
    """A check from a yes/no callable."""
    return lambda: None if ok() else why


@dataclass(frozen=True)
class HealthChecks:
    healthz: Sequence[Check]
    livez: Sequence[Check]
    readyz: Sequence[Check]

    @classmethod
    def simple(cls, *, ready: Callable[[], bool], live: Callable[[], bool]) -> HealthChecks:
        """One check each, from yes/no callables."""
        alive = ("live", from_bool(live, "not live"))
        return cls(
            healthz=(alive,),
            livez=(("ping", passing), alive),
            readyz=(("ready", from_bool(ready, "not ready")),),
        )

    def of(self, endpoint: str) -> Sequence[Check]:
        return {"healthz": self.healthz, "livez": self.livez, "readyz": self.readyz}[endpoint]


Observe = Callable[[str, bool], None]
"""(check name, passed): told of every check a request to an endpoint ran."""


def answer(
    endpoint: str,
    checks: Sequence[Check],
    query: Mapping[str, str],
    observe: Observe | None = None,
) -> tuple[int, str]:
    """(status, body) of `/<endpoint>` with `query` (`verbose`, `exclude`); `observe` hears
    each check that ran (an excluded one did not), as kube-scheduler records its SLIs."""
    excluded = set(query.getall("exclude", ())) if hasattr(query, "getall") else set()
    results = [(name, check()) for name, check in checks if name not in excluded]
    if observe is not None:
        for name, reason in results:
            observe(name, reason is None)
    failed = any(reason is not None for _, reason in results)
    if not failed and "verbose" not in query:
        return 200, "ok"
    lines = [
        f"[+]{name} ok" if reason is None else f"[-]{name} failed: reason withheld"
        for name, reason in results
    ]
    lines.append(f"{endpoint} check {'failed' if failed else 'passed'}")
    return (500 if failed else 200), "\n".join(lines) + "\n"


def answer_one(checks: Sequence[Check], name: str) -> tuple[int, str] | None:
    """(status, body) of `/<endpoint>/<name>`, or None when there is no such check."""
    for check_name, check in checks:
        if check_name == name:
            reason = check()
            if reason is None:
                return 200, "ok"
            return 500, "internal server error: check failed\n"
    return None
