"""What a pod-group cycle reports besides each member's FailedScheduling: the
`PodGroupInitiallyScheduled` condition of the PodGroup (upstream `updatePodGroupCondition`),
and the reason PodGroupPostFilter (group preemption) adds to a rejected group's message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import Code, Framework, Status
from kubesched.model import Pod, SchedulingPodGroup
from kubesched.model.podgroup import (
    INITIALLY_SCHEDULED,
    REASON_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
)

PREEMPTION_PLUGIN = "DefaultPreemption"


def _now() -> str:
    return datetime.now(tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition_for(status: Status) -> tuple[str, str, str]:
    """(status, reason, message) of the condition a cycle with this group status sets."""
    if status.is_success():
        return "True", REASON_SCHEDULED, status.message
    if status.is_rejected():
        return "False", REASON_UNSCHEDULABLE, status.message
    return "False", REASON_SCHEDULER_ERROR, status.message


def updated_conditions(
    group: SchedulingPodGroup, status: Status, *, now: str = ""
) -> list[dict[str, Any]] | None:
    """The group's conditions with `PodGroupInitiallyScheduled` set from `status`; None when
    nothing changes (or it is True already: it never goes back to False)."""
    value, reason, message = condition_for(status)
    existing = group.condition(INITIALLY_SCHEDULED)
    if existing is not None and existing.get("status") == "True" and value != "True":
        return None
    new = {
        "type": INITIALLY_SCHEDULED,
        "status": value,
        "observedGeneration": group.generation,
        "lastTransitionTime": now or _now(),
        "reason": reason,
        "message": message,
    }
    if existing is not None:
        if existing.get("status") == value:
            new["lastTransitionTime"] = (
                existing.get("lastTransitionTime") or new["lastTransitionTime"]
            )
        if all(existing.get(key) == new[key] for key in new):
            return None
    others = [dict(c) for c in group.conditions if c.get("type") != INITIALLY_SCHEDULED]
    return [*others, new] if existing is None else _replace(group.conditions, new)


def _replace(conditions: Sequence[Mapping[str, Any]], new: dict[str, Any]) -> list[dict[str, Any]]:
    return [new if c.get("type") == INITIALLY_SCHEDULED else dict(c) for c in conditions]


def patch_condition(fw: Framework, group: SchedulingPodGroup, status: Status) -> None:
    """Write the condition to the PodGroup's status (in the background, while leading)."""
    conditions = updated_conditions(group, status)
    if conditions is not None:
        fw.handle.patch_status(SCHEDULING_PODGROUPS, group.obj, {"conditions": conditions})


def post_filter_reason(fw: Framework, members: Sequence[Pod], bound: Sequence[Pod]) -> str:
    """The reason upstream's PodGroupPostFilter adds to an unschedulable group: kubesched
    does not preempt for a group, so it tells what DefaultPreemption would find when there
    is nothing to preempt, and says group preemption is missing otherwise."""
    if not any(pl.name == PREEMPTION_PLUGIN for pl in fw.plugins.post_filter):
        return ""
    if members and members[0].preemption_policy == "Never":
        return "pod group preemption: not eligible due to preemptionPolicy=Never."
    priority = members[0].priority if members else 0
    if any(pod.priority < priority for pod in bound):
        return "pod group preemption: not implemented by kubesched"
    return "pod group preemption: No preemption victims found for incoming preemptor"


def with_post_filter(status: Status, reason: str) -> Status:
    """Upstream `applyPodGroupPostFilterResult` for an unsuccessful PodGroupPostFilter."""
    if status.code is not Code.UNSCHEDULABLE:
        return status
    return Status(status.code, *status.reasons, reason, plugin=status.plugin)
