"""Find a node for one pod with a profile's Framework (upstream `schedulePod` and helpers).

    result = schedule_pod(framework, state, pod, snapshot_nodes)   # or FitError, ...
    result.suggested_host

Filtering checks nodes starting where the previous cycle of this framework stopped, and
stops once `num_feasible_nodes_to_find` nodes passed: large clusters are sampled, adaptively,
exactly as kube-scheduler does. Given the scheduling cycle's number (`cycle=`), a framework
with OpportunisticBatching (`fw.batch`, `runtime.batch`) first tries the node the previous
pod of the same signature left as next best, as kube-scheduler does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.logkv import kv
from kubesched.framework.nodeinfo import NodeInfo, node_journal
from kubesched.framework.status import Code, Status
from kubesched.model import Pod
from kubesched.runtime.batch import OpportunisticBatch, ScoredNode, SortedScoredNodes
from kubesched.runtime.columns import FilterColumn, Rejection, ThenRunner, filter_window
from kubesched.runtime.errors import FitError, NoNodesAvailableError, SchedulingError
from kubesched.runtime.filter_each import FilterRun, FilterSplit
from kubesched.runtime.framework import Framework
from kubesched.runtime.memo import store
from kubesched.runtime.sampling import num_feasible_nodes_to_find
from kubesched.runtime.score_columns import PositionedNodes
from kubesched.runtime.scoring import ScoreResult, select_host

logger = logging.getLogger(__name__)
_SUCCESS_CODE = Code.SUCCESS
_ERROR_CODE = Code.ERROR


@dataclass(frozen=True, slots=True)
class ScheduleResult:
    suggested_host: str
    evaluated_nodes: int
    """Nodes filtered (feasible + rejected)."""
    feasible_nodes: int
    scores: ScoreResult | None
    """None when a single node was feasible (no scoring needed)."""


def schedule_pod(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    *,
    post_filter: bool = True,
    cycle: int | None = None,
) -> ScheduleResult:
    """Pick a node: PreFilter, Filter (sampled), PreScore, Score, select the best host.

    Raises NoNodesAvailableError (empty snapshot), FitError (no node fits; PostFilter has run
    and its message is in the error) or SchedulingError (a plugin failed with ERROR).
    `post_filter=False` (a member in a pod-group cycle, as upstream) skips PostFilter.
    `cycle` (the queue's scheduling cycle) lets `fw.batch` hint a node and keep this cycle's
    scores; without it the cycle runs in full and leaves the batch alone (explain, tests).
    """
    if not nodes:
        raise NoNodesAvailableError
    batch = None
    if fw.batch is not None and cycle is not None:
        batch = _Batching(fw.batch, fw, state, pod, cycle)
    feasible, diagnosis = find_nodes_that_fit(fw, state, pod, nodes, batch=batch)
    if not feasible:
        error = FitError(pod=pod, num_all_nodes=len(nodes), diagnosis=diagnosis)
        if post_filter:
            _run_post_filter(fw, state, pod, error)
        raise error
    if len(feasible) == 1:
        if batch is not None:
            batch.store(feasible[0].name, None)
        return ScheduleResult(feasible[0].name, 1 + len(diagnosis.node_to_status), 1, None)
    scores = prioritize_nodes(fw, state, pod, feasible)
    host = select_host(scores)
    if batch is not None:
        batch.store(host, scores)
    return ScheduleResult(
        host, len(feasible) + len(diagnosis.node_to_status), len(feasible), scores
    )


@dataclass(slots=True)
class _Batching:
    """One cycle's use of the profile's batch: the hint it gave, what to store after."""

    batch: OpportunisticBatch
    fw: Framework
    state: CycleState
    pod: Pod
    cycle: int
    signature: Hashable = None
    hint: str = ""

    def node_hint(self) -> str:
        """Asked once PreFilter has passed (upstream's `GetNodeHint` call)."""
        self.signature = self.fw.pod_signature(self.state, self.pod)
        self.hint = self.batch.node_hint(self.state, self.pod, self.signature, self.cycle)
        return self.hint

    def store(self, chosen: str, scores: ScoreResult | None) -> None:
        others = None if scores is None else _other_nodes(scores, chosen)
        self.batch.store_results(self.signature, self.hint, chosen, others, self.cycle)


def _other_nodes(scores: ScoreResult, chosen: str) -> SortedScoredNodes:
    """Every scored node but the chosen one, best first (upstream pops the best off the
    sorted list and keeps the rest); made only if the next pod asks for them."""

    def build() -> list[ScoredNode]:
        plugins = scores.plugins
        return [
            ScoredNode(node.name, total, {ps.plugin: ps.raw[index] for ps in plugins})
            for index, (node, total) in enumerate(zip(scores.nodes, scores.totals, strict=True))
            if node.name != chosen
        ]

    return SortedScoredNodes.lazy(len(scores.nodes) - 1, build)


def find_nodes_that_fit(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    *,
    batch: _Batching | None = None,
) -> tuple[Sequence[NodeInfo], Diagnosis]:
    """PreFilter, then Filter over the (restricted) nodes; advances the rotating start index.

    A nominated node, else the batch's hint, is filtered first and taken alone if it fits
    (the start index then stays)."""
    diagnosis = Diagnosis()
    pre = fw.run_pre_filter(state, pod, nodes)
    diagnosis.unschedulable_plugins = set(pre.plugins_with_nodes)
    if not pre.status.is_success():
        return [], _pre_filter_failed(pre.status, diagnosis)
    # As upstream: the hint is asked even for a nominated pod (the batch then says no).
    hint = batch.node_hint() if batch is not None else ""
    if pod.nominated_node_name or hint:
        nominated = _evaluate_nominated_node(fw, state, pod, diagnosis, hint)
        if nominated:
            return nominated, diagnosis
    candidates = nodes
    if pre.node_names is not None:
        candidates = _restricted(fw, pre.node_names)
        plugins = " ".join(sorted(diagnosis.unschedulable_plugins))
        diagnosis.node_to_status.absent_nodes_status = Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) didn't satisfy plugin(s) [{plugins}]"
        )
    feasible: Sequence[NodeInfo] = []
    try:
        feasible = find_nodes_that_pass_filters(fw, state, pod, diagnosis, candidates)
    finally:
        # Always advance, so every node gets its turn even when cycles fail.
        processed = len(feasible) + len(diagnosis.node_to_status)
        fw.next_start_node_index = (fw.next_start_node_index + processed) % len(nodes)
    return feasible, diagnosis


