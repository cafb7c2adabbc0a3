"""Keeps every PodGroup's status current from what its members show (scheduler-plugins runs
a controller for this; kubesched's leader does it itself, so no second component is needed):
phase, scheduled, running, succeeded, failed and scheduleStartTime, patched on `/status`
only when they change."""

from __future__ import annotations

from typing import Any

from kubesched.framework import Handle
from kubesched.model import ApiObject, Pod
from kubesched.plugins.coscheduling.core import GroupManager
from kubesched.plugins.coscheduling.podgroup import (
    PODGROUPS,
    PodGroup,
    group_name,
    rfc3339,
    status_of,
)

_KEPT = ("phase", "scheduled", "running", "succeeded", "failed", "scheduleStartTime")


class StatusKeeper:
    """Recomputes a group's status when one of its members or the group itself changes."""

    def __init__(self, handle: Handle, manager: GroupManager) -> None:
        self._handle = handle
        self._manager = manager
        self._written: dict[str, dict[str, Any]] = {}
        handle.pod_lister().subscribe(self._pod_changed)
        handle.lister(PODGROUPS).subscribe(self._group_changed)

    def scheduling(self, group: PodGroup) -> None:
        """The group passed PreFilter: it has started scheduling (scheduleStartTime)."""
        if group.full_name not in self._manager.started:
            existing = group.obj.status.get("scheduleStartTime") or ""
            self._manager.started[group.full_name] = existing or rfc3339()
        self.refresh(group)

    def refresh(self, group: PodGroup) -> None:
        """Patch the group's status if what its members show differs from it."""
        members = self._manager.pods.by_label(
            "scheduling.x-k8s.io/pod-group", group.name, group.namespace
        )
        started = self._manager.started.get(group.full_name) or str(
            group.obj.status.get("scheduleStartTime") or ""
        )
        wanted = status_of(group, members, started=started)
        current = {key: group.obj.status.get(key) for key in _KEPT}
        current = {key: value for key, value in current.items() if value not in (None, 0)}
        wanted_cmp = {key: value for key, value in wanted.items() if value not in (None, 0)}
        if current == wanted_cmp or self._written.get(group.full_name) == wanted:
            return
        self._written[group.full_name] = wanted
        self._handle.patch_status(PODGROUPS, group.obj, wanted)

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        pod = new or old
        if pod is None or not group_name(pod):
            return
        group = self._manager.group_of(pod)
        if group is not None:
            self.refresh(group)

    def _group_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        if new is None:
            if old is not None:
                self._written.pop(f"{old.namespace}/{old.name}", None)
            return
        group = PodGroup.of(new)
        self._written.pop(group.full_name, None)
        self.refresh(group)
