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
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from kubesched.framework.cycle_state import CycleState
from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.logkv import kv
from kubesched.framework.nodeinfo import NodeInfo, NodeJournal
from kubesched.framework.status import Code, Status
from kubesched.model import Pod
from kubesched.runtime.batch import OpportunisticBatch, ScoredNode, SortedScoredNodes
from kubesched.runtime.errors import FitError, NoNodesAvailableError, SchedulingError
from kubesched.runtime.framework import Framework
from kubesched.runtime.kept_filters import (
    FeasibleNodes,
    FeasibleWindow,
    FilterPlan,
    plan_filters,
)
from kubesched.runtime.kept_scores import Places
from kubesched.runtime.narrowing import Narrowed
from kubesched.runtime.sampling import num_feasible_nodes_to_find
from kubesched.runtime.scoring import ScoreResult, select_host

logger = logging.getLogger(__name__)
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
    journal: NodeJournal | None = None,
    post_filter: bool = True,
    cycle: int | None = None,
    placement: Sequence[NodeInfo] | None = None,
) -> ScheduleResult:
    """Pick a node: PreFilter, Filter (sampled), PreScore, Score, select the best host.

    Raises NoNodesAvailableError (empty snapshot), FitError (no node fits; PostFilter has run
    and its message is in the error) or SchedulingError (a plugin failed with ERROR).
    `journal` is the snapshot's when `nodes` is its list: results kept by position
    (`runtime.columns`) are then caught up with what changed and reused.
    `post_filter=False` (a member in a pod-group cycle, as upstream) skips PostFilter.
    `cycle` (the queue's scheduling cycle) lets `fw.batch` hint a node and keep this cycle's
    scores; without it the cycle runs in full and leaves the batch alone (explain, tests).
    `placement` (a pod-group cycle's topology placement, upstream `AssumePlacement`): the
    only nodes the pod may go to, among `nodes`; PreFilter still sees all `nodes`.
    """
    if not nodes or (placement is not None and not placement):
        raise NoNodesAvailableError
    batch = None
    if fw.batch is not None and cycle is not None:
        batch = _Batching(fw.batch, fw, state, pod, cycle)
    if journal is not None:
        fw.node_columns.catch_up(journal, nodes)
    feasible, diagnosis = find_nodes_that_fit(
        fw, state, pod, nodes, journal=journal, batch=batch, placement=placement
    )
    if not feasible:
        count = len(nodes if placement is None else placement)
        error = FitError(pod=pod, num_all_nodes=count, diagnosis=diagnosis)
        if post_filter:
            run_post_filter(fw, state, pod, error)
        raise error
    if len(feasible) == 1:
        if batch is not None:
            batch.store(feasible[0].name, None)
        return ScheduleResult(feasible[0].name, 1 + len(diagnosis.node_to_status), 1, None)
    places = None
    if journal is not None and placement is None:
        places = (feasible.source, feasible.positions)
    scores = prioritize_nodes(fw, state, pod, feasible, places=places)
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
    journal: NodeJournal | None = None,
    batch: _Batching | None = None,
    extenders_look: bool = False,
    placement: Sequence[NodeInfo] | None = None,
) -> tuple[FeasibleNodes, Diagnosis]:
    """PreFilter, then Filter over the (restricted) nodes; advances the rotating start index.

    A nominated node, else the batch's hint, is filtered first and taken alone if it fits
    (the start index then stays). `journal`: see `schedule_pod`. `extenders_look`: an
    extender filters or scores the nodes (`scheduler.extender_cycle`), so a profile without
    Score plugins still looks for more than one feasible node, as upstream. `placement`:
    see `schedule_pod` (the nominated node and PreFilter's nodes count only within it)."""
    diagnosis = Diagnosis()
    pre = fw.run_pre_filter(state, pod, nodes)
    within: frozenset[str] | None = None
    if placement is not None:
        within = frozenset(info.name for info in placement)
        nodes, journal = placement, None  # kept columns are by position in the snapshot
    diagnosis.unschedulable_plugins = set(pre.plugins_with_nodes)
    if not pre.status.is_success():
        return FeasibleNodes(nodes, []), _pre_filter_failed(pre.status, diagnosis)
    # As upstream: the hint is asked even for a nominated pod (the batch then says no).
    hint = batch.node_hint() if batch is not None else ""
    if pod.nominated_node_name or hint:
        nominated = _evaluate_nominated_node(fw, state, pod, diagnosis, hint, within=within)
        if nominated is not None:
            return nominated, diagnosis
    candidates = nodes
    if pre.node_names is not None:
        candidates, journal = _restricted(fw, pre.node_names, within), None
        plugins = " ".join(sorted(diagnosis.unschedulable_plugins))
        diagnosis.node_to_status.absent_nodes_status = Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) didn't satisfy plugin(s) [{plugins}]"
        )
    feasible = FeasibleNodes(candidates, [])
    try:
        feasible = find_nodes_that_pass_filters(
            fw, state, pod, diagnosis, candidates, journal=journal, extenders_look=extenders_look
        )
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


