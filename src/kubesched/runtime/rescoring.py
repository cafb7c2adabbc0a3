"""Scoring one node at a time and normalizing afterwards (upstream `RunRawScorePlugins` and
`NormalizeScores`): what OpportunisticBatching (`runtime.batch`) rescores a hinted node with."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from kubesched.framework import interfaces as api
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import Status
from kubesched.model import Pod
from kubesched.runtime.scoring import normalize_raw_scores, raw_scores

if TYPE_CHECKING:
    from kubesched.runtime.framework import PluginLists

F = TypeVar("F", bound=Callable[..., Any])


class Rescoring:
    """Mixin of `Framework`: the batch's score runners."""

    plugins: PluginLists
    score_weights: dict[str, int]

    def metered(self, state: CycleState, plugin: str, point: str, call: F) -> F:
        raise NotImplementedError  # BindingCycle's

    def run_raw_scores(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[dict[str, int], Status]:
        """The Score plugins that run in this cycle on one node, without NormalizeScore or
        weight (upstream `RunRawScorePlugins`; the batch rescores a node with it)."""
        return raw_scores(
            state=state,
            pod=pod,
            node=node_info,
            plugins=self._running_scores(state),
            metered=self.metered,
        )

    def normalize_scores(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        raw: Sequence[Mapping[str, int]],
    ) -> tuple[list[int], Status]:
        """The totals of `nodes` from their raw scores: NormalizeScore, weights, sum
        (upstream `NormalizeScores`)."""
        result = normalize_raw_scores(
            state=state,
            pod=pod,
            nodes=nodes,
            raw=raw,
            plugins=self._running_scores(state),
            weights=self.score_weights,
            metered=self.metered,
        )
        return result.totals, result.status

    def _running_scores(self, state: CycleState) -> list[api.ScorePlugin]:
        skip = state.skip_score_plugins
        return [pl for pl in self.plugins.score if pl.name not in skip]
