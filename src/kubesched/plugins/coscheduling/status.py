"""Keeps PodGroup status current from what the members show (scheduler-plugins runs a
controller for this; kubesched's leader does it itself, so no second component is needed):
phase, scheduled, running, succeeded, failed and scheduleStartTime, patched on `/status`
only when they change.

Members that finish (Succeeded, Failed) leave the pod informer, which like kube-scheduler's
watches non-terminal pods only, and its DELETED event carries the state before (Running). So
when a bound member leaves, the pod is read once from the API server: if it finished, it is
kept per group and still counts (scheduler-plugins' controller lists every pod); a group that
reached Finished or Failed is left as it is, as that controller does.

Only the groups this scheduler schedules: those with a member whose schedulerName is one this
plugin has seen at PreFilter. A group of another scheduler's pods (scheduler-plugins' own, in
the same cluster) is left to that scheduler's status writer, so the two never fight over it."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Coroutine
from typing import Any

from kubesched.framework import Handle, ObjectWriteError
from kubesched.model import ApiObject, Pod
from kubesched.plugins.coscheduling.core import GroupManager
from kubesched.plugins.coscheduling.podgroup import (
    GROUP_PODS,
    POD_GROUP_LABEL,
    PODGROUPS,
    PodGroup,
    full_name,
    group_name,
    occupied_by,
    rfc3339,
    status_of,
)

_KEPT = (
    "phase",
    "occupiedBy",
    "scheduled",
    "running",
    "succeeded",
    "failed",
    "scheduleStartTime",
)

_TERMINAL_PHASES = ("Finished", "Failed")
_TERMINAL_POD_PHASES = ("Succeeded", "Failed")


class StatusKeeper:
    """Recomputes a group's status when one of its members or the group itself changes."""

    def __init__(self, handle: Handle, manager: GroupManager) -> None:
        self._handle = handle
        self._manager = manager
        self._written: dict[str, dict[str, Any]] = {}
        self._schedulers: set[str] = set()
        self._finished: dict[str, dict[str, Pod]] = {}
        """Group -> its members that left the informer in a terminal phase, by name."""
        self._tasks: set[asyncio.Task[None]] = set()
        """Group -> its members that left the informer in a terminal phase, by name."""
        handle.pod_lister().subscribe(self._pod_changed)
        handle.lister(PODGROUPS).subscribe(self._group_changed)

    def seen(self, pod: Pod) -> None:
        """A group member reached PreFilter: its schedulerName is ours, and so are the
        statuses of the groups with members of that name."""
        self._schedulers.add(pod.scheduler_name)

    def scheduling(self, group: PodGroup) -> None:
        """The group passed PreFilter: it has started scheduling (scheduleStartTime)."""
        if group.full_name not in self._manager.started:
            existing = group.obj.status.get("scheduleStartTime") or ""
            self._manager.started[group.full_name] = existing or rfc3339()
        self.refresh(group)

    def refresh(self, group: PodGroup) -> None:
        """Patch the group's status if what its members show differs from it."""
        if group.obj.status.get("phase") in _TERMINAL_PHASES:
            return  # as scheduler-plugins' controller: never reconciled again
        members = self._members(group)
        if not any(member.scheduler_name in self._schedulers for member in members):
            return  # another scheduler's group, or none of its members is ours yet
        started = self._manager.started.get(group.full_name) or str(
            group.obj.status.get("scheduleStartTime") or ""
        )
        wanted = status_of(group, members, started=started)
        if occupied := occupied_by(group, members):
            wanted["occupiedBy"] = occupied
        current = {key: group.obj.status.get(key) for key in _KEPT}
        current = {key: value for key, value in current.items() if value not in (None, 0)}
        wanted_cmp = {key: value for key, value in wanted.items() if value not in (None, 0)}
        if current == wanted_cmp or self._written.get(group.full_name) == wanted:
            return
        self._written[group.full_name] = wanted
        self._handle.patch_status(PODGROUPS, group.obj, wanted)

    def _members(self, group: PodGroup) -> list[Pod]:
        live = self._manager.pods.by_label(POD_GROUP_LABEL, group.name, group.namespace)
        names = {pod.name for pod in live}
        finished = self._finished.get(group.full_name, {})
        return live + [pod for name, pod in finished.items() if name not in names]

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        pod = new or old
        if pod is None or not group_name(pod):
            return
        group = self._manager.group_of(pod)
        if group is None:
            return
        if new is None and pod.node_name and pod.scheduler_name in self._schedulers:
            self._spawn(self._left(pod))
        self.refresh(group)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # driven without an event loop (a synchronous test): skip
            work.close()
            return
        task = loop.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _left(self, pod: Pod) -> None:
        """A bound member left the informer: deleted, or finished? Read it to know."""
        try:
            found = await self._handle.get_object(GROUP_PODS, pod.namespace, pod.name)
        except (ObjectWriteError, KeyError):  # KeyError: an offline handle reads no pods
            return  # deleted (or unreadable): it no longer counts
        phase = str(found.status.get("phase") or "")
        if phase not in _TERMINAL_POD_PHASES or found.uid != pod.uid:
            return
        finished = copy.copy(pod)
        finished.phase = phase
        self._finished.setdefault(full_name(pod), {})[pod.name] = finished
        group = self._manager.group_of(pod)
        if group is not None:
            self.refresh(group)

    def _group_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        if new is None:
            if old is not None:
                self._written.pop(f"{old.namespace}/{old.name}", None)
                self._finished.pop(f"{old.namespace}/{old.name}", None)
            return
        group = PodGroup.of(new)
        self._written.pop(group.full_name, None)
        self.refresh(group)