def _pre_filter_failed(status: Status, diagnosis: Diagnosis) -> Diagnosis:
    if not status.is_rejected():
        raise SchedulingError(status)
    diagnosis.node_to_status.absent_nodes_status = status
    diagnosis.pre_filter_msg = status.message
    diagnosis.add_plugin_status(status)
    return diagnosis


def _restricted(fw: Framework, names: object) -> list[NodeInfo]:
    """The snapshot's nodes named by a PreFilterResult (unknown names are dropped)."""
    assert isinstance(names, frozenset | set)
    found = (fw.handle.get_node_info(name) for name in sorted(names))
    return [node for node in found if node is not None]


def _evaluate_nominated_node(
    fw: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, hint: str = ""
) -> list[NodeInfo]:
    node = fw.handle.get_node_info(pod.nominated_node_name or hint)
    if node is None:
        return []
    status = fw.run_filter_with_nominated_pods(state, pod, node)
    if status.is_success():
        return [node]
    if status.code is Code.ERROR:
        # As upstream (`HandleErrorWithContext`, then every node is filtered): the error is
        # the full pass's to report if it happens again there.
        logger.error(
            "Evaluation failed on nominated node",
            extra=kv(pod=pod.key, node=node.name, err=status.message),
        )
        return []
    diagnosis.node_to_status.set(node.name, status)
    diagnosis.add_plugin_status(status)
    return []


def find_nodes_that_pass_filters(
    fw: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: Sequence[NodeInfo]
) -> Sequence[NodeInfo]:
    """Filter nodes from the rotating start index until enough feasible ones are found."""
    count = len(nodes)
    if not count:
        return []
    wanted = num_feasible_nodes_to_find(count, fw.percentage_of_nodes_to_score)
    if not fw.has_score_plugins:
        wanted = 1
    start = fw.next_start_node_index
    if not fw.has_filter_plugins:
        return [nodes[(start + i) % count] for i in range(wanted)]
    memo_key = fw.filter_memo_key(state, pod)
    run_filter: Callable[[CycleState, Pod, NodeInfo], Status] = fw.run_filter
    if fw.has_nominated_pods():
        memo_key, run_filter = None, _with_nominated_pods(fw, memo_key)
    elif (journal := node_journal(nodes)) is not None:
        split = None if memo_key is not None else fw.filter_split(state, pod)
        key = memo_key if split is None else split.key
        if key is not None:
            column = fw.node_columns.filter_column(journal, nodes, key)
            return _by_column(
                fw, state, pod, diagnosis, nodes, column=column, window=(start, wanted), split=split
            )
    ordered = [*nodes[start:], *nodes[:start]] if start else nodes
    return _sequential(
        state, pod, ordered, diagnosis=diagnosis, wanted=wanted, key=memo_key, run=run_filter
    )


