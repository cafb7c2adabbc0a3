"""The PodGroup manager behind Coscheduling (scheduler-plugins' `core.PodGroupManager`): which
members reached Permit, which groups failed recently, when each group started scheduling.
Testable without the framework; all messages are scheduler-plugins'."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from kubesched.errors import KubeschedError
from kubesched.framework.listers import Lister
from kubesched.model import ApiObject, Pod
from kubesched.plugins.coscheduling.podgroup import (
    POD_GROUP_LABEL,
    PODGROUPS,
    PodGroup,
    full_name,
    group_name,
)


class PermitOutcome(Enum):
    NOT_SPECIFIED = "PodGroupNotSpecified"
    NOT_FOUND = "PodGroupNotFound"
    WAIT = "Wait"
    SUCCESS = "Success"


class GangError(KubeschedError):
    """Why PreFilter refuses a member (its text is the FailedScheduling message)."""


@dataclass(slots=True)
class GroupManager:
    """Per-group bookkeeping; `now` is injectable for tests."""

    groups: Lister[ApiObject]
    pods: Lister[Pod]
    now: Callable[[], float] = time.monotonic
    assigned: dict[str, set[str]] = field(default_factory=dict)
    """Group -> names of the members that reached Permit (assumed, waiting or bound)."""
    last_failure: dict[str, float] = field(default_factory=dict)
    """Group -> wall time of its last failure (QueueSort puts it behind newer groups)."""
    backoff_until: dict[str, float] = field(default_factory=dict)
    started: dict[str, str] = field(default_factory=dict)
    """Group -> its scheduleStartTime (RFC 3339), set at its first PreFilter."""

    def group_of(self, pod: Pod) -> PodGroup | None:
        name = group_name(pod)
        obj = self.groups.get(name, pod.namespace) if name else None
        return PodGroup.of(obj) if obj is not None and obj.spec is not None else None

    def members(self, pod: Pod) -> list[Pod]:
        """The pods labelled into the pod's group (bound or pending)."""
        return self.pods.by_label(POD_GROUP_LABEL, group_name(pod), pod.namespace)

    def pre_filter(self, pod: Pod, group: PodGroup) -> None:
        """Raise GangError when the group cannot be scheduled now."""
        name = group.full_name
        if self.backoff_until.get(name, 0.0) > self.now():
            raise GangError(f"podGroup {name} failed recently")
        members = self.members(pod)
        if len(members) < group.min_member:
            raise GangError(
                f"pre-filter pod {pod.name} cannot find enough sibling pods, current pods "
                f"number: {len(members)}, minMember of group: {group.min_member}"
            )
        gated = sum(1 for member in members if member.scheduling_gates)
        if gated > len(members) - group.min_member:
            raise GangError(
                f"pre-filter pod {pod.name} cannot proceed due to gated pods in the same PodGroup"
            )

    def permit(self, pod: Pod) -> tuple[PermitOutcome, int]:
        """Record the pod as assigned; SUCCESS once minMember are (bound members count)."""
        name = full_name(pod)
        if not name:
            return PermitOutcome.NOT_SPECIFIED, 0
        group = self.group_of(pod)
        if group is None:
            return PermitOutcome.NOT_FOUND, 0
        assigned = self.assigned.setdefault(name, set())
        assigned.add(pod.name)
        assigned.update(member.name for member in self.members(pod) if member.node_name)
        if len(assigned) >= group.min_member:
            return PermitOutcome.SUCCESS, len(assigned)
        return PermitOutcome.WAIT, len(assigned)

    def unreserve(self, pod: Pod) -> None:
        name = full_name(pod)
        assigned = self.assigned.get(name)
        if assigned is not None:
            assigned.discard(pod.name)
            if not assigned:
                del self.assigned[name]

    def pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        """A pod lister listener: a bound member deleted leaves its group's assigned
        members (scheduler-plugins' pod informer calls Unreserve on such a deletion), so
        the set holds the members alive, not every pod the group ever had."""
        if new is None and old is not None and old.node_name:
            self.unreserve(old)

    def group_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        """A PodGroup lister listener: a deleted group's bookkeeping goes with it."""
        if new is None and old is not None:
            name = f"{old.namespace}/{old.name}"
            for table in (self.assigned, self.last_failure, self.backoff_until, self.started):
                table.pop(name, None)

    def failed(self, name: str, *, backoff: float = 0.0) -> None:
        """The group failed: it sorts behind others, and is refused for `backoff` seconds."""
        self.last_failure[name] = time.time()
        if backoff > 0:
            self.backoff_until[name] = self.now() + backoff

    def succeeded(self, name: str) -> None:
        self.last_failure.pop(name, None)

    def assigned_count(self, name: str) -> int:
        return len(self.assigned.get(name, ()))


__all__ = ["PODGROUPS", "GangError", "GroupManager", "PermitOutcome"]