def _restricted(
    fw: Framework, names: object, within: frozenset[str] | None = None
) -> list[NodeInfo]:
    """The snapshot's nodes named by a PreFilterResult (unknown names, and names outside
    the placement `within`, are dropped)."""
    assert isinstance(names, frozenset | set)
    kept = sorted(names) if within is None else sorted(names & within)
    found = (fw.handle.get_node_info(name) for name in kept)
    return [node for node in found if node is not None]


def _evaluate_nominated_node(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    hint: str = "",
    *,
    within: frozenset[str] | None = None,
) -> FeasibleNodes | None:
    name = pod.nominated_node_name or hint
    node = fw.handle.get_node_info(name)
    if node is None or (within is not None and name not in within):
        return None  # as upstream, a node outside the placement is not an error
    status = fw.run_filter_with_nominated_pods(state, pod, node)
    if status.is_success():
        return FeasibleNodes([node], [0])
    if status.code is Code.ERROR:
        # As upstream (`HandleErrorWithContext`, then every node is filtered): the error is
        # the full pass's to report if it happens again there.
        logger.error(
            "Evaluation failed on nominated node",
            extra=kv(pod=pod.key, node=node.name, err=status.message),
        )
        return None
    diagnosis.node_to_status.set(node.name, status)
    diagnosis.add_plugin_status(status)
    return None


def find_nodes_that_pass_filters(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    diagnosis: Diagnosis,
    nodes: Sequence[NodeInfo],
    *,
    journal: NodeJournal | None = None,
    extenders_look: bool = False,
) -> FeasibleNodes:
    """Upstream `findNodesThatPassFilters`: Filter nodes from the rotating start index until
    enough feasible ones are found, rejections recorded in `diagnosis` in the order met.

    What earlier cycles found is reused through the cycle's `FilterPlan`
    (`runtime.kept_filters`): only the nodes it does not know run the Filter plugins; a run
    of nodes it knows is taken in one step. `journal` is the snapshot's when `nodes` is its
    list (its columns then hold the results)."""
    count = len(nodes)
    if not count:
        return FeasibleNodes(nodes, [])
    wanted = num_feasible_nodes_to_find(count, fw.percentage_of_nodes_to_score)
    if not fw.has_score_plugins and not extenders_look:
        wanted = 1
    start = fw.next_start_node_index % count
    if not fw.has_filter_plugins:
        return FeasibleNodes(nodes, [(start + i) % count for i in range(wanted)])
    plan = plan_filters(fw, state, pod, nodes, journal)
    window = FeasibleWindow(nodes, wanted, diagnosis, plan.kept, plan.rest)
    taken = filter_around(window, plan, state, pod, start)
    if not taken and isinstance(plan.kept, Narrowed):
        plan.kept.resolve()  # the cycle fails: its diagnosis reads them now
    return FeasibleNodes(nodes, taken)


def filter_around(
    window: FeasibleWindow, plan: FilterPlan, state: CycleState, pod: Pod, start: int
) -> list[int]:
    """The positions of the first nodes that pass, up to the window's `wanted`, met from
    `start` around the window's node list."""
    count = len(window.nodes)
    try:
        for low, high in ((start, count), (0, start)):
            if _filter_range(window, plan, state, pod, (low, high)):
                break
    finally:
        window.hand_over()
    return window.taken


def _filter_range(
    window: FeasibleWindow,
    plan: FilterPlan,
    state: CycleState,
    pod: Pod,
    bounds: tuple[int, int],
) -> bool:
    """Filter the nodes of [low, high) in order into `window`: a run of nodes `plan.kept`
    knows in one step, each other node through `plan.run` (its result then kept). True once
    the window is full."""
    kept, run, nodes = plan.kept, plan.run, window.nodes
    position, high = bounds
    while position < high:
        unknown = kept.next_unknown(position, high)
        stop = high if unknown < 0 else unknown
        if stop > position:
            position = window.known(position, stop)
            if window.full():
                return True
        if unknown < 0:
            return False
        status = run(state, pod, nodes[unknown])
        if status.code is not _ERROR_CODE:
            kept.keep(unknown, status)
        window.fresh(unknown, status)
        if window.full():
            return True
        position = unknown + 1
    return False


def prioritize_nodes(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    *,
    places: Places | None = None,
) -> ScoreResult:
    """Upstream `prioritizeNodes`: PreScore + Score; without score plugins every node
    scores 1. `places`: the snapshot's list whose journal this cycle caught up with and
    the nodes' positions in it (the score columns then hold their kept scores)."""
    if not fw.has_score_plugins:
        return ScoreResult(nodes=nodes, totals=[1] * len(nodes))
    status = fw.run_pre_score(state, pod, nodes)
    if not status.is_success():
        raise SchedulingError(status)
    result = fw.run_score(state, pod, nodes, places=places)
    if not result.status.is_success():
        raise SchedulingError(result.status)
    return result


def run_post_filter(fw: Framework, state: CycleState, pod: Pod, error: FitError) -> None:
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
