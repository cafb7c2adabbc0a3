"""Filter results kept from earlier cycles: the one object the filter loop asks which nodes
still need the Filter plugins run and what they said last time (`FilterPlan`), and what the
loop has taken so far (`FeasibleWindow`, giving `FeasibleNodes`).

`plan_filters` picks, once per cycle, what may be reused:
- the snapshot's columns (`runtime.columns`), when the cycle filters a snapshot's node list and
  hands over its change journal;
- the per-node memo (`runtime.memo`) on any other list;
- with pods nominated anywhere, either of them around the nodes holding nominated pods (those
  are filtered afresh every time, with their nominated pods counted: `runtime.whatif`;
  `columns.AroundNominated`), and never split;
- nothing, when the leading Filter plugin cannot sign the pod.

Results are kept under the cycle's Filter memo key (`ResultKeys.filter_memo_key`), or, when
only the leading plugins signed the pod, under theirs (`ResultKeys.filter_split`): the plugins
after them then run on every node the kept part passes (`FilterPlan.rest`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, overload

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.nodeinfo import NodeInfo, NodeJournal
from kubesched.framework.status import Code, Status
from kubesched.model import Pod
from kubesched.runtime.columns import AroundNominated, FilterColumn
from kubesched.runtime.errors import SchedulingError
from kubesched.runtime.filter_each import FilterCalls, FilterRun
from kubesched.runtime.memo import store
from kubesched.runtime.narrowing import Narrowed, required_resources

if TYPE_CHECKING:
    from kubesched.runtime.framework import Framework

FilterFunc = Callable[[CycleState, Pod, NodeInfo], Status]
_SUCCESS_CODE = Code.SUCCESS
_ERROR_CODE = Code.ERROR


class KeptFilterResults(Protocol):
    """Filter results of the nodes of one list, by position, kept across cycles."""

    def next_unknown(self, position: int, stop: int) -> int:
        """The first position of [position, stop) without a kept result, or -1."""

    def passing(self, start: int, stop: int, wanted: int) -> list[int]:
        """Up to `wanted` positions of [start, stop) (all known) that passed, in order."""

    def report_rejected(
        self, start: int, stop: int, nodes: Sequence[NodeInfo], diagnosis: Diagnosis
    ) -> None:
        """Record the rejected positions of [start, stop) (all known) in `diagnosis`."""

    def keep(self, position: int, status: Status) -> None:
        """Keep a fresh result (never an ERROR) for the next cycle under the same key."""


class NothingKept:
    """No result is kept: every node runs the Filter plugins (so no run of known nodes is
    ever asked about)."""

    __slots__ = ()

    def next_unknown(self, position: int, stop: int) -> int:
        return position if position < stop else -1

    def passing(self, start: int, stop: int, wanted: int) -> list[int]:  # noqa: ARG002 - none known
        return []

    def report_rejected(
        self,
        start: int,  # noqa: ARG002 - none known
        stop: int,  # noqa: ARG002
        nodes: Sequence[NodeInfo],  # noqa: ARG002
        diagnosis: Diagnosis,  # noqa: ARG002
    ) -> None:
        return

    def keep(self, position: int, status: Status) -> None:  # noqa: ARG002 - nothing is kept
        return


NOTHING_KEPT = NothingKept()


class NodeMemos:
    """Results kept in each node's memo under `key` (`runtime.memo`): for lists without a
    journal, and around nodes holding nominated pods (`volatile`: never read nor kept)."""

    __slots__ = ("_found", "_found_from", "key", "nodes", "volatile")

    def __init__(
        self,
        nodes: Sequence[NodeInfo],
        key: int,
        volatile: Callable[[NodeInfo], bool] | None = None,
    ) -> None:
        self.nodes, self.key, self.volatile = nodes, key, volatile
        self._found: list[Status] = []
        self._found_from = 0

    def next_unknown(self, position: int, stop: int) -> int:
        """Walks the memos from `position`; what it read is answered by the next calls."""
        nodes, key, volatile = self.nodes, self.key, self.volatile
        found: list[Status] = []
        self._found, self._found_from = found, position
        while position < stop:
            node = nodes[position]
            status: Status | None = node.memo.get(key)
            if status is None or (volatile is not None and volatile(node)):
                return position
            found.append(status)
            position += 1
        return -1

    def _statuses(self, start: int, stop: int) -> list[Status]:
        offset = start - self._found_from
        return self._found[offset : offset + stop - start]

    def passing(self, start: int, stop: int, wanted: int) -> list[int]:
        taken: list[int] = []
        for position, status in enumerate(self._statuses(start, stop), start):
            if status.code is _SUCCESS_CODE:
                taken.append(position)
                if len(taken) >= wanted:
                    break
        return taken

    def report_rejected(
        self, start: int, stop: int, nodes: Sequence[NodeInfo], diagnosis: Diagnosis
    ) -> None:
        rejected = [
            (nodes[position], status)
            for position, status in enumerate(self._statuses(start, stop), start)
            if status.code is not _SUCCESS_CODE
        ]
        if rejected:
            diagnosis.defer_rejections([node for node, _ in rejected], [s for _, s in rejected])

    def keep(self, position: int, status: Status) -> None:
        node = self.nodes[position]
        if self.volatile is None or not self.volatile(node):
            store(node.memo, self.key, status)


@dataclass(frozen=True, slots=True)
class FilterPlan:
    """What one cycle's filter loop reuses and runs."""

    kept: KeptFilterResults
    run: FilterFunc
    """The Filter plugins whose results `kept` holds, on one node."""
    rest: RestRunner | None = None
    """Runs the plugins after the kept ones on nodes `run` passes, never kept (the split's
    later part, `Framework.filter_each`)."""


