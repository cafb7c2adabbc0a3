"""Filter results kept from earlier cycles: the one object the filter loop asks which nodes
still need the Filter plugins run and what they said last time (`FilterPlan`).

`plan_filters` picks, once per cycle, what may be reused:
- the snapshot's columns (`runtime.columns`), when the cycle filters a snapshot's node list and
  hands over its change journal, and no pod is nominated anywhere;
- the per-node memo (`runtime.memo`) on any other list, or around nodes holding nominated pods
  (those are filtered afresh every time, with their nominated pods counted: `runtime.whatif`);
- nothing, when the leading Filter plugin cannot sign the pod.

Results are kept under the cycle's Filter memo key (`ResultKeys.filter_memo_key`), or, when
only the leading plugins signed the pod, under theirs (`ResultKeys.filter_split`): the plugins
after them then run on every node the kept part passes (`FilterPlan.rest`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.nodeinfo import NodeInfo, NodeJournal
from kubesched.framework.status import Code, Status
from kubesched.model import Pod
from kubesched.runtime.filter_each import FilterCalls
from kubesched.runtime.memo import store

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
        statuses = diagnosis.node_to_status
        for position, status in enumerate(self._statuses(start, stop), start):
            if status.code is not _SUCCESS_CODE:
                statuses.set(nodes[position].name, status)
                diagnosis.add_plugin_status(status)

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
    rest: FilterCalls | None = None
    """Plugins that ran on every node `run` passes, never kept (the split's later part)."""


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
        run = fw.with_nominated_pods(fw.run_filter, key)
        if key is None:
            return FilterPlan(NOTHING_KEPT, run)
        return FilterPlan(NodeMemos(nodes, key, _holds_nominated_pods(fw)), run)
    run, rest = fw.run_filter, None
    if key is None:
        split = fw.filter_split(state, pod)
        if split is None:
            return FilterPlan(NOTHING_KEPT, run)
        key, run, rest = split.key, _leading(fw, split.lead), split.rest
    if journal is None:
        return FilterPlan(NodeMemos(nodes, key), run, rest)
    return FilterPlan(fw.node_columns.filter_column(key), run, rest)


def _leading(fw: Framework, lead: FilterCalls) -> FilterFunc:
    def run_lead(state: CycleState, pod: Pod, node: NodeInfo) -> Status:
        return fw.run_filters(state, pod, node, lead)

    return run_lead


def _holds_nominated_pods(fw: Framework) -> Callable[[NodeInfo], bool]:
    nominated = fw.handle.nominated_pods_for_node

    def holds(node: NodeInfo) -> bool:
        return bool(nominated(node.name))

    return holds
