"""Runs the PlacementFeasible plugins of a pod-group cycle (upstream
`RunPlacementFeasiblePlugins`); the extension point itself is `kubesched.framework.placement`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from kubesched.framework.placement import PlacementFeasiblePlugin, PlacementProgress
from kubesched.framework.plugin_failures import PLUGIN_ERRORS
from kubesched.framework.status import Code, Status
from kubesched.model import SchedulingPodGroup

T = TypeVar("T")


def run_placement_feasible(
    plugins: Sequence[PlacementFeasiblePlugin],
    group: SchedulingPodGroup,
    progress: PlacementProgress,
) -> Status:
    """Upstream `RunPlacementFeasiblePlugins`: the first UNSCHEDULABLE stops, a WAIT is
    remembered, anything else is an error."""
    result = Status.success()
    for pl in plugins:
        try:
            status = pl.placement_feasible(group, progress)
        except PLUGIN_ERRORS as exc:
            return Status(Code.ERROR, f"running PlacementFeasible plugin: {exc}", plugin=pl.name)
        if status is None or status.is_success():
            continue
        if status.code is Code.WAIT:
            result = status.with_plugin(pl.name)
            continue
        if status.code is Code.UNSCHEDULABLE:
            return status.with_plugin(pl.name)
        if status.is_error():
            message = f"running PlacementFeasible plugin: {status.message}"
            return Status(Code.ERROR, message, plugin=pl.name)
        message = f"unexpected status from PlacementFeasible plugin: {status.code}"
        return Status(Code.ERROR, message, plugin=pl.name)
    return result


POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
"""Upstream's `errPodGroupUnschedulable`, the first reason of a group's rejection."""
_FEASIBILITY = "failed to evaluate placement feasibility"


def walk_pod_group(
    plugins: Sequence[PlacementFeasiblePlugin],
    group: SchedulingPodGroup,
    progress: PlacementProgress,
    members: Iterable[T],
    place: Callable[[T], Status],
    *,
    root: bool = True,
) -> Status:
    """Upstream `podGroupSchedulingDefaultAlgorithm`'s walk: PlacementFeasible before the
    first member and after each one; `place` tries one member (success: placed, rejected:
    not placed, anything else: an error that stops the walk). The statuses are upstream's
    exactly: a group-level refusal before any member is wrapped as `pod group is
    unschedulable`, one after a member is PlacementFeasible's own. `root`: the walk is the
    whole cycle (no placements), so a success that placed no member (a group scheduled
    before, none of its extra members fitting) is refused here as upstream's
    `runRootSchedulingAlgorithm` refuses it; within one of several placements it stays a
    success and the placement algorithm refuses it after choosing (`podgroup_placement`)."""
    status = run_placement_feasible(plugins, group, progress)
    if status.is_error():
        return _error(_FEASIBILITY, status)
    if status.code is Code.UNSCHEDULABLE:
        return pod_group_unschedulable(status)
    status, any_placed = _walk_members(plugins, group, progress, members, place, status=status)
    if status.is_wait() or (root and status.is_success() and not any_placed):
        return pod_group_unschedulable(status)
    return status


def _walk_members(
    plugins: Sequence[PlacementFeasiblePlugin],
    group: SchedulingPodGroup,
    progress: PlacementProgress,
    members: Iterable[T],
    place: Callable[[T], Status],
    *,
    status: Status,
) -> tuple[Status, bool]:
    """The members in turn, until one fails with an error or PlacementFeasible refuses;
    the last status and whether any member was placed."""
    any_placed = False
    for member in members:
        outcome = place(member)
        placed = outcome.is_success()
        if not placed and not outcome.is_rejected():
            return _error("failed to schedule other pod from a pod group", outcome), any_placed
        progress = PlacementProgress(progress.scheduled + placed, progress.remaining - 1)
        status = run_placement_feasible(plugins, group, progress)
        if status.is_error():
            return _error(_FEASIBILITY, status), any_placed
        if status.code is Code.UNSCHEDULABLE:
            return status, any_placed
        any_placed = any_placed or placed
    return status, any_placed


def pod_group_unschedulable(status: Status) -> Status:
    """`pod group is unschedulable`, followed by `status`'s reasons unless it succeeded."""
    reasons = status.reasons if not status.is_success() else ()
    return Status(Code.UNSCHEDULABLE, POD_GROUP_UNSCHEDULABLE, *reasons, plugin=status.plugin)


def _error(prefix: str, status: Status) -> Status:
    return Status(Code.ERROR, f"{prefix}: {status.message}", plugin=status.plugin)
