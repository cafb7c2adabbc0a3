"""The collision guard: refuse, before electing, a Lease that would make us hang or fight.

The failure both guides describe ("Configure Multiple Schedulers" and the guide on
leader-election conflicts between a custom scheduler and kube-scheduler): a second scheduler
configured with kube-scheduler's Lease `kube-system/kube-scheduler` blocks forever at
`attempting to acquire leader lease kube-system/kube-scheduler...` because the default
scheduler holds it (or, worse, takes it over and two schedulers fight for the same pods).
`check_lease_collision` turns that into an immediate error whose one-line message says what
collides and how to fix it:

* `kube-system/kube-scheduler` is refused unless kubesched really replaces the default
  scheduler: it serves `default-scheduler` and no live holder other than a kubesched
  serving the same names (our own HA replicas) holds that Lease;
* any Lease held by a live holder that is not kubesched (no `kubesched.io/scheduler-names`
  annotation), or by a kubesched serving none of our scheduler names (two deployments
  configured with one Lease name), is refused.

"Live" compares the holder's renewTime plus leaseDurationSeconds with our wall clock. The
elector never does that (clock skew); for a one-shot check at start-up it is an acceptable
heuristic: a skewed clock can only make the guard refuse or allow one start too many, and
the elector's own, skew-proof rules still decide who leads.
"""

from __future__ import annotations

import logging
from datetime import datetime

from kubesched.errors import FatalError
from kubesched.framework.logkv import kv
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ApiError, NotFound
from kubesched.leaderelection.clock import utc_now
from kubesched.leaderelection.record import LeaseRecord, lease_path

log = logging.getLogger(__name__)

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_SCHEDULER_LEASE = "kube-system/kube-scheduler"

_BACKGROUND = (
    "The default kube-scheduler holds the Lease kube-system/kube-scheduler, and a scheduler "
    'that shares a Lease with another component waits forever at "attempting to acquire '
    'leader lease kube-system/kube-scheduler..."; this check stops that before it starts.'
)


class LeaseCollisionError(FatalError):
    """This Lease must not be used; the message explains the conflict and the fix."""


def _fix(scheduler_names: tuple[str, ...]) -> str:
    suggestion = next((n for n in scheduler_names if n != DEFAULT_SCHEDULER_NAME), "")
    example = f' such as "{suggestion}"' if suggestion else ""
    return (
        "Give this scheduler its own Lease: set leaderElection.resourceName "
        f"(--leader-elect-resource-name) to a unique name{example}, and optionally "
        "leaderElection.resourceNamespace (--leader-elect-resource-namespace) to its own "
        "namespace; replicas of the same scheduler share that one Lease."
    )


def _ours(names: tuple[str, ...]) -> str:
    return ",".join(names) or "(none)"


def default_lease_message(scheduler_names: tuple[str, ...]) -> str:
    """Why kube-system/kube-scheduler is refused to a kubesched not serving default-scheduler."""
    return (
        f"Refusing to start: leader election is configured with the Lease "
        f"{DEFAULT_SCHEDULER_LEASE}, which belongs to the default scheduler, but this kubesched "
        f"serves {_ours(scheduler_names)}, not {DEFAULT_SCHEDULER_NAME}, so it runs beside "
        f"kube-scheduler and must not compete for its Lease. {_fix(scheduler_names)} "
        f"{_BACKGROUND}"
    )


def _live_holder_message(
    record: LeaseRecord, *, lease: str, names: tuple[str, ...], now: datetime
) -> str | None:
    assert record.renew_time is not None
    age = (now - record.renew_time).total_seconds()
    held = f"The Lease {lease} is held by {record.holder_identity} (renewed {age:.1f}s ago)"
    if record.scheduler_names is None and lease == DEFAULT_SCHEDULER_LEASE:
        return (
            f"Refusing to start: {held}, a live holder that is not kubesched, almost certainly "
            f"the default kube-scheduler. kubesched serves {DEFAULT_SCHEDULER_NAME} and would "
            "replace it, but it does not fight a running kube-scheduler: stop the default "
            "scheduler first (move /etc/kubernetes/manifests/kube-scheduler.yaml away, or scale "
            f"its Deployment to 0) and wait {record.lease_duration_seconds}s for its Lease to "
            f"expire. Or run beside it: serve another scheduler name. {_fix(names)} {_BACKGROUND}"
        )
    if record.scheduler_names is None:
        return (
            f"Refusing to start: {held}, a live holder that is not kubesched (the Lease has no "
            "kubesched.io/scheduler-names annotation), so another component uses this Lease "
            f"name and this scheduler would never lead. {_fix(names)} {_BACKGROUND}"
        )
    if not set(record.scheduler_names) & set(names):
        return (
            f"Refusing to start: {held}, a kubesched serving "
            f"{_ours(record.scheduler_names)}, but this one serves {_ours(names)}: two "
            "different kubesched deployments share one Lease, so only one of them would ever "
            f"schedule. {_fix(names)} {_BACKGROUND}"
        )
    return None


async def read_lease(
    api: KubeApi, *, namespace: str, name: str, timeout: float = 5.0
) -> LeaseRecord | None:
    """The Lease's record, or None when it does not exist."""
    try:
        lease = await api.get(lease_path(namespace, name), timeout=timeout)
    except NotFound:
        return None
    return LeaseRecord.from_lease(lease)


async def check_lease_collision(
    api: KubeApi,
    *,
    namespace: str,
    name: str,
    scheduler_names: tuple[str, ...],
    now: datetime | None = None,
    timeout: float = 5.0,
) -> LeaseRecord | None:
    """Raise `LeaseCollisionError` if kubesched must not elect on `namespace/name`.

    Returns the Lease's current record (None when it does not exist or could not be read:
    an unreadable Lease is logged and left to the elector, which reports its errors).
    """
    names = tuple(scheduler_names)
    lease = f"{namespace}/{name}"
    if lease == DEFAULT_SCHEDULER_LEASE and DEFAULT_SCHEDULER_NAME not in names:
        raise LeaseCollisionError(default_lease_message(names))
    try:
        record = await read_lease(api, namespace=namespace, name=name, timeout=timeout)
    except ApiError as exc:
        log.warning("could not read lease to check collisions", extra=kv(lease=lease, err=exc))
        return None
    moment = now or utc_now()
    if record is None or not record.is_live(now=moment):
        return record
    problem = _live_holder_message(record, lease=lease, names=names, now=moment)
    if problem is not None:
        raise LeaseCollisionError(problem)
    if record.scheduler_names is not None and set(record.scheduler_names) != set(names):
        log.warning(
            "lease holder serves other scheduler names; continuing as they overlap "
            "(a rolling update changing profiles?)",
            extra=kv(
                lease=lease,
                holder=record.holder_identity,
                theirs=_ours(record.scheduler_names),
                ours=_ours(names),
            ),
        )
    return record
