"""Raw scores of a snapshot's nodes, kept by position: a column per Score memo key.

The Score side of `runtime.columns`: for the plugins that signed the pod (the memo key stands
for them), each plugin's raw score of node i is `values[plugin][i]`, known where
`known[i]` is set. The feasible nodes the filter loop found come with their positions
(`runtime.feasible.FeasibleNodes`); when those run contiguously around the list (every node
of the window passed), a plugin's scores are a slice of its column, not a Python step per
node. `static[i]` is the weighted sum of node i's scores by the plugins without
NormalizeScore: their part of every total, ready to be added once.

Only scores in [MIN_NODE_SCORE, MAX_NODE_SCORE] are kept for those plugins, so their stored
scores need no range check; a node scoring out of range is not kept, and the caller scores
plugin by plugin, reporting the error as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from operator import not_

from kubesched.framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE


class ScoreColumn:
    """One Score memo key's raw scores by snapshot position."""

    __slots__ = ("known", "static", "values", "weights")

    def __init__(self, size: int, weights: Sequence[int]) -> None:
        self.weights = tuple(weights)
        """Per plugin of the key, its weight if it has no NormalizeScore, else 0."""
        self.known = bytearray(size)
        self.values = [[0] * size for _ in weights]
        self.static = [0] * size

    def forget(self, positions: Sequence[int]) -> None:
        known = self.known
        for position in positions:
            known[position] = 0

    def gather(
        self, positions: Sequence[int], score_row: Callable[[int], Sequence[int]]
    ) -> tuple[list[list[int]], list[int], int] | None:
        """Per plugin the raw scores at `positions`, the static totals there, and how many
        nodes were scored afresh (`score_row(position)`, then kept). None when a score
        raised or a plugin without NormalizeScore scored out of range."""
        runs = _runs(positions, len(self.known))
        missing = self._missing(positions, runs)
        for position in missing:
            try:
                row = score_row(position)
            except Exception:
                return None
            if not self._keep(position, row):
                return None
        if runs is None:
            picks = [list(map(column.__getitem__, positions)) for column in self.values]
            return picks, list(map(self.static.__getitem__, positions)), len(missing)
        return (
            [_slices(column, runs) for column in self.values],
            _slices(self.static, runs),
            len(missing),
        )

    def _missing(self, positions: Sequence[int], runs: list[tuple[int, int]] | None) -> list[int]:
        known = self.known
        if runs is None:
            return list(compress(positions, map(not_, map(known.__getitem__, positions))))
        missing: list[int] = []
        for low, high in runs:
            position = known.find(0, low, high)
            while position >= 0:
                missing.append(position)
                position = known.find(0, position + 1, high)
        return missing

    def _keep(self, position: int, row: Sequence[int]) -> bool:
        total = 0
        for weight, value in zip(self.weights, row, strict=True):
            if weight:
                if not MIN_NODE_SCORE <= value <= MAX_NODE_SCORE:
                    return False
                total += weight * value
        for column, value in zip(self.values, row, strict=True):
            column[position] = value
        self.static[position] = total
        self.known[position] = 1
        return True


def _runs(positions: Sequence[int], size: int) -> list[tuple[int, int]] | None:
    """`positions` (increasing, but for one wrap past the end) as at most two contiguous
    ranges, or None when they have gaps."""
    if not positions:
        return []
    first, last, count = positions[0], positions[-1], len(positions)
    if last >= first:
        return [(first, last + 1)] if last - first + 1 == count else None
    if (size - first) + (last + 1) == count:
        return [(first, size), (0, last + 1)]
    return None


def _slices(column: list[int], runs: list[tuple[int, int]]) -> list[int]:
    if len(runs) == 1:
        low, high = runs[0]
        return column[low:high]
    out: list[int] = []
    for low, high in runs:
        out += column[low:high]
    return out
