"""Scoring: run Score plugins over the feasible nodes, normalize, weigh, sum, pick a host.

`ScoreResult` keeps every plugin's raw, normalized and weighted scores, so the scheduler
(or an `explain` command) can show why a node won.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import add, eq, mul
from typing import Any, TypeAlias, TypeVar, cast

from kubesched.framework import interfaces as api
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from kubesched.framework.logkv import kv
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.plugin_failures import PLUGIN_ERRORS
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.model import Pod
from kubesched.runtime.kept_scores import KeptScores

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
Metered: TypeAlias = Callable[[CycleState, str, str, Callable[..., Any]], Callable[..., Any]]
"""`(state, plugin, point, call) -> call`, timed on sampled cycles (`Framework.metered`)."""
Evaluated: TypeAlias = Callable[[str, str, int], None]
"""`(plugin, point, count)`: the nodes a plugin really evaluated."""


def _unmetered(
    _state: CycleState, _plugin: str, _point: str, call: Callable[..., Any]
) -> Callable[..., Any]:
    return call


def _uncounted(_plugin: str, _point: str, _count: int) -> None:
    return


@dataclass(frozen=True, slots=True)
class _Meter:
    """This cycle's `Metered` and `Evaluated`, bound to its state."""

    state: CycleState
    metered: Metered
    count: Evaluated

    def timed(self, plugin: str, point: str, call: F) -> F:
        return cast("F", self.metered(self.state, plugin, point, call))

    def evaluated(self, plugin: str, point: str, count: int) -> None:
        self.count(plugin, point, count)


@dataclass(slots=True)
class PluginScores:
    """One plugin's scores; index i is the i-th scored node."""

    plugin: str
    weight: int
    raw: list[int]
    """What `score()` returned."""
    normalized: list[int]
    """After `normalize_score` (the same values when the plugin has none)."""

    def weighted(self, index: int) -> int:
        return self.normalized[index] * self.weight


@dataclass(slots=True)
class ScoreResult:
    """Scores of `nodes` (same order); `totals[i]` is the weighted sum for `nodes[i]`."""

    nodes: Sequence[NodeInfo]
    totals: list[int] = field(default_factory=list)
    plugins: list[PluginScores] = field(default_factory=list)
    status: Status = SUCCESS

    def explain(self, node_name: str) -> dict[str, tuple[int, int, int]]:
        """Plugin -> (raw, normalized, weighted) for one node."""
        index = next(i for i, node in enumerate(self.nodes) if node.name == node_name)
        return {
            ps.plugin: (ps.raw[index], ps.normalized[index], ps.weighted(index))
            for ps in self.plugins
        }


def run_score(
    *,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    plugins: Sequence[api.ScorePlugin],
    weights: dict[str, int],
    kept: tuple[frozenset[str], KeptScores] | None = None,
    metered: Metered = _unmetered,
    evaluated: Evaluated = _uncounted,
) -> ScoreResult:
    """Upstream `RunScorePlugins`: score every node with every plugin, normalize, weigh.

    With `kept` (the plugins that signed the pod, and where their raw scores of earlier
    cycles are kept: `runtime.kept_scores`), those plugins' kept scores are read and new
    ones kept; the other plugins score every node. `metered` times a plugin call on
    sampled cycles, `evaluated` counts the nodes a plugin really scored
    (`runtime.plugin_metrics`)."""
    meter = _Meter(state, metered, evaluated)
    result = ScoreResult(nodes=nodes, totals=[0] * len(nodes))
    columns: dict[int, list[int]] = {}
    summed: frozenset[int] = frozenset()
    if kept is not None:
        signed, store = kept
        memoized = [i for i, pl in enumerate(plugins) if pl.name in signed]
        found = _gather(
            [plugins[i] for i in memoized],
            store,
            state=state,
            pod=pod,
            weights=weights,
            meter=meter,
        )
        if found is not None:
            raw, totals = found
            columns = dict(zip(memoized, raw, strict=True))
            if totals is not None:
                result.totals = totals
                summed = frozenset(i for i in memoized if not _normalizes(plugins[i]))
    for index, pl in enumerate(plugins):
        raw_scores = columns.get(index)
        scores, status = _score_plugin(
            pl,
            state,
            pod,
            nodes,
            weights[pl.name],
            meter=meter,
            raw=raw_scores,
            checked=index in summed,
        )
        if not status.is_success():
            return ScoreResult(nodes=nodes, status=status)
        assert scores is not None
        result.plugins.append(scores)
        if index not in summed:
            result.totals = _add_weighted(result.totals, scores.normalized, scores.weight)
    return result


