"""Check: the default scheduler is alive (its Lease kube-system/kube-scheduler is live).

Pods without a schedulerName (`default-scheduler`) are its; kubesched never touches them
unless a profile serves `default-scheduler` in its place.
"""

from __future__ import annotations

from kubesched.doctor.context import Context
from kubesched.doctor.durations import ago
from kubesched.doctor.inventory import LeaseState
from kubesched.doctor.result import CheckResult, ok, warn
from kubesched.leaderelection import DEFAULT_SCHEDULER_LEASE

NAME = "default-scheduler"
_FIX = (
    "start kube-scheduler (the static pod /etc/kubernetes/manifests/kube-scheduler.yaml), or "
    "serve default-scheduler with a kubesched profile if it really replaces it; if "
    "kube-scheduler runs with --leader-elect=false it has no Lease and doctor cannot see it"
)


async def check_default_scheduler(ctx: Context) -> CheckResult:
    """ok when kube-system/kube-scheduler is live, warn when it is missing or stale."""
    namespace, name = DEFAULT_SCHEDULER_LEASE.split("/")
    lease = await ctx.lease(namespace, name)
    if lease is None:
        return warn(
            NAME,
            f"no Lease {DEFAULT_SCHEDULER_LEASE}: no default scheduler runs, so pods without "
            "spec.schedulerName stay Pending",
            _FIX,
            state="missing",
        )
    state = lease.state(ctx.now)
    holder = lease.record.holder_identity or "(nobody)"
    renewed = ago(lease.renewed_ago(ctx.now))
    who = "a kubesched replacing it" if lease.record.is_kubesched else "kube-scheduler"
    data = {"holder": holder, "state": state.value, "renewedSecondsAgo": lease.renewed_ago(ctx.now)}
    if state is not LeaseState.LIVE:
        return warn(
            NAME,
            f"{DEFAULT_SCHEDULER_LEASE} is {state.value} (holder {holder}, renewed {renewed}): "
            "the default scheduler is not running, pods without spec.schedulerName stay Pending",
            _FIX,
            **data,
        )
    return ok(
        NAME, f"{DEFAULT_SCHEDULER_LEASE} is held by {holder} ({who}), renewed {renewed}", **data
    )
