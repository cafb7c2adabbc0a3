"""Runs the checks in order; a check that cannot read what it needs reports a warning.

The API server check runs first: when it fails, the others are not run (each would only
repeat "cannot reach the API server").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from kubesched.doctor import (
    apiserver,
    collision,
    default_scheduler,
    holder,
    pending,
    permissions,
    served,
)
from kubesched.doctor.context import Context
from kubesched.doctor.result import CheckResult, CheckStatus, warn
from kubesched.doctor.target import Target
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ApiError
from kubesched.leaderelection.clock import utc_now

Check = Callable[[Context], Awaitable[CheckResult]]

CHECKS: tuple[tuple[str, Check], ...] = (
    (apiserver.NAME, apiserver.check_api_server),
    (served.NAME, served.check_served),
    (collision.NAME, collision.check_collision),
    (holder.NAME, holder.check_holder),
    (permissions.NAME, permissions.check_permissions),
    (pending.NAME, pending.check_pending),
    (default_scheduler.NAME, default_scheduler.check_default_scheduler),
)


async def _run_one(name: str, check: Check, ctx: Context) -> CheckResult:
    try:
        return await check(ctx)
    except ApiError as exc:
        return warn(
            name,
            f"could not check: {exc}",
            "doctor's own credentials need to read pods and leases (kubectl auth can-i list "
            "pods --all-namespaces; kubectl auth can-i list leases --all-namespaces)",
            error=str(exc),
        )


async def run_checks(
    api: KubeApi,
    target: Target,
    *,
    server: str = "",
    now: datetime | None = None,
    checks: tuple[tuple[str, Check], ...] = CHECKS,
) -> list[CheckResult]:
    """Every check's result, in order (only the first when the API server is unreachable)."""
    ctx = Context(api=api, target=target, now=now or utc_now(), server=server)
    results: list[CheckResult] = []
    for name, check in checks:
        result = await _run_one(name, check, ctx)
        results.append(result)
        if name == apiserver.NAME and result.status is CheckStatus.FAIL:
            break
    return results


def exit_code(results: list[CheckResult]) -> int:
    """1 when any check failed, else 0 (warnings do not fail)."""
    return 1 if any(result.status is CheckStatus.FAIL for result in results) else 0
