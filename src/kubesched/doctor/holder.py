"""Check: who holds the scheduler's Lease, when it renewed, and whether it is stale.

Stale means a holder is named but did not renew within leaseDurationSeconds: that
replica is gone (or cannot reach the API server), and nobody schedules until another
replica takes the Lease over.
"""

from __future__ import annotations

from typing import Any

from kubesched.doctor.context import Context
from kubesched.doctor.durations import ago, expires
from kubesched.doctor.inventory import LeaseState, SchedulerLease
from kubesched.doctor.result import CheckResult, ok, warn

NAME = "lease-holder"


def lease_data(lease: SchedulerLease, ctx: Context) -> dict[str, Any]:
    """The Lease's timings for `-o json`."""
    record = lease.record
    return {
        "lease": lease.key,
        "holder": record.holder_identity,
        "state": lease.state(ctx.now).value,
        "schedulerNames": list(lease.served_names),
        "renewedSecondsAgo": lease.renewed_ago(ctx.now),
        "expiresInSeconds": lease.expires_in(ctx.now),
        "leaseDurationSeconds": record.lease_duration_seconds,
        "leaseTransitions": record.lease_transitions,
    }


async def check_holder(ctx: Context) -> CheckResult:
    """ok when a live holder renews the Lease; warn when missing, released or stale."""
    target = ctx.target
    if not target.leader_elect:
        return ok(NAME, "leader election is off: every replica schedules (run only one)")
    lease = await ctx.own_lease()
    if lease is None:
        return warn(
            NAME,
            f"the Lease {target.lease} does not exist: no replica of this scheduler has "
            "started (the first one creates it)",
            "start kubesched; if it runs and the Lease stays missing, read its log and the "
            "permissions check (creating the Lease needs `create leases` without resourceNames)",
            lease=target.lease,
            state="missing",
        )
    data = lease_data(lease, ctx)
    state = lease.state(ctx.now)
    record = lease.record
    renewed = ago(lease.renewed_ago(ctx.now))
    if state is LeaseState.RELEASED:
        return warn(
            NAME,
            f"{lease.key} is released (no holder; last renewed {renewed}): no replica leads",
            "start kubesched (a released Lease is taken at once); check its pods: "
            f"kubectl -n {target.lease_namespace} get pods",
            **data,
        )
    if state is LeaseState.STALE:
        return warn(
            NAME,
            f"{lease.key} is stale: held by {record.holder_identity}, last renewed {renewed} "
            f"(leaseDurationSeconds {record.lease_duration_seconds}): that replica is gone "
            "and nobody schedules until another one takes over",
            "start kubesched, or read the log of the replica named as holder (it may not reach "
            "the API server); a new replica takes a stale Lease over after leaseDurationSeconds",
            **data,
        )
    if not set(lease.served_names) & set(target.scheduler_names):
        serves = ",".join(lease.served_names) or "no kubesched scheduler names"
        return warn(
            NAME,
            f"{lease.key} is held by {record.holder_identity} (renewed {renewed}), which serves "
            f"{serves}, not this scheduler: this scheduler would not lead",
            "see the lease-collision check: give this scheduler its own Lease",
            **data,
        )
    return ok(
        NAME,
        f"{lease.key} is held by {record.holder_identity}, renewed {renewed}, expires "
        f"{expires(lease.expires_in(ctx.now))}, {record.lease_transitions} transitions",
        **data,
    )
