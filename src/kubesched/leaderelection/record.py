"""The leader election record kept in a `coordination.k8s.io/v1` Lease.

`LeaseRecord` is the Lease's spec (holderIdentity, leaseDurationSeconds, acquireTime,
renewTime, leaseTransitions) plus the scheduler names the holder serves, which kubesched
stores in the annotation `kubesched.io/scheduler-names` ("a,b"). The label
`kubesched.io/lease=scheduler` marks our Leases so `kubesched leases` and `doctor` can list
them with a label selector.

Records compare by value: the elector uses "the record differs from the last one seen" as
its only signal that the holder renewed (client-go compares the serialized record the same
way), so the timestamps in it are never compared with our own clock for expiry.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

API_VERSION = "coordination.k8s.io/v1"
KIND = "Lease"
LEASE_LABEL = "kubesched.io/lease"
LEASE_LABEL_VALUE = "scheduler"
LEASE_LABEL_SELECTOR = f"{LEASE_LABEL}={LEASE_LABEL_VALUE}"
SCHEDULER_NAMES_ANNOTATION = "kubesched.io/scheduler-names"


def leases_path(namespace: str) -> str:
    """The collection path of the Leases in `namespace`."""
    return f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"


def lease_path(namespace: str, name: str) -> str:
    """The path of one Lease."""
    return f"{leases_path(namespace)}/{name}"


def format_micro_time(moment: datetime) -> str:
    """RFC 3339 in UTC with exactly six fractional digits, the API's MicroTime format."""
    utc = moment.astimezone(UTC).replace(tzinfo=None)
    return utc.isoformat(timespec="microseconds") + "Z"


def parse_micro_time(text: str | None) -> datetime | None:
    """Parse an RFC 3339 time (any fraction length, `Z` or an offset) into an aware UTC time.

    Returns None for a missing or unreadable value: a foreign writer's odd timestamp must
    not break the election, which never relies on these timestamps anyway.
    """
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def format_scheduler_names(names: tuple[str, ...]) -> str:
    """The annotation value: the names joined by commas."""
    return ",".join(names)


def parse_scheduler_names(value: str | None) -> tuple[str, ...] | None:
    """The names in the annotation; None when the annotation is absent (not a kubesched)."""
    if value is None:
        return None
    return tuple(name.strip() for name in value.split(",") if name.strip())


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaseRecord:
    """One observation of a Lease's election state.

    `scheduler_names` is None when the Lease lacks our annotation, i.e. its holder is not
    kubesched (kube-scheduler, a controller, a hand-made Lease).
    """

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: datetime | None = None
    renew_time: datetime | None = None
    lease_transitions: int = 0
    scheduler_names: tuple[str, ...] | None = None

    @property
    def held(self) -> bool:
        """Whether the record names a holder (a released Lease has an empty holder)."""
        return bool(self.holder_identity)

    @property
    def is_kubesched(self) -> bool:
        """Whether a kubesched wrote this record (it carries the scheduler names)."""
        return self.scheduler_names is not None

    def is_live(self, *, now: datetime) -> bool:
        """Held and renewed within its leaseDurationSeconds, judged by `now` (a wall clock).

        Only for one-shot heuristics (the collision guard, `kubesched leases`): comparing
        another machine's timestamp with our wall clock is wrong by the clock skew. The
        elector never uses this; it measures expiry from when it saw the record change.
        """
        if not self.held or self.renew_time is None:
            return False
        return self.renew_time + timedelta(seconds=self.lease_duration_seconds) > now

    @classmethod
    def from_lease(cls, lease: dict[str, Any]) -> LeaseRecord:
        """Read the record from a Lease object as the API server returns it."""
        spec = lease.get("spec") or {}
        annotations = (lease.get("metadata") or {}).get("annotations") or {}
        return cls(
            holder_identity=str(spec.get("holderIdentity") or ""),
            lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
            acquire_time=parse_micro_time(spec.get("acquireTime")),
            renew_time=parse_micro_time(spec.get("renewTime")),
            lease_transitions=int(spec.get("leaseTransitions") or 0),
            scheduler_names=parse_scheduler_names(annotations.get(SCHEDULER_NAMES_ANNOTATION)),
        )

    def to_spec(self) -> dict[str, Any]:
        """The Lease spec for this record (what client-go's LeaseLock writes)."""
        spec: dict[str, Any] = {
            "holderIdentity": self.holder_identity,
            "leaseDurationSeconds": self.lease_duration_seconds,
            "leaseTransitions": self.lease_transitions,
        }
        if self.acquire_time is not None:
            spec["acquireTime"] = format_micro_time(self.acquire_time)
        if self.renew_time is not None:
            spec["renewTime"] = format_micro_time(self.renew_time)
        return spec

    def apply_to(self, lease: dict[str, Any]) -> dict[str, Any]:
        """A copy of `lease` carrying this record, our label and our annotation.

        Other labels and annotations, and the metadata the server needs for an update
        (resourceVersion, uid), are kept.
        """
        metadata = dict(lease.get("metadata") or {})
        metadata["labels"] = {**(metadata.get("labels") or {}), LEASE_LABEL: LEASE_LABEL_VALUE}
        annotations = dict(metadata.get("annotations") or {})
        if self.scheduler_names is not None:
            annotations[SCHEDULER_NAMES_ANNOTATION] = format_scheduler_names(self.scheduler_names)
        metadata["annotations"] = annotations
        return {
            **lease,
            "apiVersion": API_VERSION,
            "kind": KIND,
            "metadata": metadata,
            "spec": self.to_spec(),
        }

    def new_lease(self, *, namespace: str, name: str) -> dict[str, Any]:
        """A Lease object to create with this record."""
        return self.apply_to({"metadata": {"name": name, "namespace": namespace}})
