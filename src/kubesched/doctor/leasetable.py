"""`kubesched leases` output: one row per scheduler Lease, as a table or JSON."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from kubesched.doctor.durations import ago, expires
from kubesched.doctor.inventory import SchedulerLease
from kubesched.doctor.text import printable

COLUMNS = ("LEASE", "HOLDER", "SCHEDULERS", "RENEWED", "EXPIRES", "TRANSITIONS", "STATE")


def lease_row(lease: SchedulerLease, now: datetime) -> dict[str, Any]:
    """One Lease as `-o json` shows it."""
    record = lease.record
    return {
        "namespace": lease.namespace,
        "name": lease.name,
        "holder": record.holder_identity,
        "schedulerNames": list(lease.served_names),
        "kubesched": record.is_kubesched,
        "renewTime": record.renew_time.isoformat() if record.renew_time else None,
        "renewedSecondsAgo": lease.renewed_ago(now),
        "expiresInSeconds": lease.expires_in(now),
        "leaseDurationSeconds": record.lease_duration_seconds,
        "leaseTransitions": record.lease_transitions,
        "state": lease.state(now).value,
    }


def _cells(lease: SchedulerLease, now: datetime) -> tuple[str, ...]:
    record = lease.record
    names = ",".join(lease.served_names) or "-"
    if not record.is_kubesched and lease.served_names:
        names += " (kube-scheduler)"
    return (
        lease.key,
        printable(record.holder_identity) or "<none>",
        names,
        ago(lease.renewed_ago(now)),
        expires(lease.expires_in(now)),
        str(record.lease_transitions),
        lease.state(now).value,
    )


def leases_table(leases: list[SchedulerLease], now: datetime) -> str:
    """Aligned columns like `kubectl get`; a note when there is nothing to show."""
    if not leases:
        return "No scheduler Leases found."
    rows = [COLUMNS, *(_cells(lease, now) for lease in leases)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return "\n".join(
        "   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def leases_json(leases: list[SchedulerLease], now: datetime) -> str:
    """`{"leases": [...]}` as JSON."""
    return json.dumps({"leases": [lease_row(lease, now) for lease in leases]}, indent=2)
