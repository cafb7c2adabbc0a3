"""Filter results of a snapshot's nodes, kept by position: a column per Filter memo key.

The per-node memo (`runtime.memo`) already spares a stream of like pods the Filter plugins on
every node but the one the previous pod went to; what it still costs is a Python step per
node of the sample (5 % of 65,000 nodes is 3,250 a pod), reading memos scattered in memory. A
column holds the same results as one byte per node in snapshot order (0 unknown, 1 passed,
2 rejected) plus the rejecting statuses, so the window of nodes a cycle filters is found with
C-level scans (`bytearray.find`, `itertools.compress`), and only unknown nodes run the
plugins, one by one and in the order the sequential scan would meet them: the nodes filtered,
the nodes taken and the statuses recorded are exactly those of the scan.

A column is as sound as the memo it replaces: the snapshot hands a node a fresh NodeInfo
whenever anything on it changes, and records its name in its journal
(`framework.nodeinfo.NodeJournal`); the columns forget those positions before each use, and
start over when the snapshot lays its nodes out anew, resets, or its journal no longer
reaches back.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from itertools import compress, islice
from typing import Any, TypeVar

from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.nodeinfo import NodeInfo, NodeJournal
from kubesched.framework.status import Code, Status
from kubesched.runtime.kept_scores import ScoreColumn
from kubesched.runtime.offers import OfferIndex

UNKNOWN, PASSED, REJECTED = 0, 1, 2
_PASSED_MASK = bytes(1 if value == PASSED else 0 for value in range(256))
_REJECTED_MASK = bytes(1 if value == REJECTED else 0 for value in range(256))
MAX_COLUMNS = 16
"""Filter memo keys (pod shapes) kept at once; the least recently used goes first."""
MAX_SCORE_COLUMNS = 8
"""Score memo keys kept at once (a score column holds a list of ints per plugin)."""


class FilterColumn:
    """One memo key's Filter results: `results[i]` for node i of the snapshot's list."""

    __slots__ = ("results", "statuses")

    def __init__(self, size: int) -> None:
        self.results = bytearray(size)
        self.statuses: dict[int, Status] = {}
        """Position -> the rejecting status (for positions marked REJECTED)."""

    def forget(self, positions: Sequence[int]) -> None:
        results, statuses = self.results, self.statuses
        for position in positions:
            results[position] = UNKNOWN
            statuses.pop(position, None)

    def next_unknown(self, position: int, stop: int) -> int:
        return self.results.find(UNKNOWN, position, stop)

    def keep(self, position: int, status: Status) -> None:
        if status.code is Code.SUCCESS:
            self.results[position] = PASSED
        else:
            self.results[position] = REJECTED
            self.statuses[position] = status

    def passing(self, start: int, stop: int, wanted: int) -> list[int]:
        """Up to `wanted` positions in [start, stop) that passed, in order (all known)."""
        if self.results.find(REJECTED, start, stop) < 0:
            return list(range(start, min(stop, start + wanted)))
        mask = self.results[start:stop].translate(_PASSED_MASK)
        return list(islice(compress(range(start, stop), mask), wanted))

    def report_rejected(
        self, start: int, stop: int, nodes: Sequence[NodeInfo], diagnosis: Diagnosis
    ) -> None:
        """Record the rejected positions of [start, stop) in `diagnosis`, in order."""
        if self.results.find(REJECTED, start, stop) < 0:
            return
        mask = self.results[start:stop].translate(_REJECTED_MASK)
        positions = list(compress(range(start, stop), mask))
        found = list(map(self.statuses.__getitem__, positions))
        diagnosis.defer_rejections(list(map(nodes.__getitem__, positions)), found)


class AroundNominated:
    """A Filter column for a cycle while pods are nominated: the nodes holding nominated
    pods (`volatile` positions) are forgotten before the cycle and never kept, so they run
    the Filter plugins afresh, with their nominated pods counted (`runtime.whatif`); every
    other node's result does not depend on nominations and is read and kept as usual."""

    __slots__ = ("column", "volatile")

    def __init__(self, column: FilterColumn, volatile: Collection[int]) -> None:
        column.forget(list(volatile))
        self.column, self.volatile = column, volatile

    def next_unknown(self, position: int, stop: int) -> int:
        return self.column.next_unknown(position, stop)

    def keep(self, position: int, status: Status) -> None:
        if position not in self.volatile:
            self.column.keep(position, status)

    def passing(self, start: int, stop: int, wanted: int) -> list[int]:
        return self.column.passing(start, stop, wanted)

    def report_rejected(
        self, start: int, stop: int, nodes: Sequence[NodeInfo], diagnosis: Diagnosis
    ) -> None:
        self.column.report_rejected(start, stop, nodes, diagnosis)


