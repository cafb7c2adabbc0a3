"""Nodes a cycle need not filter one by one: those without an extended resource the pod asks.

A pod asking for an extended resource (`foo.com/bar-7`, `nvidia.com/gpu`) that no
DeviceClass provides fits only the nodes whose allocatable offers it: NodeResourcesFit
rejects every other node (`Insufficient foo.com/bar-7`, or an earlier Filter plugin does).
When each pod asks for a resource of its own (scheduler_perf's SchedulingWithExtendedResource:
pod i asks `foo.com/bar-<i>`, only node i has it), no kept result helps and the filter loop
would run the plugins on every node to find one. Here a Filter plugin may name, once per
cycle, the resources a node must offer to pass it (`required_node_resources`); the nodes of
the snapshot's list that offer them all are found in an index by resource
(`OfferIndex`, kept in `runtime.columns.NodeColumns` and caught up with the snapshot's
journal), and the others are known rejected before the loop starts (`Narrowed`).

Nothing the cycle decides changes: the loop meets the nodes in the same order, takes the same
feasible ones and counts the same rejected ones (the rotating start index moves as before);
only the rejected nodes' statuses are left unread. They are what the Filter plugins say on
that node (the first rejecting plugin's, as ever) and are computed when the diagnosis reads
them, or at the end of the scan when no node passed (the cycle then fails and reports them).
Narrowing is used only when every Filter plugin ahead of the naming one is an in-tree plugin
whose Filter never fails with an error (`_PLAIN_LEADERS`): a node skipped could not have
stopped the scan with an error either.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from itertools import compress
from typing import Protocol, TypeVar, overload, runtime_checkable

from kubesched.apis import names
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import Code, Status
from kubesched.model import Pod
from kubesched.runtime.columns import _REJECTED_MASK, PASSED, REJECTED, FilterColumn
from kubesched.runtime.errors import SchedulingError

_PLAIN_LEADERS = frozenset(
    {
        names.NODE_UNSCHEDULABLE,
        names.NODE_NAME,
        names.TAINT_TOLERATION,
        names.NODE_AFFINITY,
        names.NODE_PORTS,
    }
)
"""In-tree Filter plugins that only pass or reject (never an ERROR status, never raise)."""


@runtime_checkable
class NarrowingFilter(Protocol):
    """A Filter plugin that can name resources a node must offer to pass it."""

    name: str

    def required_node_resources(self, state: CycleState, pod: Pod) -> Collection[str]:
        """Extended resources whose allocatable must be above zero on a node for this
        plugin's Filter to pass it (after its PreFilter ran this cycle); empty: none."""


Narrower = Callable[[CycleState, Pod], Collection[str]]
_T = TypeVar("_T")


def narrowers(filters: Sequence[object]) -> list[tuple[str, Narrower]]:
    """The narrowing Filter plugins of `filters` (in order) usable as the module says."""
    found: list[tuple[str, Narrower]] = []
    for plugin in filters:
        name = getattr(plugin, "name", "")
        if isinstance(plugin, NarrowingFilter):
            found.append((name, plugin.required_node_resources))
        if name not in _PLAIN_LEADERS:
            break
    return found


def required_resources(
    found: Sequence[tuple[str, Narrower]], state: CycleState, pod: Pod
) -> set[str]:
    """The resources every node must offer this cycle (plugins skipped by PreFilter aside)."""
    wanted: set[str] = set()
    skip = state.skip_filter_plugins
    for name, required in found:
        if name not in skip:
            wanted.update(required(state, pod))
    return wanted


class _Rejections:
    """The rejected positions of [start, stop) of a `Narrowed`, found when first read."""

    __slots__ = ("_positions", "_statuses", "bounds", "narrowed")

    def __init__(self, narrowed: Narrowed, start: int, stop: int) -> None:
        self.narrowed, self.bounds = narrowed, (start, stop)
        self._positions: list[int] | None = None
        self._statuses: list[Status] | None = None

    def positions(self) -> list[int]:
        if self._positions is None:
            start, stop = self.bounds
            mask = self.narrowed.results[start:stop].translate(_REJECTED_MASK)
            self._positions = list(compress(range(start, stop), mask))
        return self._positions

    def statuses(self) -> list[Status]:
        if self._statuses is None:
            self._statuses = list(map(self.narrowed.status_at, self.positions()))
        return self._statuses


class _Lazy(Sequence[_T]):
    """A list of `count` items made by `make` when first read."""

    __slots__ = ("_count", "_make")

    def __init__(self, count: int, make: Callable[[], list[_T]]) -> None:
        self._count, self._make = count, make

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> _T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[_T]: ...

    def __getitem__(self, index: int | slice) -> _T | Sequence[_T]:
        return self._make()[index]

    def __iter__(self) -> Iterator[_T]:
        return iter(self._make())


class Narrowed(FilterColumn):
    """A cycle's kept Filter results (`kept_filters.KeptFilterResults`) when only the nodes
    at `candidates` may pass: every other position is known rejected, its status resolved
    by `run` (the Filter plugins on that node) when read; the candidates read and keep
    their results in `column` (the memo key's), as the plain column would."""

    __slots__ = ("_lazy", "column", "nodes", "pod", "run", "state")

    def __init__(
        self,
        column: FilterColumn,
        candidates: Sequence[int],
        nodes: Sequence[NodeInfo],
        run: Callable[[CycleState, Pod, NodeInfo], Status],
        state_and_pod: tuple[CycleState, Pod],
    ) -> None:
        super().__init__(0)
        results = bytearray([REJECTED]) * len(column.results)
        inner = column.results
        for position in candidates:
            results[position] = inner[position]
        self.results, self.column, self.nodes, self.run = results, column, nodes, run
        self.state, self.pod = state_and_pod
        self._lazy: list[_Rejections] = []

    def keep(self, position: int, status: Status) -> None:
        self.column.keep(position, status)
        self.results[position] = PASSED if status.code is Code.SUCCESS else REJECTED

    def passing(self, start: int, stop: int, wanted: int) -> list[int]:
        found: list[int] = []
        find = self.results.find
        position = find(PASSED, start, stop)
        while position >= 0 and len(found) < wanted:
            found.append(position)
            position = find(PASSED, position + 1, stop)
        return found

    def report_rejected(
        self, start: int, stop: int, nodes: Sequence[NodeInfo], diagnosis: Diagnosis
    ) -> None:
        count = self.results.count(REJECTED, start, stop)
        if not count:
            return
        rejections = _Rejections(self, start, stop)
        self._lazy.append(rejections)

        def rejected_nodes() -> list[NodeInfo]:
            return list(map(nodes.__getitem__, rejections.positions()))

        lazy_nodes: Sequence[NodeInfo] = _Lazy(count, rejected_nodes)
        diagnosis.defer_rejections(lazy_nodes, _Lazy(count, rejections.statuses))

    def status_at(self, position: int) -> Status:
        """The Filter plugins' status of a rejected position."""
        kept = self.column.statuses.get(position)
        if kept is not None:
            return kept
        status = self.run(self.state, self.pod, self.nodes[position])
        if status.code is Code.SUCCESS:  # a narrowing plugin named a resource it does not need
            raise SchedulingError(Status(Code.ERROR, f"node {self.nodes[position].name} passed"))
        if status.code is Code.ERROR:
            raise SchedulingError(status)
        return status

    def resolve(self) -> None:
        """Read every status now (the scan found no node: the cycle fails on them)."""
        for rejections in self._lazy:
            rejections.statuses()
