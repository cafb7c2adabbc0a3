"""The scheduler Leases of a cluster, and which scheduler names live schedulers serve.

Scheduler Leases are `kube-system/kube-scheduler` (the default scheduler's) and every
Lease labelled `kubesched.io/lease=scheduler`. A kubesched Lease names the scheduler names
its holder serves in the annotation `kubesched.io/scheduler-names`; the default scheduler's
Lease, when held by kube-scheduler, serves `default-scheduler`.

"Live" means renewed within leaseDurationSeconds by our wall clock: a heuristic (off by
the clock skew between machines) good enough for a report, never used to elect.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from kubesched.doctor.listing import list_all
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import NotFound
from kubesched.leaderelection import (
    DEFAULT_SCHEDULER_LEASE,
    LEASE_LABEL_SELECTOR,
    LeaseRecord,
    lease_path,
)
from kubesched.leaderelection.collision import DEFAULT_SCHEDULER_NAME

ALL_LEASES_PATH = "/apis/coordination.k8s.io/v1/leases"


class LeaseState(StrEnum):
    """Whether a Lease has a holder that still renews it."""

    LIVE = "live"
    STALE = "stale"  # a holder is named but it did not renew within leaseDurationSeconds
    RELEASED = "released"  # no holder: released on a clean shutdown (or never held)


@dataclass(frozen=True, slots=True)
class SchedulerLease:
    """One scheduler Lease and its election record."""

    namespace: str
    name: str
    record: LeaseRecord

    @property
    def key(self) -> str:
        """`namespace/name`."""
        return f"{self.namespace}/{self.name}"

    @property
    def is_default_lease(self) -> bool:
        """Whether this is `kube-system/kube-scheduler`."""
        return self.key == DEFAULT_SCHEDULER_LEASE

    @property
    def served_names(self) -> tuple[str, ...]:
        """The scheduler names its holder serves (kube-scheduler: `default-scheduler`)."""
        if self.record.scheduler_names is not None:
            return self.record.scheduler_names
        return (DEFAULT_SCHEDULER_NAME,) if self.is_default_lease else ()

    def state(self, now: datetime) -> LeaseState:
        """Live, stale or released, judged by the wall clock `now`."""
        if not self.record.held:
            return LeaseState.RELEASED
        return LeaseState.LIVE if self.record.is_live(now=now) else LeaseState.STALE

    def renewed_ago(self, now: datetime) -> float | None:
        """Seconds since the last renewal (None when never renewed)."""
        renewed = self.record.renew_time
        return None if renewed is None else (now - renewed).total_seconds()

    def expires_in(self, now: datetime) -> float | None:
        """Seconds until it expires (negative: expired that long ago); None if unknown."""
        ago = self.renewed_ago(now)
        return None if ago is None else self.record.lease_duration_seconds - ago


def from_lease(lease: dict[str, object]) -> SchedulerLease:
    """A SchedulerLease from a Lease object as the API server returns it."""
    metadata = lease.get("metadata")
    meta = metadata if isinstance(metadata, dict) else {}
    return SchedulerLease(
        str(meta.get("namespace") or ""), str(meta.get("name") or ""), LeaseRecord.from_lease(lease)
    )


async def get_lease(api: KubeApi, *, namespace: str, name: str) -> SchedulerLease | None:
    """One Lease, or None when it does not exist."""
    try:
        lease = await api.get(lease_path(namespace, name), timeout=10.0)
    except NotFound:
        return None
    return from_lease(lease)


async def list_scheduler_leases(api: KubeApi, *, namespace: str = "") -> list[SchedulerLease]:
    """The scheduler Leases in `namespace` (all namespaces when empty), sorted by key."""
    path = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases" if namespace else ""
    items = await list_all(
        api, path or ALL_LEASES_PATH, params={"labelSelector": LEASE_LABEL_SELECTOR}
    )
    found = {lease.key: lease for lease in map(from_lease, items)}
    default_ns, default_name = DEFAULT_SCHEDULER_LEASE.split("/")
    if namespace in ("", default_ns) and DEFAULT_SCHEDULER_LEASE not in found:
        default = await get_lease(api, namespace=default_ns, name=default_name)
        if default is not None:
            found[default.key] = default
    return [found[key] for key in sorted(found)]


def served_by_live(leases: list[SchedulerLease], now: datetime) -> dict[str, list[str]]:
    """Scheduler name -> keys of the live Leases whose holders serve it."""
    served: dict[str, list[str]] = {}
    for lease in leases:
        if lease.state(now) is LeaseState.LIVE:
            for name in lease.served_names:
                served.setdefault(name, []).append(lease.key)
    return served