class NodeColumns:
    """A framework's Filter and Score columns for one snapshot's node list (the one it is
    given), caught up with the snapshot's journal before each cycle's use."""

    __slots__ = ("_filter", "_journal", "_layout", "_nodes", "_offers", "_score", "_version")

    def __init__(self) -> None:
        self._filter: dict[int, FilterColumn] = {}
        self._score: dict[Hashable, ScoreColumn] = {}
        self._journal: NodeJournal | None = None
        self._nodes: Sequence[NodeInfo] | None = None
        self._layout: tuple[int, int, int] = (0, 0, 0)
        self._version = 0
        self._offers: OfferIndex | None = None

    def __len__(self) -> int:
        return len(self._filter) + len(self._score)

    def filter_column(self, key: int) -> FilterColumn:
        """The Filter column of `key` for the nodes of this cycle's `catch_up`."""
        size = self._layout[2]
        return _lru(self._filter, key, MAX_COLUMNS, lambda: FilterColumn(size))

    def score_column(self, key: Hashable, weights: Sequence[int]) -> ScoreColumn:
        """The Score column of `key` (plugins weighted as `weights`, see `ScoreColumn`), for
        the nodes of this cycle's `catch_up`."""
        size = self._layout[2]
        column = _lru(self._score, key, MAX_SCORE_COLUMNS, lambda: ScoreColumn(size, weights))
        if column.weights != tuple(weights):
            column = self._score[key] = ScoreColumn(size, weights)
        return column

    def offers(self) -> OfferIndex:
        """The extended resources the nodes of this cycle's `catch_up` offer, by position."""
        if self._offers is None:
            assert self._nodes is not None
            self._offers = OfferIndex(self._nodes)
        return self._offers

    def catch_up(self, journal: NodeJournal, nodes: Sequence[NodeInfo]) -> None:
        """Forget what changed on `nodes` (a snapshot's list) since the last cycle, as
        `journal` (that snapshot's) says; start over for another list or layout."""
        layout = (journal.journal_epoch, journal.order_version, len(nodes))
        changed: Sequence[str] | None = None
        if journal is self._journal and nodes is self._nodes and layout == self._layout:
            changed = journal.changed_since(self._version)
        self._version = journal.journal_version
        if changed is None:
            self._filter.clear()
            self._score.clear()
            self._journal, self._nodes, self._layout = journal, nodes, layout
            self._offers = None
            return
        if not changed or not (len(self) or self._offers is not None):
            return
        positions = [
            position for name in set(changed) if (position := journal.position(name)) is not None
        ]
        if self._offers is not None:
            self._offers.refresh(positions, nodes)
        for filter_column in self._filter.values():
            filter_column.forget(positions)
        for score_column in self._score.values():
            score_column.forget(positions)


_C = TypeVar("_C")


def _lru(columns: dict[Any, _C], key: Hashable, limit: int, make: Callable[[], _C]) -> _C:
    """`columns[key]`, made if missing, as the most recently used (the oldest goes at
    `limit`)."""
    column = columns.pop(key, None)
    if column is None:
        column = make()
        if len(columns) >= limit:
            del columns[next(iter(columns))]
    columns[key] = column
    return column
