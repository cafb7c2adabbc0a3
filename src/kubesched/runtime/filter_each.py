"""Filter plugins run over many nodes in one loop: the part of a cycle's Filter plugins that
cannot be memoized (`Framework.filter_split`), on every node the memoized part passed.

One call per window of nodes, not a chain of calls per node: with pod (anti-)affinity at
5000 nodes the loop meets 500 nodes a pod, and what costs there is the plugin, not the
runner around it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.plugin_failures import PLUGIN_ERRORS, as_error, raised
from kubesched.framework.status import Code, Status
from kubesched.model import Pod

_SUCCESS_CODE = Code.SUCCESS

Rejection = tuple[int, Status]
"""A node's position and the status that rejected it."""
FilterCalls = list[tuple[str, Callable[[CycleState, Pod, NodeInfo], "Status | None"]]]
"""(plugin name, its filter) in the order they run."""


@dataclass(slots=True)
class FilterRun:
    """One `filter_each` call's nodes and what it found."""

    positions: Sequence[int]
    wanted: int
    """Stop once `taken` holds this many."""
    taken: list[int] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FilterSplit:
    """The running Filter plugins of a cycle in two parts (`Framework.filter_split`)."""

    key: int
    """The memo key of the leading part's results."""
    lead: FilterCalls
    rest: FilterCalls


def filter_each(
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    filters: FilterCalls,
    *,
    run: FilterRun,
    calls: dict[str, int],
) -> tuple[int, Status | None]:
    """Run `filters` on `nodes[p]` for each `p` of `run.positions` in order, each node up to
    its first rejection (`plugin` set): a node that passes goes to `run.taken` until it holds
    `run.wanted`, a rejection to `run.rejected` as (p, status). Returns how many positions
    were consumed and the ERROR status of the next one if it failed (it is not consumed).
    `calls[plugin]` grows by the nodes each plugin ran on."""
    reached = [0] * len(filters)
    try:
        if len(filters) == 1:
            return _one(state, pod, nodes, filters[0], run=run, reached=reached)
        return _several(state, pod, nodes, filters, run=run, reached=reached)
    finally:
        for (name, _), count in zip(filters, reached, strict=True):
            if count:
                calls[name] = calls.get(name, 0) + count


def _one(
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    named: tuple[str, Callable[[CycleState, Pod, NodeInfo], Status | None]],
    *,
    run: FilterRun,
    reached: list[int],
) -> tuple[int, Status | None]:
    """`_several` for one plugin (the usual split: InterPodAffinity or PodTopologySpread
    alone), without the inner loop and its per-node counter."""
    name, filter_ = named
    taken, rejected, wanted = run.taken, run.rejected, run.wanted
    consumed = 0
    for position in run.positions:
        try:
            status = filter_(state, pod, nodes[position])
        except PLUGIN_ERRORS as exc:
            reached[0] += consumed + 1
            return consumed, raised(name, "Filter", exc)
        if status is None or status.code is _SUCCESS_CODE:
            taken.append(position)
            consumed += 1
            if len(taken) >= wanted:
                break
            continue
        if not status.is_rejected():
            reached[0] += consumed + 1
            return consumed, as_error(name, "Filter", status)
        status.plugin = name
        rejected.append((position, status))
        consumed += 1
    reached[0] += consumed
    return consumed, None


def _several(
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    filters: FilterCalls,
    *,
    run: FilterRun,
    reached: list[int],
) -> tuple[int, Status | None]:
    taken, rejected, wanted = run.taken, run.rejected, run.wanted
    consumed = 0
    for position in run.positions:
        node_info = nodes[position]
        for index, (name, filter_) in enumerate(filters):
            reached[index] += 1
            try:
                status = filter_(state, pod, node_info)
            except PLUGIN_ERRORS as exc:
                return consumed, raised(name, "Filter", exc)
            if status is not None and status.code is not _SUCCESS_CODE:
                if not status.is_rejected():
                    return consumed, as_error(name, "Filter", status)
                status.plugin = name
                rejected.append((position, status))
                break
        else:
            taken.append(position)
        consumed += 1
        if len(taken) >= wanted:
            break
    return consumed, None
