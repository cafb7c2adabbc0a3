"""The placement of a CompositePodGroup tree in one cycle (the `CompositePodGroup` feature
gate; upstream `podGroupSchedulingRecursiveAlgorithm`,
`compositePodGroupSchedulingPlacementAlgorithm`, `compositePodGroupSchedulingDefaultAlgorithm`,
`podGroupSchedulingPlacementAlgorithm` with the gate, `assumeSubtreeWithRevert`,
`completeCompositePodGroupAlgorithmResult`).

* A composite: its PlacementGenerate plugin splits its parent's nodes into placements (its
  own topology constraint, else one placement of them all). On each placement, the
  PlacementFeasible plugins run before the first child (`remaining` = children, `scheduled`
  = 0) and after each child (a child that succeeded counts as scheduled; `minGroupCount`
  for GangScheduling), the children taken by creation time then name, each placed in turn
  within the placement; the trial is undone after the placement. None feasible: `0/N
  placements are available, first placement status: ...`, with the first placement's
  results for the subtree. Else the best by PlacementScore (every leaf's members proposed
  together), whose successful leaves are assumed again so that the next sibling sees them.
* A PodGroup in a tree: as a root PodGroup's placement cycle (`podgroup_placement`), within
  its parent's placement, its chosen members assumed again; a success that placed nobody is
  not refused here (only at the root).
* The root: a success that placed nobody is `pod group is unschedulable`; every trial is
  undone. Then a group that succeeded under a parent that failed takes the parent's status.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import SUCCESS, Code, CycleState, NodeInfo, PlacementProgress, Status
from kubesched.framework.placement_points import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
    ProposedAssignment,
)
from kubesched.model import Pod
from kubesched.plugins.helper.hierarchy import Key
from kubesched.queue import Nominator
from kubesched.runtime import (
    POD_GROUP_UNSCHEDULABLE,
    Framework,
    pod_group_unschedulable,
    run_placement_feasible,
)
from kubesched.runtime.placement_points import run_placement_generate, run_placement_score
from kubesched.scheduler.composite_tree import TreeNode
from kubesched.scheduler.podgroup_algorithm import MemberResult, schedule_group

CHILD_ERROR = "composite pod group evaluation failed due to child error"


@dataclass(slots=True)
class NodeResult:
    """A group's outcome: its status and, for a PodGroup, one result per member tried."""

    node: TreeNode
    status: Status
    members: list[MemberResult] = field(default_factory=list)
    any_scheduled: bool = False


Results = dict[Key, NodeResult]


@dataclass(slots=True)
class TreeRun:
    """The cycle's cache, snapshot and the members assumed so far (undone newest first)."""

    fw: Framework
    cache: SchedulerCache
    snapshot: Snapshot
    nominator: Nominator | None = None
    cycle: int | None = None
    held: list[tuple[CycleState, Pod, str]] = field(default_factory=list)

    def hold(self, members: Sequence[MemberResult]) -> Status:
        """Assume and reserve the placed members (upstream `assumeAndReserveWithRevert`)."""
        status = SUCCESS
        for member in members:
            if not member.status.is_success() or not member.host:
                continue
            assumed = self.cache.assume_pod(member.qpi.pod, member.host)
            reserved = self.fw.run_reserve(member.state, assumed, member.host)
            if not reserved.is_success():
                self.fw.run_unreserve(member.state, assumed, member.host)
                self.cache.forget_pod(assumed)
                status = reserved
                break
            self.held.append((member.state, assumed, member.host))
        self.cache.update_snapshot(self.snapshot)
        return status

    def release(self, mark: int) -> None:
        """Undo what was held after `mark` (`len(held)` then)."""
        while len(self.held) > mark:
            state, assumed, host = self.held.pop()
            self.fw.run_unreserve(state, assumed, host)
            self.cache.forget_pod(assumed)
        self.cache.update_snapshot(self.snapshot)


