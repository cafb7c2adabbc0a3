"""Raw scores kept from earlier cycles: what the score loop (`scoring.run_score`) asks for the
plugins that signed the pod (the memo key stands for their signatures and the cycle's
skipped plugins, `ResultKeys.score_memo_key`).

Two places keep them:
- the snapshot's score columns (`runtime.score_columns`), when the nodes come with their
  positions in the snapshot's list whose journal this cycle caught up with;
- each node's memo (`runtime.memo`) on any other list.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Protocol

from kubesched.framework import interfaces as api
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.runtime.columns import NodeColumns
from kubesched.runtime.memo import store

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
