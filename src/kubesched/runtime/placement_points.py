"""Runs the PlacementGenerate and PlacementScore plugins of a pod-group cycle (upstream
`RunPlacementGeneratePlugins`, `RunPlacementScorePlugins`); the extension points themselves
are `kubesched.framework.placement_points`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.placement_points import (
    MAX_PLACEMENT_SCORE,
    MIN_PLACEMENT_SCORE,
    Placement,
    PlacementGeneratePlugin,
    PlacementScoreExtensions,
    PlacementScorePlugin,
    PodGroupAssignments,
    PodGroupInfo,
)
from kubesched.framework.plugin_failures import PLUGIN_ERRORS
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.runtime.plugin_metrics import PluginMetrics, timed_call

NO_FEASIBLE_PLACEMENTS = "no feasible placements found"
"""Upstream's message when the PlacementGenerate plugin returns no placement."""
PLACEMENT_GENERATE = "PlacementGenerate"
PLACEMENT_SCORE = "PlacementScore"
PLACEMENT_NORMALIZE = "PlacementScoreExtensionNormalize"
"""Upstream's extension point labels of the two points' metrics."""


def run_placement_generate(
    plugins: Sequence[PlacementGeneratePlugin],
    group: PodGroupInfo,
    nodes: Sequence[NodeInfo],
    *,
    metrics: PluginMetrics | None = None,
) -> tuple[list[Placement], Status]:
    """The placements to try: the first plugin's (a profile has at most one), or one
    placement of all `nodes` without a plugin. An empty result is UNSCHEDULABLE. With
    `metrics`, the plugin's call is timed (`scheduler_plugin_execution_duration_seconds`,
    always for these points, as upstream)."""
    parent = Placement("", nodes)
    if not plugins:
        return [parent], SUCCESS
    plugin = plugins[0]
    generate = plugin.generate_placements
    if metrics is not None:
        generate = timed_call(metrics, plugin.name, PLACEMENT_GENERATE, generate)
    try:
        result = generate(group, parent)
    except PLUGIN_ERRORS as exc:
        return [], Status(Code.ERROR, str(exc), plugin=plugin.name)
    if isinstance(result, Status):
        if result.is_success():
            return [], Status(Code.UNSCHEDULABLE, NO_FEASIBLE_PLACEMENTS, plugin=plugin.name)
        return [], result.with_plugin(plugin.name)
    if not result:
        return [], Status(Code.UNSCHEDULABLE, NO_FEASIBLE_PLACEMENTS, plugin=plugin.name)
    return list(result), SUCCESS


def run_placement_score(
    plugins: Sequence[PlacementScorePlugin],
    weights: Mapping[str, int],
    group: PodGroupInfo,
    assignments: Sequence[PodGroupAssignments],
    *,
    metrics: PluginMetrics | None = None,
) -> tuple[list[int], Status]:
    """Each placement's total: every plugin's score, normalized, times its weight, summed.
    A plugin's failure is an ERROR status with upstream's texts. `metrics`: see
    `run_placement_generate`."""
    totals = [0] * len(assignments)
    for plugin in plugins:
        scores, status = _scores(plugin, group, assignments, metrics)
        if not status.is_success():
            return [], status
        weight = weights.get(plugin.name, 1)
        for index, score in enumerate(scores):
            if not MIN_PLACEMENT_SCORE <= score <= MAX_PLACEMENT_SCORE:
                message = (
                    "applying score defaultWeights on PlacementScore plugins: plugin "
                    f'"{plugin.name}" returns an invalid score {score}, it should in the range '
                    f"of [{MIN_PLACEMENT_SCORE}, {MAX_PLACEMENT_SCORE}] after normalizing"
                )
                return [], Status(Code.ERROR, message)
            totals[index] += score * weight
    return totals, SUCCESS


def _scores(
    plugin: PlacementScorePlugin,
    group: PodGroupInfo,
    assignments: Sequence[PodGroupAssignments],
    metrics: PluginMetrics | None,
) -> tuple[list[int], Status]:
    """One plugin's scores of every placement, normalized if it can."""
    score = plugin.score_placement
    if metrics is not None:
        score = timed_call(metrics, plugin.name, PLACEMENT_SCORE, score)
    try:
        scores = [score(group, each) for each in assignments]
    except PLUGIN_ERRORS as exc:
        return [], _failed("running PlacementScore plugins", plugin.name, str(exc))
    if isinstance(plugin, PlacementScoreExtensions):
        normalize = plugin.normalize_placement_score
        if metrics is not None:
            normalize = timed_call(metrics, plugin.name, PLACEMENT_NORMALIZE, normalize)
        try:
            status = normalize(group, scores) or SUCCESS
        except PLUGIN_ERRORS as exc:
            status = Status(Code.ERROR, str(exc))
        if not status.is_success():
            where = "running NormalizePlacementScore on PlacementScore plugins"
            return [], _failed(where, plugin.name, status.message)
    return scores, SUCCESS


def _failed(where: str, plugin: str, message: str) -> Status:
    return Status(Code.ERROR, f'{where}: plugin "{plugin}" failed with: {message}')


__all__ = [
    "NO_FEASIBLE_PLACEMENTS",
    "PLACEMENT_GENERATE",
    "PLACEMENT_NORMALIZE",
    "PLACEMENT_SCORE",
    "run_placement_generate",
    "run_placement_score",
]