def plan_filters(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    journal: NodeJournal | None,
) -> FilterPlan:
    """This cycle's `FilterPlan` over `nodes` (with `journal` when they are a snapshot's list,
    its columns caught up by the caller: `NodeColumns.catch_up`)."""
    key = fw.filter_memo_key(state, pod)
    if fw.has_nominated_pods():
        return _around_nominated(fw, key, nodes, journal)
    run: FilterFunc = fw.run_filter
    rest: RestRunner | None = None
    if key is None:
        split = fw.filter_split(state, pod)
        if split is None:
            if journal is None or not fw.narrowers:
                return FilterPlan(NOTHING_KEPT, run)
            return FilterPlan(_narrowed(fw, state, pod, nodes, None), run)
        key, run, rest = (
            split.key,
            _leading(fw, split.lead),
            _later(fw, state, pod, nodes, split.rest),
        )
    if journal is None:
        return FilterPlan(NodeMemos(nodes, key), run, rest)
    column = fw.node_columns.filter_column(key)
    if rest is None and fw.narrowers:
        return FilterPlan(_narrowed(fw, state, pod, nodes, column), run)
    return FilterPlan(column, run, rest)


def _around_nominated(
    fw: Framework, key: int | None, nodes: Sequence[NodeInfo], journal: NodeJournal | None
) -> FilterPlan:
    run = fw.with_nominated_pods(fw.run_filter, key)
    if key is None:
        return FilterPlan(NOTHING_KEPT, run)
    names = set(fw.handle.nominated_node_names())
    if journal is None:
        return FilterPlan(NodeMemos(nodes, key, _holds_nominated_pods(names)), run)
    positions = {at for name in names if (at := journal.position(name)) is not None}
    return FilterPlan(AroundNominated(fw.node_columns.filter_column(key), positions), run)


def _narrowed(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    column: FilterColumn | None,
) -> KeptFilterResults:
    """`column` (None: nothing kept), or, when the pod asks resources only some nodes
    offer, around them (`runtime.narrowing`; without a column, around one for this cycle)."""
    wanted = required_resources(fw.narrowers, state, pod)
    if not wanted:
        return NOTHING_KEPT if column is None else column
    if column is None:
        column = FilterColumn(len(nodes))
    candidates = fw.node_columns.offers().offering(wanted)
    return Narrowed(column, candidates, nodes, fw.run_filter, (state, pod))


def _leading(fw: Framework, lead: FilterCalls) -> FilterFunc:
    def run_lead(state: CycleState, pod: Pod, node: NodeInfo) -> Status:
        return fw.run_filters(state, pod, node, lead)

    return run_lead


def _later(
    fw: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], rest: FilterCalls
) -> RestRunner:
    def run_rest(run: FilterRun) -> tuple[int, Status | None]:
        return fw.filter_each(state, pod, nodes, rest, run)

    return run_rest