def schedule_tree(run: TreeRun, root: TreeNode) -> Results:
    """Place the whole tree under `root` (see the module docstring); every trial undone."""
    results: Results = {}
    try:
        outcome = _recurse(run, root, list(run.snapshot.node_infos), results)
        if outcome.status.is_success() and not outcome.any_scheduled:
            outcome.status = pod_group_unschedulable(SUCCESS)
    finally:
        run.release(0)
    _complete(root, results, SUCCESS)
    return results


def _recurse(run: TreeRun, node: TreeNode, nodes: list[NodeInfo], results: Results) -> NodeResult:
    if node.composite is None:
        result = _leaf(run, node, nodes)
    else:
        result = _composite(run, node, nodes, results)
    results[node.key] = result
    return result


def _placements(
    run: TreeRun, info: PodGroupInfo, nodes: list[NodeInfo]
) -> tuple[list[Placement], Status]:
    fw = run.fw
    generators = fw.plugins.placement_generate
    return run_placement_generate(generators, info, nodes, metrics=fw.plugin_metrics)


def _leaf(run: TreeRun, node: TreeNode, nodes: list[NodeInfo]) -> NodeResult:
    """A PodGroup within its parent's placement, its chosen members held."""
    info = PodGroupInfo(node.group, node.scheduled)
    placements, status = _placements(run, info, nodes)
    if not status.is_success():
        return NodeResult(node, Status(status.code, *status.reasons))
    everywhere = len(run.snapshot.node_infos)
    feasible: list[tuple[Placement, NodeResult]] = []
    first: NodeResult | None = None
    for placement in placements:
        names = None
        if len(placement.nodes) != everywhere:
            names = frozenset(info.name for info in placement.nodes)
        tried = schedule_group(
            run.fw,
            cache=run.cache,
            snapshot=run.snapshot,
            group=node.group,
            queued=node.queued,
            scheduled=len(node.scheduled),
            nominator=run.nominator,
            cycle=run.cycle,
            placement=names,
            root=False,
        )
        placed = any(m.status.is_success() and m.host for m in tried.members)
        result = NodeResult(node, tried.status, tried.members, placed)
        if result.status.is_error():
            return result
        first = first or result
        if result.status.is_success():
            feasible.append((placement, result))
    if not feasible:
        assert first is not None
        first.status = _none_available(len(placements), first.status)
        return first
    chosen, scored = _best(run, info, [(p, r.members) for p, r in feasible])
    if not scored.is_success():
        return NodeResult(node, scored)
    best = feasible[chosen][1]
    held = run.hold(best.members)
    if not held.is_success():
        return NodeResult(node, Status(Code.ERROR, f"failed to assume the subtree: {held.message}"))
    return best


def _composite(run: TreeRun, node: TreeNode, nodes: list[NodeInfo], results: Results) -> NodeResult:
    """upstream `compositePodGroupSchedulingPlacementAlgorithm`."""
    info = PodGroupInfo(node.group, node.subtree_scheduled())
    placements, status = _placements(run, info, nodes)
    if not status.is_success():
        return NodeResult(node, Status(status.code, *status.reasons))
    feasible: list[tuple[Placement, Results]] = []
    first: Results | None = None
    for placement in placements:
        subtree: Results = {}
        mark = len(run.held)
        outcome = _composite_default(run, node, list(placement.nodes), subtree)
        run.release(mark)
        if outcome.status.is_error():
            return outcome
        first = first if first is not None else subtree
        if outcome.status.is_success():
            feasible.append((placement, subtree))
    if not feasible:
        assert first is not None
        own = first[node.key]
        own.status = _none_available(len(placements), own.status)
        results.update(first)
        return own
    proposals = [(p, _leaf_members(node, r)) for p, r in feasible]
    chosen, scored = _best(run, info, proposals)
    if not scored.is_success():
        return NodeResult(node, scored)
    best = feasible[chosen][1]
    held = run.hold(_leaf_members(node, best))
    if not held.is_success():
        return NodeResult(node, Status(Code.ERROR, f"failed to assume the subtree: {held.message}"))
    results.update(best)
    return best[node.key]


