"""The Filter loop over nodes whose results may come from their memo (see `memo`).

With a stream of alike pods nearly every node of the window has its Filter result for the
cycle's key already stored, and it is SUCCESS: those nodes are looked up and taken in
C-level loops (`map`, `compress`, slices), and only the others (no stored result, or a
stored rejection) go through the per-node Python path. The result is the one the plain
loop gives: the same feasible nodes in the same order, the same statuses recorded for the
rejected ones, the same stop after `wanted` feasible nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import attrgetter, is_not

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.diagnosis import Diagnosis, SchedulingError
from kubesched.framework.memo import store
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.model import Pod

FilterRun = Callable[[CycleState, Pod, NodeInfo], Status]

_MEMO = attrgetter("memo")
_SUCCESS_CODE = Code.SUCCESS
_ERROR_CODE = Code.ERROR


def pass_filters_memoized(
    run_filter: FilterRun,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    ordered: Sequence[NodeInfo],
    *,
    wanted: int,
    key: int,
) -> list[NodeInfo]:
    """The first `wanted` feasible nodes of `ordered` (fewer if there are not so many);
    rejections are recorded in `diagnosis`; an ERROR raises SchedulingError.

    A window never holds more nodes than feasible ones are still wanted, so every node of
    it is decided and the count cannot overshoot."""
    feasible: list[NodeInfo] = []
    position, total = 0, len(ordered)
    while position < total and len(feasible) < wanted:
        window = ordered[position : position + wanted - len(feasible)]
        position += len(window)
        found = map(dict.get, map(_MEMO, window), repeat(key))
        misses = list(map(is_not, found, repeat(SUCCESS)))
        taken = 0
        for index in compress(range(len(window)), misses):
            feasible += window[taken:index]
            taken = index + 1
            node = window[index]
            status = node.memo.get(key) or _filter_and_store(run_filter, state, pod, node, key)
            code = status.code
            if code is _SUCCESS_CODE:
                feasible.append(node)
            elif code is _ERROR_CODE:
                raise SchedulingError(status)
            else:
                diagnosis.node_to_status.set(node.name, status)
                diagnosis.add_plugin_status(status)
        feasible += window[taken:]
    return feasible


def _filter_and_store(
    run_filter: FilterRun, state: CycleState, pod: Pod, node: NodeInfo, key: int
) -> Status:
    """Run the Filter plugins on `node` and keep the result for `key` (errors are not kept)."""
    status = run_filter(state, pod, node)
    if status.code is not _ERROR_CODE:
        store(node.memo, key, status)
    return status