def _holds_nominated_pods(names: set[str]) -> Callable[[NodeInfo], bool]:
    def holds(node: NodeInfo) -> bool:
        return node.node.name in names

    return holds


RestRunner = Callable[[FilterRun], tuple[int, "Status | None"]]
"""Runs the plugins of `FilterPlan.rest` over `run.positions` (`Framework.filter_each`):
returns how many positions it consumed and the ERROR status of the next, else None."""


class FeasibleNodes(Sequence[NodeInfo]):
    """Feasible nodes found by the filter loop: `source[positions[i]]` is the i-th (read
    when asked: a list of them would touch every NodeInfo of the window)."""

    __slots__ = ("positions", "source")

    def __init__(self, nodes: Sequence[NodeInfo], positions: list[int]) -> None:
        self.source = nodes
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, index: int) -> NodeInfo: ...

    @overload
    def __getitem__(self, index: slice) -> list[NodeInfo]: ...

    def __getitem__(self, index: int | slice) -> NodeInfo | list[NodeInfo]:
        if isinstance(index, slice):
            return list(map(self.source.__getitem__, self.positions[index]))
        return self.source[self.positions[index]]

    def __iter__(self) -> Iterator[NodeInfo]:
        return map(self.source.__getitem__, self.positions)

    def __repr__(self) -> str:
        return f"FeasibleNodes({[node.name for node in self]!r})"


class FeasibleWindow:
    """The positions one filter loop has taken, up to `wanted`, and what it reports (the
    nodes the plugins rejected during the loop reach `diagnosis` with `hand_over`)."""

    __slots__ = (
        "_rejected",
        "_rejected_nodes",
        "diagnosis",
        "kept",
        "nodes",
        "rest",
        "taken",
        "wanted",
    )

    def __init__(
        self,
        nodes: Sequence[NodeInfo],
        wanted: int,
        diagnosis: Diagnosis,
        kept: KeptFilterResults,
        rest: RestRunner | None,
    ) -> None:
        self.nodes, self.wanted, self.diagnosis = nodes, wanted, diagnosis
        self.kept, self.rest = kept, rest
        self.taken: list[int] = []
        self._rejected_nodes: list[NodeInfo] = []
        self._rejected: list[Status] = []

    def full(self) -> bool:
        return len(self.taken) >= self.wanted

    def known(self, start: int, stop: int) -> int:
        """Take from [start, stop), whose results are all kept; returns where it stopped."""
        kept, taken = self.kept, self.taken
        if self.rest is None:
            need = self.wanted - len(taken)
            found = kept.passing(start, stop, need)
            taken += found
            cut = found[-1] + 1 if len(found) == need else stop
            self._report(start, cut)
            return cut
        candidates = kept.passing(start, stop, stop - start)
        consumed, error = self._rest(candidates)
        if error is not None:
            self._report(start, candidates[consumed])
            raise SchedulingError(error)
        cut = candidates[consumed - 1] + 1 if self.full() else stop
        self._report(start, cut)
        return cut

    def _report(self, start: int, stop: int) -> None:
        """The kept rejections of [start, stop), after those met before them."""
        self.hand_over()
        self.kept.report_rejected(start, stop, self.nodes, self.diagnosis)

    def fresh(self, position: int, status: Status) -> None:
        """A node the kept part's plugins just ran on (its result already kept)."""
        code = status.code
        if code is Code.SUCCESS:
            if self.rest is None:
                self.taken.append(position)
                return
            _, error = self._rest([position])
            if error is not None:
                raise SchedulingError(error)
            return
        if code is Code.ERROR:
            raise SchedulingError(status)
        self.reject(position, status)

    def _rest(self, positions: Sequence[int]) -> tuple[int, Status | None]:
        assert self.rest is not None
        run = FilterRun(positions, self.wanted, self.taken)
        consumed, error = self.rest(run)
        for position, status in run.rejected:
            self.reject(position, status)
        return consumed, error

    def reject(self, position: int, status: Status) -> None:
        self._rejected_nodes.append(self.nodes[position])
        self._rejected.append(status)

    def hand_over(self) -> None:
        """Give the loop's fresh rejections to the diagnosis (recorded when it is read)."""
        if self._rejected:
            self.diagnosis.defer_rejections(self._rejected_nodes, self._rejected)
            self._rejected_nodes, self._rejected = [], []
