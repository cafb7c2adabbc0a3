"""scheduler-plugins' PodGroup (`scheduling.x-k8s.io/v1alpha1`): the spec Coscheduling reads
and the status it keeps current. Testable without the framework."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubesched.framework.resources import PODS, ResourceSpec
from kubesched.model import ApiObject, Pod, Resource
from kubesched.model.quantity import DECIMAL_SI, Quantity

POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
"""Pods join a PodGroup of their namespace by this label (its value: the group's name)."""

PODGROUPS = ResourceSpec("scheduling.x-k8s.io", "v1alpha1", "podgroups", writes_status=True)
GROUP_PODS = ResourceSpec(PODS.group, PODS.version, PODS.resource, label_indexes=(POD_GROUP_LABEL,))


@dataclass(frozen=True, slots=True)
class PodGroup:
    """The fields of one PodGroup that scheduling reads."""

    namespace: str
    name: str
    min_member: int
    min_resources: Mapping[str, str]
    schedule_timeout_seconds: int | None
    creation_timestamp: str
    obj: ApiObject

    @property
    def full_name(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def of(cls, obj: ApiObject) -> PodGroup:
        spec = obj.spec
        timeout = spec.get("scheduleTimeoutSeconds")
        return cls(
            namespace=obj.namespace,
            name=obj.name,
            min_member=int(spec.get("minMember") or 0),
            min_resources={str(k): str(v) for k, v in (spec.get("minResources") or {}).items()},
            schedule_timeout_seconds=int(timeout) if timeout is not None else None,
            creation_timestamp=obj.creation_timestamp,
            obj=obj,
        )


def group_name(pod: Pod) -> str:
    """The PodGroup a pod joins by label, "" for none."""
    return pod.labels.get(POD_GROUP_LABEL, "")


def full_name(pod: Pod) -> str:
    """`namespace/group` of the pod's PodGroup, "" for none."""
    name = group_name(pod)
    return f"{pod.namespace}/{name}" if name else ""


def wall_time(timestamp: str) -> float:
    """An RFC 3339 time (`2024-05-01T10:00:00Z`) as seconds since the epoch (0 if unset)."""
    if not timestamp:
        return 0.0
    return datetime.fromisoformat(timestamp).timestamp()


def rfc3339(seconds: float | None = None) -> str:
    """Seconds since the epoch (now by default) as the API's timestamp format."""
    moment = datetime.fromtimestamp(time.time() if seconds is None else seconds, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def resource_gap(
    wanted: Mapping[str, str], free: Sequence[Resource], min_member: int
) -> dict[str, int]:
    """What `minResources` (plus `pods: minMember`) lacks after taking the free room of the
    nodes in order, as scheduler-plugins' `CheckClusterResource`; {} when it fits."""
    need = Resource.from_list(dict(wanted))
    gap = {name: need.get(name) for name in need.names()}
    gap["pods"] = min_member
    for room in free:
        for name in list(gap):
            gap[name] -= room.get(name)
            if gap[name] <= 0:
                del gap[name]
        if not gap:
            return {}
    return gap


def gap_message(gap: Mapping[str, int], wanted: Mapping[str, str]) -> str:
    """PreFilter's refusal for a `resource_gap`: each quantity in its canonical text, in the
    format of the `minResources` value it falls short of (`resource gap: map[cpu:1
    memory:512Mi]`). scheduler-plugins means the same text but prints each Quantity's Go
    struct (`map[cpu:{{1000 -3} {<nil>}  DecimalSI}]`, README)."""
    parts = []
    for name, amount in sorted(gap.items()):
        fmt = Quantity.parse(wanted[name]).format if name in wanted else DECIMAL_SI
        quantity = Quantity.milli(amount, fmt) if name == "cpu" else Quantity(amount, fmt)
        parts.append(f"{name}:{quantity}")
    return f"resource gap: map[{' '.join(parts)}]"


def status_of(group: PodGroup, pods: Sequence[Pod], *, started: str) -> dict[str, Any]:
    """The PodGroup status its members show: phase, scheduled, running, scheduleStartTime
    (the scheduler-plugins controller's phases, plus `Scheduled` once minMember are bound)."""
    scheduled = sum(1 for pod in pods if pod.node_name)
    running = sum(1 for pod in pods if pod.phase == "Running")
    succeeded = sum(1 for pod in pods if pod.phase == "Succeeded")
    failed = sum(1 for pod in pods if pod.phase == "Failed")
    status: dict[str, Any] = {
        "phase": _phase(
            group.min_member,
            total=len(pods),
            scheduled=scheduled,
            running=running,
            succeeded=succeeded,
            failed=failed,
        ),
        "scheduled": scheduled,
        "running": running,
        "succeeded": succeeded,
        "failed": failed,
    }
    if started:
        status["scheduleStartTime"] = started
    return status


def occupied_by(group: PodGroup, pods: Sequence[Pod]) -> str:
    """`occupiedBy` as scheduler-plugins' controller writes it: once the group has minMember
    pods, the owners (`namespace/name`, sorted, comma-joined) of its first pod by name; kept
    once set; "" while unset and the first pod has no owner."""
    existing = str(group.obj.status.get("occupiedBy") or "")
    if existing or not pods or len(pods) < group.min_member:
        return existing
    first = min(pods, key=lambda pod: pod.name)
    return ",".join(sorted(f"{first.namespace}/{owner.name}" for owner in first.owners))


def _phase(
    min_member: int, *, total: int, scheduled: int, running: int, succeeded: int, failed: int
) -> str:
    if total < min_member:
        return "Pending"
    if succeeded >= min_member:
        return "Finished"
    if failed and failed + running + succeeded >= min_member:
        return "Failed"
    if running + succeeded >= min_member:
        return "Running"
    if scheduled >= min_member:
        return "Scheduled"
    return "Scheduling"
