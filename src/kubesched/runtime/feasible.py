"""The feasible nodes one filter loop finds (`FeasibleNodes`), and what it has taken so far
(`FeasibleWindow`): taken in the order the nodes are met, rejections recorded in the cycle's
`Diagnosis` in that same order, a run of nodes whose results are kept taken in one step."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import Code, Status
from kubesched.runtime.errors import SchedulingError
from kubesched.runtime.filter_each import FilterRun
from kubesched.runtime.kept_filters import KeptFilterResults

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
    """The positions one filter loop has taken, up to `wanted`, and what it reports."""

    __slots__ = ("diagnosis", "kept", "nodes", "rest", "taken", "wanted")

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
            kept.report_rejected(start, cut, self.nodes, self.diagnosis)
            return cut
        candidates = kept.passing(start, stop, stop - start)
        consumed, error = self._rest(candidates)
        if error is not None:
            kept.report_rejected(start, candidates[consumed], self.nodes, self.diagnosis)
            raise SchedulingError(error)
        cut = candidates[consumed - 1] + 1 if self.full() else stop
        kept.report_rejected(start, cut, self.nodes, self.diagnosis)
        return cut

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
        self.diagnosis.node_to_status.set(self.nodes[position].name, status)
        self.diagnosis.add_plugin_status(status)
