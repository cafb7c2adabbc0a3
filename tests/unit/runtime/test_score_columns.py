"""Score columns (`runtime.kept_scores`): scores come back for any set of positions, by
slices when they run contiguously around the list, and only unknown positions are scored; a
score out of range is not kept."""

from __future__ import annotations

import random

import pytest

from kubesched.framework import NodeInfo
from kubesched.plugins.helper.normalize import default_normalize_score, go_div
from kubesched.runtime.kept_scores import ScoreColumn, _runs
from kubesched.runtime.scoring import ScoreResult, _nth_tie, select_host
from kubesched.testing import make_node


def test_runs_are_found_only_without_gaps() -> None:
    assert _runs([], 10) == []
    assert _runs([3, 4, 5], 10) == [(3, 6)]
    assert _runs([8, 9, 0, 1], 10) == [(8, 10), (0, 2)]
    assert _runs([3, 5], 10) is None
    assert _runs([8, 0, 1], 10) is None


@pytest.mark.parametrize("positions", [[2, 3, 4, 5], [8, 9, 0, 1, 2], [1, 4, 7], [9, 0, 5], [6]])
def test_gather_scores_unknown_positions_once(positions: list[int]) -> None:
    column = ScoreColumn(10, [1, 0])  # the second plugin normalizes: not in the totals
    scored: list[int] = []

    def row(position: int) -> list[int]:
        scored.append(position)
        return [position * 10, 100 - position]

    for _ in range(2):
        gathered = column.gather(positions, row)
        assert gathered is not None
        raw, totals, _fresh = gathered
        assert raw == [[p * 10 for p in positions], [100 - p for p in positions]]
        assert totals == [p * 10 for p in positions]
    assert scored == positions
    column.forget([positions[0]])
    gathered = column.gather(positions, row)
    assert gathered is not None
    assert gathered[2] == 1
    assert scored == [*positions, positions[0]]


def test_a_score_out_of_range_is_not_kept() -> None:
    column = ScoreColumn(4, [1])
    assert column.gather([0, 1], lambda position: [101 if position == 1 else 5]) is None
    assert bytes(column.known) == bytes([1, 0, 0, 0])


def _normalized_as_go(scores: list[int], reverse: bool) -> list[int]:
    highest = max(scores, default=0)
    if highest == 0:
        return [100] * len(scores) if reverse else list(scores)
    scaled = [go_div(100 * score, highest) for score in scores]
    return [100 - value for value in scaled] if reverse else scaled


@pytest.mark.parametrize("seed", range(20))
def test_default_normalize_score_is_go_s(seed: int) -> None:
    rng = random.Random(seed)
    low = rng.choice((0, -50))
    scores = [rng.randint(low, 50) for _ in range(rng.randint(0, 12))]
    for reverse in (False, True):
        got = list(scores)
        default_normalize_score(got, reverse=reverse)
        assert got == _normalized_as_go(scores, reverse)


@pytest.mark.parametrize("seed", range(10))
def test_the_nth_tie_is_the_nth_index_of_the_best_total(seed: int) -> None:
    rng = random.Random(seed)
    totals = [rng.choice((7, 7, 7, 3)) for _ in range(rng.randint(1, 700))]
    if 7 not in totals:
        totals[0] = 7
    ties = [index for index, total in enumerate(totals) if total == 7]
    mask = bytes(total == 7 for total in totals)
    assert [_nth_tie(mask, n) for n in range(len(ties))] == ties


def test_select_host_draws_among_the_tied_nodes_as_before() -> None:
    nodes = [NodeInfo(make_node().name(f"n{i}").model()) for i in range(300)]
    totals = [5 if i % 3 else 9 for i in range(300)]
    ties = [index for index, total in enumerate(totals) if total == 9]
    for seed in range(20):
        want = nodes[ties[random.Random(seed).randrange(len(ties))]].name
        got = select_host(ScoreResult(nodes=nodes, totals=totals), rng=random.Random(seed))
        assert got == want
