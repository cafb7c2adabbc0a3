"""Runs the PlacementFeasible plugins of a pod-group cycle (upstream
`RunPlacementFeasiblePlugins`); the extension point itself is `kubesched.framework.placement`."""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.framework.placement import PlacementFeasiblePlugin, PlacementProgress
from kubesched.framework.plugin_failures import PLUGIN_ERRORS
from kubesched.framework.status import Code, Status
from kubesched.model import SchedulingPodGroup


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
