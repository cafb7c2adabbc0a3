"""Score columns (`runtime.score_columns`): scores come back for any set of positions, by
slices when they run contiguously around the list, and only unknown positions are scored; a
score out of range is not kept."""

from __future__ import annotations

import random

import pytest

from kubesched.plugins.helper.normalize import default_normalize_score, go_div
from kubesched.runtime.score_columns import ScoreColumn, _runs


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