def _normalizes(plugin: api.ScorePlugin) -> bool:
    return getattr(plugin, "normalize_score", None) is not None


def _gather(
    plugins: Sequence[api.ScorePlugin],
    kept: KeptScores,
    *,
    state: CycleState,
    pod: Pod,
    weights: dict[str, int],
    meter: _Meter,
) -> tuple[list[list[int]], list[int] | None] | None:
    """The kept raw scores of `plugins` (the others are scored afresh and kept), and the
    weighted sum of those without NormalizeScore when kept too; None when there is no
    plugin or one raised (then each plugin is scored on its own, reporting the error)."""
    if not plugins:
        return None
    score_fns = [meter.timed(pl.name, "Score", pl.score) for pl in plugins]

    def score_row(node: NodeInfo) -> list[int]:
        return [score(state, pod, node) for score in score_fns]

    static = [0 if _normalizes(pl) else weights[pl.name] for pl in plugins]
    gathered = kept.gather(plugins, score_row, static)
    if gathered is None:
        return None
    raw, totals, fresh = gathered
    if fresh:
        for pl in plugins:
            meter.evaluated(pl.name, "Score", fresh)
    return raw, totals


def raw_scores(
    *,
    state: CycleState,
    pod: Pod,
    node: NodeInfo,
    plugins: Sequence[api.ScorePlugin],
    metered: Metered = _unmetered,
) -> tuple[dict[str, int], Status]:
    """Upstream `RunRawScorePlugins`: what each plugin's `score()` returns for one node (no
    NormalizeScore, no weight)."""
    scores: dict[str, int] = {}
    for pl in plugins:
        try:
            scores[pl.name] = metered(state, pl.name, "Score", pl.score)(state, pod, node)
        except PLUGIN_ERRORS as exc:
            return {}, _error(pl.name, f"Score: {type(exc).__name__}: {exc}", exc)
    return scores, SUCCESS


def normalize_raw_scores(
    *,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    raw: Sequence[Mapping[str, int]],
    plugins: Sequence[api.ScorePlugin],
    weights: dict[str, int],
    metered: Metered = _unmetered,
) -> ScoreResult:
    """Upstream `NormalizeScores`: each plugin's NormalizeScore over the raw scores of `nodes`
    (`raw[i]` is node i's plugin -> score; a plugin missing there scores 0), weighed and
    summed. Without plugins every total is 0."""
    meter = _Meter(state, metered, _uncounted)
    result = ScoreResult(nodes=nodes, totals=[0] * len(nodes))
    for pl in plugins:
        column = [scores.get(pl.name, 0) for scores in raw]
        scores, status = _score_plugin(
            pl, state, pod, nodes, weights[pl.name], meter=meter, raw=column
        )
        if not status.is_success():
            return ScoreResult(nodes=nodes, status=status)
        assert scores is not None
        result.plugins.append(scores)
        result.totals = _add_weighted(result.totals, scores.normalized, scores.weight)
    return result


def _add_weighted(totals: list[int], scores: list[int], weight: int) -> list[int]:
    """`totals[i] + scores[i] * weight` for every i (C-level loops: this runs per node)."""
    if _constant(scores):  # e.g. TaintToleration where no node has PreferNoSchedule taints
        return list(map(add, totals, repeat(scores[0] * weight)))
    if weight == 1:
        return list(map(add, totals, scores))
    return list(map(add, totals, map(mul, scores, repeat(weight))))