def _composite_default(
    run: TreeRun, node: TreeNode, nodes: list[NodeInfo], results: Results
) -> NodeResult:
    """upstream `compositePodGroupSchedulingDefaultAlgorithm` on one placement."""
    plugins = run.fw.plugins.placement_feasible
    progress = PlacementProgress(0, len(node.children))
    status = run_placement_feasible(plugins, node.group, progress)
    mark = len(run.held)
    result = NodeResult(node, status)
    results[node.key] = result
    if status.code in (Code.UNSCHEDULABLE, Code.ERROR):
        return result
    for child in node.children:
        child_result = _recurse(run, child, nodes, results)
        if child_result.status.is_error():
            message = f"{CHILD_ERROR}: {child_result.status.message}"
            result.status = Status(Code.ERROR, message)
            run.release(mark)
            return result
        result.any_scheduled = result.any_scheduled or child_result.any_scheduled
        succeeded = child_result.status.is_success()
        progress = PlacementProgress(progress.scheduled + succeeded, progress.remaining - 1)
        status = run_placement_feasible(plugins, node.group, progress)
        if status.code in (Code.UNSCHEDULABLE, Code.ERROR):
            break
    if status.is_wait():
        status = pod_group_unschedulable(status)
    result.status = status
    if not status.is_success():
        run.release(mark)
        result.any_scheduled = False
    return result


def _successful(node: TreeNode, results: Results) -> Iterator[NodeResult]:
    """upstream `successfulLeafResults`: the leaves whose every ancestor succeeded."""
    result = results.get(node.key)
    if result is None or not result.status.is_success():
        return
    for child in node.children:
        yield from _successful(child, results)
    if result.members:
        yield result


def _leaf_members(node: TreeNode, results: Results) -> list[MemberResult]:
    return [member for leaf in _successful(node, results) for member in leaf.members]


def _best(
    run: TreeRun, info: PodGroupInfo, proposals: list[tuple[Placement, list[MemberResult]]]
) -> tuple[int, Status]:
    """The index of the best-scored placement (random among ties), or why none."""
    if len(proposals) == 1:
        return 0, SUCCESS
    fw = run.fw
    assignments = [
        PodGroupAssignments(
            placement,
            tuple(
                ProposedAssignment(m.qpi.pod, m.host, m.state)
                for m in members
                if m.status.is_success() and m.host
            ),
        )
        for placement, members in proposals
    ]
    plugins, weights = fw.plugins.placement_score, fw.placement_score_weights
    totals, status = run_placement_score(
        plugins, weights, info, assignments, metrics=fw.plugin_metrics
    )
    if not status.is_success():
        return 0, status
    top = max(totals)
    return random.choice([i for i, t in enumerate(totals) if t == top]), SUCCESS  # noqa: S311


def _none_available(count: int, first: Status) -> Status:
    """upstream's `0/N placements are available, first placement status: <AsError()>`."""
    reasons = first.reasons
    said = POD_GROUP_UNSCHEDULABLE if reasons[:1] == (POD_GROUP_UNSCHEDULABLE,) else first.message
    message = f"0/{count} placements are available, first placement status: {said}"
    return Status(Code.UNSCHEDULABLE, POD_GROUP_UNSCHEDULABLE, message)


def _complete(node: TreeNode, results: Results, parent: Status) -> None:
    """upstream `completeCompositePodGroupAlgorithmResultMap`: a group without a result, or
    one that succeeded under a parent that failed, takes the parent's status."""
    result = results.get(node.key)
    if result is None or (not parent.is_success() and result.status.is_success()):
        result = NodeResult(node, parent)
        results[node.key] = result
    for child in node.children:
        _complete(child, results, result.status)


__all__ = ["NodeResult", "Results", "TreeRun", "schedule_tree"]
