"""Raw scores kept from earlier cycles: what the score loop (`scoring.run_score`) asks for the
plugins that signed the pod (the memo key stands for their signatures and the cycle's
skipped plugins, `ResultKeys.score_memo_key`).

Two places keep them:
- the snapshot's score columns (`ScoreColumn`, one per memo key, held by
  `runtime.columns.NodeColumns`), when the nodes come with their positions in the snapshot's
  list whose journal this cycle caught up with: each plugin's raw score of node i is
  `values[plugin][i]`, known where `known[i]` is set; when the feasible nodes run
  contiguously around the list (every node of the window passed), a plugin's scores are a
  slice of its column, not a Python step per node; `static[i]` is the weighted sum of node
  i's scores by the plugins without NormalizeScore, ready to be added once. Only scores in
  [MIN_NODE_SCORE, MAX_NODE_SCORE] are kept for those plugins, so their stored scores need
  no range check; a node scoring out of range is not kept, and the caller scores plugin by
  plugin, reporting the error as before;
- each node's memo (`runtime.memo`) on any other list.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import compress, repeat
from operator import attrgetter, not_
from typing import TYPE_CHECKING, Protocol

from kubesched.framework import interfaces as api
from kubesched.framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.runtime.memo import store

if TYPE_CHECKING:
    from kubesched.runtime.columns import NodeColumns

ScoreRow = Callable[[NodeInfo], list[int]]
"""Every signing plugin's raw score of one node, in the plugins' order (may raise)."""
_MEMO = attrgetter("memo")


class KeptScores(Protocol):
    """The kept raw scores of one cycle's nodes for one memo key."""

    def gather(
        self, plugins: Sequence[api.ScorePlugin], score_row: ScoreRow, static_weights: list[int]
    ) -> tuple[list[list[int]], list[int] | None, int] | None:
        """Per plugin the raw score of each node (kept ones read, the others scored with
        `score_row` and kept), the weighted sum of the plugins with a nonzero
        `static_weights` entry (no NormalizeScore) when kept too, else None, and how many
        nodes were scored afresh. None when a score raised (the caller then scores plugin
        by plugin, reporting the error)."""


class ColumnScores:
    """Kept in the snapshot's score columns, read by position."""

    __slots__ = ("columns", "key", "nodes", "positions")

    def __init__(
        self,
        columns: NodeColumns,
        key: Hashable,
        nodes: Sequence[NodeInfo],
        positions: Sequence[int],
    ) -> None:
        self.columns, self.key, self.nodes, self.positions = columns, key, nodes, positions

    def gather(
        self,
        plugins: Sequence[api.ScorePlugin],  # noqa: ARG002 - the column has one row per plugin
        score_row: ScoreRow,
        static_weights: list[int],
    ) -> tuple[list[list[int]], list[int] | None, int] | None:
        column = self.columns.score_column(self.key, static_weights)
        source = self.nodes

        def row_at(position: int) -> list[int]:
            return score_row(source[position])

        return column.gather(self.positions, row_at)


class NodeMemoScores:
    """Kept in each node's memo under the key: one row of raw scores per node."""

    __slots__ = ("key", "nodes")

    def __init__(self, key: Hashable, nodes: Sequence[NodeInfo]) -> None:
        self.key, self.nodes = key, nodes

    def gather(
        self,
        plugins: Sequence[api.ScorePlugin],
        score_row: ScoreRow,
        static_weights: list[int],  # noqa: ARG002 - a memo keeps raw scores, no totals
    ) -> tuple[list[list[int]], list[int] | None, int] | None:
        key, nodes = self.key, self.nodes
        rows: list[tuple[int, ...] | None] = list(map(dict.get, map(_MEMO, nodes), repeat(key)))
        fresh = 0
        if None in rows:
            try:
                for index, node in enumerate(nodes):
                    if rows[index] is None:
                        row = tuple(score_row(node))
                        store(node.memo, key, row)
                        rows[index] = row
                        fresh += 1
            except Exception:
                return None
        if not rows:
            return [[] for _ in plugins], None, 0
        return [list(column) for column in zip(*rows, strict=True)], None, fresh


Places = tuple[Sequence[NodeInfo], Sequence[int]]
"""A snapshot's node list, and the positions of the nodes to score in it."""


def kept_scores(
    key: Hashable, nodes: Sequence[NodeInfo], places: Places | None, columns: NodeColumns
) -> KeptScores:
    """Where this cycle's kept scores of `nodes` are: the score columns when `places` says
    where the nodes are in the snapshot's list (`columns` caught up with its journal this
    cycle), else the nodes' memos."""
    if places is not None:
        source, positions = places
        return ColumnScores(columns, key, source, positions)
    return NodeMemoScores(key, nodes)


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
