"""What a pod-group cycle reports besides each member's FailedScheduling: the
`PodGroupInitiallyScheduled` condition of the PodGroup (upstream `updatePodGroupCondition`),
and what PodGroupPostFilter (group preemption, `podgroup_preemption`) adds to a rejected
group's status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from kubesched.apis import names
from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import Code, Status
from kubesched.model import SchedulingPodGroup
from kubesched.model.podgroup import (
    INITIALLY_SCHEDULED,
    REASON_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
)
from kubesched.runtime import Framework

PREEMPTION_PLUGIN = names.DEFAULT_PREEMPTION
PREFIX = "pod group preemption: "


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


def as_post_filter_status(status: Status) -> Status:
    """What upstream's framework makes of DefaultPreemption's PodGroupPostFilter status:
    the message prefixed `pod group preemption: `, an error wrapped."""
    message = f"{PREFIX}{status.message}" if status.message else ""
    if status.is_error():
        wrapped = f'error in "{PREEMPTION_PLUGIN}" PodGroupPostFilter plugins: {message}'
        return Status(Code.ERROR, wrapped, plugin=PREEMPTION_PLUGIN)
    if status.is_success():
        return Status(Code.SUCCESS, message)
    return Status(status.code, message, plugin=PREEMPTION_PLUGIN)


def with_post_filter(status: Status, post_filter: Status) -> Status:
    """Upstream `applyPodGroupPostFilterResult`: an error replaces the group's status, any
    other outcome adds its message as one more reason (an empty one too, as upstream: a
    profile without DefaultPreemption ends the group's message with ", ")."""
    if post_filter.is_error():
        return post_filter
    return Status(status.code, *status.reasons, post_filter.message, plugin=status.plugin)