def _score_plugin(
    pl: api.ScorePlugin,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    weight: int,
    *,
    meter: _Meter,
    raw: list[int] | None = None,
    checked: bool = False,
) -> tuple[PluginScores | None, Status]:
    """One plugin's scores (`raw` given: already scored); `checked`: `raw` is known to be in
    range and the plugin has no NormalizeScore (a score column's)."""
    name = pl.name
    if raw is None:
        score = meter.timed(name, "Score", pl.score)
        try:
            raw = [score(state, pod, node) for node in nodes]
        except PLUGIN_ERRORS as exc:
            return None, _error(name, f"Score: {type(exc).__name__}: {exc}", exc)
        meter.evaluated(name, "Score", len(nodes))
    normalized = raw
    normalize = getattr(pl, "normalize_score", None)
    if normalize is not None:
        normalized = list(raw)
        try:
            status = meter.timed(name, "ScoreExtensionNormalize", normalize)(state, pod, normalized)
        except PLUGIN_ERRORS as exc:
            return None, _error(name, f"NormalizeScore: {type(exc).__name__}: {exc}", exc)
        if status is not None and status.code is not Code.SUCCESS:
            return None, _error(name, f"NormalizeScore: {status.message}", status.error)
    if checked:
        return PluginScores(plugin=name, weight=weight, raw=raw, normalized=raw), SUCCESS
    if _constant(normalized):
        in_range = MIN_NODE_SCORE <= normalized[0] <= MAX_NODE_SCORE
    else:
        in_range = not normalized or (
            max(normalized) <= MAX_NODE_SCORE and min(normalized) >= MIN_NODE_SCORE
        )
    if not in_range:
        value = next(v for v in normalized if v > MAX_NODE_SCORE or v < MIN_NODE_SCORE)
        return None, _error(
            name,
            f"returns an invalid score {value}, it should in the range of"
            f" [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",
            None,
        )
    return PluginScores(plugin=name, weight=weight, raw=raw, normalized=normalized), SUCCESS


def _constant(scores: list[int]) -> bool:
    """Whether every score is the first one (`count` compares the shared small ints by
    identity: much cheaper than a pass that computes)."""
    return bool(scores) and scores.count(scores[0]) == len(scores)


def _error(plugin: str, detail: str, exc: BaseException | None) -> Status:
    if exc is not None:
        logger.error("Score plugin failed", extra=kv(plugin=plugin), exc_info=exc)
    return Status(
        Code.ERROR, f'running Score plugins: plugin "{plugin}" {detail}', plugin=plugin, error=exc
    )


def select_host(result: ScoreResult, *, rng: random.Random | None = None) -> str:
    """The node with the highest total; ties broken uniformly at random (as upstream's
    reservoir sampling, with one draw among the tied nodes)."""
    totals = result.totals
    if not totals:
        raise ValueError("empty priority list")
    best = max(totals)
    tied = totals.count(best)
    if tied == 1:
        return result.nodes[totals.index(best)].name
    pick = (rng or _RNG).randrange(tied)
    return result.nodes[_nth_tie(bytes(map(eq, totals, repeat(best))), pick)].name


def _nth_tie(mask: bytes, n: int) -> int:
    """The index of the `n`-th (from 0) one in `mask` (of zeros and ones): halving by
    counts, then a short scan, so no list of the tied indexes is built."""
    low, high = 0, len(mask)
    while high - low > 64:
        middle = (low + high) // 2
        ones = mask.count(1, low, middle)
        if n < ones:
            high = middle
        else:
            n -= ones
            low = middle
    index = mask.index(1, low)
    for _ in range(n):
        index = mask.index(1, index + 1)
    return index


_RNG = random.Random()  # noqa: S311 - spreading ties between nodes, not cryptography