def _sequential(
    state: CycleState,
    pod: Pod,
    ordered: Sequence[NodeInfo],
    *,
    diagnosis: Diagnosis,
    wanted: int,
    key: int | None,
    run: Callable[[CycleState, Pod, NodeInfo], Status],
) -> list[NodeInfo]:
    """Filter `ordered` one node at a time (memoized on the nodes under `key`)."""
    feasible: list[NodeInfo] = []
    statuses = diagnosis.node_to_status
    success, error = _SUCCESS_CODE, _ERROR_CODE  # locals: enum attribute reads are slow
    for node in ordered:
        if key is None:
            status = run(state, pod, node)
        else:
            memoized = node.memo.get(key)
            status = memoized or _filter_and_store(run, state, pod, node, key)
        code = status.code
        if code is success:
            feasible.append(node)
            if len(feasible) >= wanted:
                break
        elif code is error:
            raise SchedulingError(status)
        else:
            statuses.set(node.name, status)
            diagnosis.add_plugin_status(status)
    return feasible


def _by_column(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    nodes: Sequence[NodeInfo],
    *,
    column: FilterColumn,
    window: tuple[int, int],
    split: FilterSplit | None,
) -> PositionedNodes:
    """The sequential scan's result over `window` (start, wanted), from the column of this
    cycle's memo key (`runtime.columns`): only nodes it does not know run the Filter
    plugins; with `split`, the column holds the leading plugins' results and the others run
    on every node those pass."""

    def checked(status: Status) -> Status:
        if status.code is _ERROR_CODE:
            raise SchedulingError(status)
        return status

    def run_one(position: int) -> Status:
        return checked(fw.run_filter(state, pod, nodes[position]))

    then: ThenRunner | None = None
    if split is not None:
        lead, rest = split.lead, split.rest

        def run_lead(position: int) -> Status:
            return checked(fw.run_filters(state, pod, nodes[position], lead))

        def run_rest(
            positions: Sequence[int], wanted: int, taken: list[int], rejected: list[Rejection]
        ) -> tuple[int, BaseException | None]:
            run = FilterRun(positions, wanted, taken, rejected)
            consumed, error = fw.filter_each(state, pod, nodes, rest, run)
            return consumed, None if error is None else SchedulingError(error)

        run_one, then = run_lead, run_rest
    start, wanted = window
    positions = filter_window(
        column,
        nodes=nodes,
        start=start,
        wanted=wanted,
        diagnosis=diagnosis,
        run_filter=run_one,
        then=then,
    )
    return PositionedNodes(nodes, positions, fw.node_columns.score_column)


def _with_nominated_pods(
    fw: Framework, key: int | None
) -> Callable[[CycleState, Pod, NodeInfo], Status]:
    """The Filter runner when pods nominated by preemption hold their room (runtime.whatif):
    a node holding some is filtered with them on a kept copy (memoized there under `key`),
    then plainly, memoized on the node under `key` as every other node is."""
    if key is None:
        return fw.with_nominated_pods(fw.run_filter)
    memo_key = key

    def plain(state: CycleState, pod: Pod, node: NodeInfo) -> Status:
        memoized: Status | None = node.memo.get(memo_key)
        return memoized or _filter_and_store(fw.run_filter, state, pod, node, memo_key)

    return fw.with_nominated_pods(plain, memo_key)


def _filter_and_store(
    run_filter: Callable[[CycleState, Pod, NodeInfo], Status],
    state: CycleState,
    pod: Pod,
    node: NodeInfo,
    key: int,
) -> Status:
    """Run the Filter plugins on `node` and keep the result for `key` (errors are not kept)."""
    status = run_filter(state, pod, node)
    if status.code is not _ERROR_CODE:
        store(node.memo, key, status)
    return status


def prioritize_nodes(
    fw: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
) -> ScoreResult:
    """PreScore + Score; without score plugins every node scores 1 (upstream)."""
    if not fw.has_score_plugins:
        return ScoreResult(nodes=nodes, totals=[1] * len(nodes))
    status = fw.run_pre_score(state, pod, nodes)
    if not status.is_success():
        raise SchedulingError(status)
    result = fw.run_score(state, pod, nodes)
    if not result.status.is_success():
        raise SchedulingError(result.status)
    return result


def _run_post_filter(fw: Framework, state: CycleState, pod: Pod, error: FitError) -> None:
    """Upstream runs PostFilter (preemption) on a FitError; its message joins the error's."""
    if not fw.has_post_filter_plugins:
        return
    result, status = fw.run_post_filter(state, pod, error.diagnosis.node_to_status)
    error.diagnosis.post_filter_msg = status.message
    # Upstream does not count PostFilter plugins among the rejecting ones: requeueing
    # follows the Filter plugins' events.
    if result is None:
        error.keep_nomination = True
    else:
        error.nominated_node_name = result.nominated_node_name
