"""The PlacementGenerate and PlacementScore runners (upstream `RunPlacementGeneratePlugins`,
`RunPlacementScorePlugins`): the parent placement without a plugin, upstream's texts for no
placement and for failures, normalized and weighted totals, out-of-range scores refused; and
a profile with two PlacementGenerate plugins refused."""

from __future__ import annotations

from collections.abc import Mapping, MutableSequence, Sequence
from typing import Any

import pytest

from kubesched.framework import Code, NodeInfo, Status
from kubesched.framework.placement_points import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
)
from kubesched.model import ApiObject, SchedulingPodGroup
from kubesched.runtime import FrameworkError
from kubesched.runtime.placement_points import run_placement_generate, run_placement_score
from kubesched.runtime.plugin_metrics import PluginMetrics
from kubesched.testing import FakeHandle, build_test_framework, make_node

GROUP = PodGroupInfo(
    SchedulingPodGroup.of(ApiObject.from_json({"metadata": {"name": "pg"}, "spec": {}}))
)
NODES = [NodeInfo(make_node().name(f"n{i}").model()) for i in range(2)]


class _Generator:
    name = "Gen"

    def __init__(self, answer: Sequence[Placement] | Status | Exception) -> None:
        self.answer = answer

    def generate_placements(self, group: PodGroupInfo, parent: Placement, /) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class _Scorer:
    def __init__(self, name: str, scores: list[int], *, factor: int = 0) -> None:
        self.name, self._scores, self._factor = name, iter(scores), factor

    def score_placement(self, group: PodGroupInfo, assignments: PodGroupAssignments, /) -> int:
        return next(self._scores)


class _Normalizing(_Scorer):
    def normalize_placement_score(
        self, group: PodGroupInfo, scores: MutableSequence[int], /
    ) -> Status | None:
        if self._factor < 0:
            return Status(Code.ERROR, "cannot normalize")
        for i, score in enumerate(scores):
            scores[i] = score * self._factor
        return None


def test_without_a_plugin_all_nodes_are_one_placement() -> None:
    placements, status = run_placement_generate([], GROUP, NODES)
    assert status.is_success()
    assert [(p.name, list(p.nodes)) for p in placements] == [("", NODES)]


@pytest.mark.parametrize(
    ("answer", "code", "message"),
    [
        ([], Code.UNSCHEDULABLE, "no feasible placements found"),
        (ValueError("boom"), Code.ERROR, "boom"),
        (Status(Code.UNSCHEDULABLE, "no"), Code.UNSCHEDULABLE, "no"),
    ],
    ids=["none", "raised", "refused"],
)
def test_a_generator_that_gives_nothing(answer: Any, code: Code, message: str) -> None:
    placements, status = run_placement_generate([_Generator(answer)], GROUP, NODES)
    assert placements == []
    assert (status.code, status.message, status.plugin) == (code, message, "Gen")


def _assignments(count: int) -> list[PodGroupAssignments]:
    return [PodGroupAssignments(Placement(f"p{i}", NODES), ()) for i in range(count)]


def test_totals_are_normalized_scores_times_weights() -> None:
    plugins = [_Normalizing("A", [1, 2], factor=10), _Scorer("B", [30, 40])]
    totals, status = run_placement_score(plugins, {"A": 2, "B": 1}, GROUP, _assignments(2))
    assert status.is_success()
    assert totals == [1 * 10 * 2 + 30, 2 * 10 * 2 + 40]


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        (
            _Scorer("A", [101]),
            (
                'applying score defaultWeights on PlacementScore plugins: plugin "A" returns an '
                "invalid score 101, it should in the range of [0, 100] after normalizing"
            ),
        ),
        (
            _Normalizing("A", [1], factor=-1),
            (
                'running NormalizePlacementScore on PlacementScore plugins: plugin "A" failed '
                "with: cannot normalize"
            ),
        ),
    ],
    ids=["out of range", "normalize failed"],
)
def test_scoring_failures_are_errors_with_upstreams_text(plugin: _Scorer, message: str) -> None:
    totals, status = run_placement_score([plugin], {}, GROUP, _assignments(1))
    assert totals == []
    assert (status.code, status.message) == (Code.ERROR, message)


class _OtherGenerator:
    name = "OtherGen"

    def __init__(self, *, args: Mapping[str, Any], handle: Any) -> None:
        del args, handle

    def generate_placements(self, group: PodGroupInfo, parent: Placement, /) -> list[Placement]:
        return [parent]


def test_a_profile_has_at_most_one_placement_generate_plugin() -> None:
    enabled: dict[str, Sequence[str | tuple[str, int]]] = {
        "multiPoint": ["TopologyPlacementGenerator", "OtherGen"]
    }
    with pytest.raises(FrameworkError, match="at most one placement generate plugin"):
        build_test_framework(handle=FakeHandle(), plugins=[_OtherGenerator], enabled=enabled)


def test_plugin_calls_are_timed_at_upstreams_points() -> None:
    metrics = PluginMetrics()
    run_placement_generate([_Generator([Placement("a", NODES)])], GROUP, NODES, metrics=metrics)
    scorer = _Normalizing("A", [1, 2], factor=10)
    run_placement_score([scorer], {"A": 1}, GROUP, _assignments(2), metrics=metrics)
    counts = {key: sum(series.counts) for key, series in metrics.durations.items()}
    assert counts == {
        ("Gen", "PlacementGenerate", "Success"): 1,
        ("A", "PlacementScore", "Success"): 2,
        ("A", "PlacementScoreExtensionNormalize", "Success"): 1,
    }
