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

from collections.abc import Callable, Hashable, Sequence
from itertools import compress, islice
from operator import attrgetter
from typing import Any, TypeVar

from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.nodeinfo import NodeInfo, NodeJournal
from kubesched.framework.status import Code, Status
from kubesched.runtime.score_columns import ScoreColumn

UNKNOWN, PASSED, REJECTED = 0, 1, 2
_PASSED_MASK = bytes(1 if value == PASSED else 0 for value in range(256))
_REJECTED_MASK = bytes(1 if value == REJECTED else 0 for value in range(256))
_NAME = attrgetter("name")
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

    def passed(self, position: int) -> None:
        self.results[position] = PASSED

    def rejected(self, position: int, status: Status) -> None:
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
        names = map(_NAME, map(nodes.__getitem__, positions))
        diagnosis.node_to_status.set_many(zip(names, found, strict=True))
        for status in {id(status): status for status in found}.values():
            diagnosis.add_plugin_status(status)


class NodeColumns:
    """A framework's Filter and Score columns for one snapshot's node list (the one it is
    given), caught up with the snapshot's journal before each cycle's use."""

    __slots__ = ("_filter", "_journal", "_layout", "_nodes", "_score", "_version")

    def __init__(self) -> None:
        self._filter: dict[int, FilterColumn] = {}
        self._score: dict[Hashable, ScoreColumn] = {}
        self._journal: NodeJournal | None = None
        self._nodes: Sequence[NodeInfo] | None = None
        self._layout: tuple[int, int, int] = (0, 0, 0)
        self._version = 0

    def __len__(self) -> int:
        return len(self._filter) + len(self._score)

    def filter_column(
        self, journal: NodeJournal, nodes: Sequence[NodeInfo], key: int
    ) -> FilterColumn:
        """The Filter column of `key` for `nodes` (the snapshot's list), caught up with the
        journal; the score columns are caught up with it too (`score_column`)."""
        self._catch_up(journal, nodes)
        return _lru(self._filter, key, MAX_COLUMNS, lambda: FilterColumn(len(nodes)))

    def score_column(self, key: Hashable, weights: Sequence[int]) -> ScoreColumn:
        """The Score column of `key` (plugins weighted as `weights`, see `ScoreColumn`), for
        the nodes of this cycle's `filter_column` call."""
        size = self._layout[2]
        column = _lru(self._score, key, MAX_SCORE_COLUMNS, lambda: ScoreColumn(size, weights))
        if column.weights != tuple(weights):
            column = self._score[key] = ScoreColumn(size, weights)
        return column

    def _catch_up(self, journal: NodeJournal, nodes: Sequence[NodeInfo]) -> None:
        layout = (journal.journal_epoch, journal.order_version, len(nodes))
        changed: Sequence[str] | None = None
        if journal is self._journal and nodes is self._nodes and layout == self._layout:
            changed = journal.changed_since(self._version)
        self._version = journal.journal_version
        if changed is None:
            self._filter.clear()
            self._score.clear()
            self._journal, self._nodes, self._layout = journal, nodes, layout
            return
        if not changed or not len(self):
            return
        positions = [
            position for name in set(changed) if (position := journal.position(name)) is not None
        ]
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


def filter_window(
    column: FilterColumn,
    *,
    nodes: Sequence[NodeInfo],
    start: int,
    wanted: int,
    diagnosis: Diagnosis,
    run_filter: Callable[[int], Status],
    then: ThenRunner | None = None,
) -> list[int]:
    """The positions of the first `wanted` nodes that pass, scanning from `start` around the
    list, as the sequential scan takes them; rejections go to `diagnosis`. Nodes the column
    does not know run `run_filter(position)`, whose result the column keeps (ERROR is not
    kept: `run_filter` raises for it, with the rejections before it already reported).

    With `then`, the column holds the results of the leading Filter plugins only
    (`Framework.filter_split`): the nodes they pass run the plugins after them every time
    (not kept), through `then` (see `ThenRunner`)."""
    window = _Window(column, nodes, wanted, diagnosis, then)
    results = column.results
    for low, high in ((start, len(nodes)), (0, start)):
        position = low
        while position < high:
            unknown = results.find(UNKNOWN, position, high)
            stop = high if unknown < 0 else unknown
            if stop > position:
                position = window.known(position, stop)
                if window.full():
                    return window.taken
            if unknown < 0:
                break
            status = run_filter(unknown)
            if status.code is Code.SUCCESS:
                column.passed(unknown)
                window.candidate(unknown)
            else:
                column.rejected(unknown, status)
                window.reject(unknown, status)
            if window.full():
                return window.taken
            position = unknown + 1
    return window.taken


Rejection = tuple[int, Status]
"""A node's position and the status that rejected it."""
ThenRunner = Callable[
    [Sequence[int], int, list[int], list[Rejection]],
    tuple[int, BaseException | None],
]
"""`then(positions, wanted, taken, rejected) -> (consumed, error)`: run the later Filter
plugins on the nodes at `positions` in order, appending those that pass to `taken` until it
holds `wanted`, and `(position, status)` to `rejected`; returns how many positions it
consumed and, when the next one failed with ERROR, the error to raise (else None)."""


class _Window:
    """The nodes one `filter_window` call has taken so far, and what it reports."""

    __slots__ = ("column", "diagnosis", "nodes", "taken", "then", "wanted")

    def __init__(
        self,
        column: FilterColumn,
        nodes: Sequence[NodeInfo],
        wanted: int,
        diagnosis: Diagnosis,
        then: ThenRunner | None,
    ) -> None:
        self.column, self.nodes, self.wanted = column, nodes, wanted
        self.diagnosis, self.then = diagnosis, then
        self.taken: list[int] = []

    def full(self) -> bool:
        return len(self.taken) >= self.wanted

    def known(self, start: int, stop: int) -> int:
        """Take from [start, stop), all known to the column; returns where it stopped."""
        column, taken = self.column, self.taken
        if self.then is None:
            need = self.wanted - len(taken)
            found = column.passing(start, stop, need)
            taken += found
            cut = found[-1] + 1 if len(found) == need else stop
            column.report_rejected(start, cut, self.nodes, self.diagnosis)
            return cut
        candidates = column.passing(start, stop, stop - start)
        consumed, error = self._then(candidates)
        if error is not None:
            column.report_rejected(start, candidates[consumed], self.nodes, self.diagnosis)
            raise error
        cut = candidates[consumed - 1] + 1 if self.full() else stop
        column.report_rejected(start, cut, self.nodes, self.diagnosis)
        return cut

    def candidate(self, position: int) -> None:
        """A node the column's plugins passed: taken, once `then` passes it too."""
        if self.then is None:
            self.taken.append(position)
            return
        _, error = self._then([position])
        if error is not None:
            raise error

    def _then(self, positions: Sequence[int]) -> tuple[int, BaseException | None]:
        assert self.then is not None
        rejected: list[Rejection] = []
        consumed, error = self.then(positions, self.wanted, self.taken, rejected)
        for position, status in rejected:
            self.reject(position, status)
        return consumed, error

    def reject(self, position: int, status: Status) -> None:
        self.diagnosis.node_to_status.set(self.nodes[position].name, status)
        self.diagnosis.add_plugin_status(status)
