"""Check: pending pods whose `spec.schedulerName` no live scheduler serves.

Such pods stay Pending forever: no scheduler will ever look at them. Served names are
`default-scheduler` when the Lease kube-system/kube-scheduler is live, plus the names in
the `kubesched.io/scheduler-names` annotation of every live kubesched Lease. (A scheduler
running without leader election has no Lease, so doctor cannot see it.)
"""

from __future__ import annotations

from kubesched.doctor.context import Context
from kubesched.doctor.durations import plural
from kubesched.doctor.inventory import served_by_live
from kubesched.doctor.listing import list_all
from kubesched.doctor.result import CheckResult, fail, ok
from kubesched.leaderelection.collision import DEFAULT_SCHEDULER_NAME

NAME = "pending-pods"
UNSCHEDULED_PENDING = "status.phase=Pending,spec.nodeName="
SHOWN_PER_NAME = 3
KEPT_PER_NAME = 100


def _fix_for(name: str, ctx: Context) -> str:
    if name == DEFAULT_SCHEDULER_NAME:
        return (
            f"{name}: start the default kube-scheduler (no live kube-system/kube-scheduler Lease)"
        )
    if name in ctx.target.scheduler_names:
        return f"{name}: start this kubesched (its Lease {ctx.target.lease} has no live holder)"
    return (
        f"{name}: run a scheduler serving it (kubesched --scheduler-name={name}) or fix the "
        "pods' spec.schedulerName"
    )


def _group(pods: list[dict[str, object]], served: set[str]) -> dict[str, list[str]]:
    orphans: dict[str, list[str]] = {}
    for pod in pods:
        spec = pod.get("spec")
        meta = pod.get("metadata")
        name = str((spec if isinstance(spec, dict) else {}).get("schedulerName") or "")
        name = name or DEFAULT_SCHEDULER_NAME
        if name in served or not isinstance(meta, dict):
            continue
        orphans.setdefault(name, []).append(f"{meta.get('namespace')}/{meta.get('name')}")
    return orphans


async def check_pending(ctx: Context) -> CheckResult:
    """fail when pods wait for a scheduler name that no live scheduler serves."""
    served = served_by_live(await ctx.scheduler_leases(), ctx.now)
    pods = await list_all(ctx.api, "/api/v1/pods", params={"fieldSelector": UNSCHEDULED_PENDING})
    orphans = _group(pods, set(served))
    served_list = ",".join(sorted(served)) or "(none)"
    if not orphans:
        return ok(
            NAME,
            f"{plural(len(pods), 'unscheduled pending pod')}, all for live schedulers "
            f"({served_list})",
            pending=len(pods),
            served=served,
        )
    count = sum(len(keys) for keys in orphans.values())
    groups = []
    for name, keys in sorted(orphans.items()):
        shown = ", ".join(keys[:SHOWN_PER_NAME]) + (", ..." if len(keys) > SHOWN_PER_NAME else "")
        groups.append(f"{name} ({len(keys)}: {shown})")
    return fail(
        NAME,
        f"{plural(count, 'pod')} will stay Pending, no live scheduler serves their schedulerName: "
        f"{'; '.join(groups)} (live schedulers serve {served_list})",
        "; ".join(_fix_for(name, ctx) for name in sorted(orphans))
        + " (a scheduler run with --leader-elect=false has no Lease: doctor cannot see it)",
        pending=len(pods),
        served=served,
        withoutScheduler={name: keys[:KEPT_PER_NAME] for name, keys in sorted(orphans.items())},
    )
