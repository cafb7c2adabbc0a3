"""Check: the Lease is this scheduler's own, and no other live scheduler serves its names.

The failure both guides describe ("Configure Multiple Schedulers" and the guide on
leader-election conflicts between a custom scheduler and kube-scheduler) is a second
scheduler configured with kube-scheduler's Lease `kube-system/kube-scheduler`: it waits
forever at `attempting to acquire leader lease kube-system/kube-scheduler...`. The same
rules as `kubesched run`'s start-up guard (`kubesched.leaderelection.collision`), plus one
it cannot see from its own Lease: another live scheduler, under another Lease, serving one
of our names (two schedulers would place the same pods, each blind to the other's
assumptions)."""

from __future__ import annotations

from kubesched.doctor.context import Context
from kubesched.doctor.durations import ago
from kubesched.doctor.inventory import LeaseState, SchedulerLease
from kubesched.doctor.result import CheckResult, fail, ok
from kubesched.doctor.target import Target
from kubesched.leaderelection import DEFAULT_SCHEDULER_LEASE
from kubesched.leaderelection.collision import DEFAULT_SCHEDULER_NAME

NAME = "lease-collision"
_HANG = 'would wait forever at "attempting to acquire leader lease {lease}..."'


def own_lease_fix(target: Target) -> str:
    """How to give the scheduler its own Lease."""
    suggestion = next((n for n in target.scheduler_names if n != DEFAULT_SCHEDULER_NAME), "")
    name = suggestion or "my-scheduler"
    return (
        f"give this scheduler its own Lease: --leader-elect-resource-name={name} "
        "(leaderElection.resourceName) and optionally its own namespace with "
        "--leader-elect-resource-namespace; replicas of one scheduler share that one Lease"
    )


def _foreign_holder(target: Target, lease: SchedulerLease, age: str) -> CheckResult | None:
    holder = lease.record.holder_identity
    if lease.record.scheduler_names is None:
        if lease.is_default_lease:
            return fail(
                NAME,
                f"{lease.key} is held by {holder} (renewed {age}), a live default "
                "kube-scheduler: kubesched does not fight it for its Lease",
                "stop the default scheduler first (move /etc/kubernetes/manifests/"
                "kube-scheduler.yaml away or scale it to 0) and wait for its Lease to expire; "
                f"or run beside it: {own_lease_fix(target)}",
                holder=holder,
            )
        return fail(
            NAME,
            f"{lease.key} is held by {holder} (renewed {age}), a live holder that is not "
            f"kubesched (no kubesched.io/scheduler-names annotation): this scheduler "
            f"{_HANG.format(lease=lease.key)}",
            own_lease_fix(target),
            holder=holder,
        )
    if not set(lease.served_names) & set(target.scheduler_names):
        return fail(
            NAME,
            f"{lease.key} is held by {holder} (renewed {age}), a kubesched serving "
            f"{','.join(lease.served_names)}, not {target.names}: two deployments share one "
            "Lease and only one of them would ever schedule",
            own_lease_fix(target),
            holder=holder,
        )
    return None


def _same_names_elsewhere(target: Target, leases: list[SchedulerLease], ctx: Context) -> list[str]:
    clashes = []
    for lease in leases:
        if lease.key == target.lease or lease.state(ctx.now) is not LeaseState.LIVE:
            continue
        shared = sorted(set(lease.served_names) & set(target.scheduler_names))
        if shared:
            clashes.append(f"{','.join(shared)} by {lease.record.holder_identity} ({lease.key})")
    return clashes


async def check_collision(ctx: Context) -> CheckResult:
    """fail on kube-scheduler's Lease, a foreign live holder, or a rival serving our names."""
    target = ctx.target
    if not target.leader_elect:
        return ok(NAME, "leader election is off: no Lease is used (run a single replica)")
    if (
        target.lease == DEFAULT_SCHEDULER_LEASE
        and DEFAULT_SCHEDULER_NAME not in target.scheduler_names
    ):
        return fail(
            NAME,
            f"the Lease {DEFAULT_SCHEDULER_LEASE} belongs to the default scheduler, but this "
            f"kubesched serves {target.names}, not {DEFAULT_SCHEDULER_NAME}: it "
            f"{_HANG.format(lease=DEFAULT_SCHEDULER_LEASE)}",
            own_lease_fix(target),
            lease=target.lease,
        )
    own = await ctx.own_lease()
    if own is not None and own.state(ctx.now) is LeaseState.LIVE:
        problem = _foreign_holder(target, own, ago(own.renewed_ago(ctx.now)))
        if problem is not None:
            return problem
    clashes = _same_names_elsewhere(target, await ctx.scheduler_leases(), ctx)
    if clashes:
        return fail(
            NAME,
            f"another live scheduler already serves {'; '.join(clashes)}: two schedulers "
            "would place the same pods, each blind to the other's placements",
            "serve a scheduler name nobody else serves (--scheduler-name / profiles), or stop "
            "the other scheduler; replicas of one scheduler must share one Lease",
            lease=target.lease,
            clashes=clashes,
        )
    return ok(
        NAME,
        f"{target.lease} is this scheduler's own Lease; no other live scheduler serves "
        f"{target.names}",
        lease=target.lease,
    )
