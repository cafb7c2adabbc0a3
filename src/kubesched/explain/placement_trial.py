"""One placement tried for a whole pod group, as the scheduler's pod-group cycle tries it
(upstream `podGroupSchedulingDefaultAlgorithm` within a placement): PlacementFeasible before
the first member and after each; each member's cycle (no PostFilter) on the placement's
nodes; a placed member assumed in the cache and reserved so the next sees its room taken.
Every trial is undone (Unreserve, forget) before the function returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code, CycleState, NodeInfo, PlacementProgress, Status
from kubesched.framework.placement_points import Placement, PodGroupInfo
from kubesched.model import Pod
from kubesched.runtime import (
    FitError,
    Framework,
    NoNodesAvailableError,
    SchedulingError,
    run_placement_feasible,
    schedule_pod,
)

POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
"""kube-scheduler's `errPodGroupUnschedulable`, the first reason of a group's rejection."""


@dataclass(slots=True)
class MemberOutcome:
    pod: Pod
    state: CycleState = field(default_factory=CycleState)
    host: str = ""
    message: str = ""
    plugins: tuple[str, ...] = ()
    error: Status | None = None


@dataclass(slots=True)
class GroupTrial:
    status: Status
    members: list[MemberOutcome]


@dataclass(slots=True)
class _Undo:
    fw: Framework
    cache: SchedulerCache
    snapshot: Snapshot
    done: list[tuple[CycleState, Pod, str]] = field(default_factory=list)

    def assume(self, member: MemberOutcome) -> None:
        assumed = self.cache.assume_pod(member.pod, member.host)
        status = self.fw.run_reserve(member.state, assumed, member.host)
        if status.is_success():
            self.done.append((member.state, assumed, member.host))
        else:
            self.fw.run_unreserve(member.state, assumed, member.host)
            self.cache.forget_pod(assumed)
            member.message = f"Reserve on {member.host}: {status.message}"
            member.plugins = (status.plugin,) if status.plugin else ()
            if not status.is_rejected():
                member.error = status
            member.host = ""
        self.cache.update_snapshot(self.snapshot)

    def revert(self) -> None:
        while self.done:
            state, assumed, host = self.done.pop()
            self.fw.run_unreserve(state, assumed, host)
            self.cache.forget_pod(assumed)
        self.cache.update_snapshot(self.snapshot)


def try_placement(
    fw: Framework,
    *,
    cache: SchedulerCache,
    snapshot: Snapshot,
    info: PodGroupInfo,
    queued: Sequence[Pod],
    placement: Placement,
    everywhere: int,
) -> GroupTrial:
    """The group on `placement` (one holding all `everywhere` nodes is no restriction)."""
    names = None
    if len(placement.nodes) != everywhere:
        names = frozenset(node.name for node in placement.nodes)
    undo = _Undo(fw, cache, snapshot)
    try:
        return _run(fw, undo, info, queued, names)
    finally:
        undo.revert()


def _run(
    fw: Framework,
    undo: _Undo,
    info: PodGroupInfo,
    queued: Sequence[Pod],
    names: frozenset[str] | None,
) -> GroupTrial:
    """The scheduler's statuses exactly: a group-level refusal before any member is wrapped
    as `pod group is unschedulable`, one after a member is PlacementFeasible's own."""
    plugins, group = fw.plugins.placement_feasible, info.group
    progress = PlacementProgress(len(info.scheduled), len(queued))
    status = run_placement_feasible(plugins, group, progress)
    if status.is_error():
        return GroupTrial(_error("failed to evaluate placement feasibility", status), [])
    if status.code is Code.UNSCHEDULABLE:
        return GroupTrial(_unschedulable(status), [])
    members: list[MemberOutcome] = []
    any_placed = False
    for pod in queued:
        member = _place(fw, undo, pod, names)
        members.append(member)
        if member.error is not None:
            status = _error("failed to schedule other pod from a pod group", member.error)
            break
        placed = bool(member.host)
        progress = PlacementProgress(progress.scheduled + placed, progress.remaining - 1)
        feasible = run_placement_feasible(plugins, group, progress)
        if feasible.is_error():
            status = _error("failed to evaluate placement feasibility", feasible)
            break
        status = feasible
        if status.code is Code.UNSCHEDULABLE:
            break
        any_placed = any_placed or placed
    if status.is_wait() or (status.is_success() and not any_placed):
        status = _unschedulable(status)
    return GroupTrial(status, members)


def _place(fw: Framework, undo: _Undo, pod: Pod, names: frozenset[str] | None) -> MemberOutcome:
    member = MemberOutcome(pod)
    nodes = undo.snapshot.node_infos
    placement: Sequence[NodeInfo] | None = None
    if names is not None:  # read each time: a trial re-clones the node it assumed on
        placement = [node for node in nodes if node.name in names]
    try:
        found = schedule_pod(
            fw, member.state, pod, nodes, journal=undo.snapshot, post_filter=False,
            placement=placement,
        )  # fmt: skip
    except FitError as err:
        member.message = str(err)
        diagnosis = err.diagnosis
        member.plugins = tuple(
            sorted({*diagnosis.unschedulable_plugins, *diagnosis.pending_plugins})
        )
        return member
    except NoNodesAvailableError as err:
        member.message = str(err)
        return member
    except SchedulingError as err:
        member.message, member.error = err.status.message, err.status
        return member
    member.host = found.suggested_host
    undo.assume(member)
    return member


def _error(prefix: str, status: Status) -> Status:
    return Status(Code.ERROR, f"{prefix}: {status.message}", plugin=status.plugin)


def _unschedulable(status: Status) -> Status:
    reasons = status.reasons if not status.is_success() else ()
    return Status(Code.UNSCHEDULABLE, POD_GROUP_UNSCHEDULABLE, *reasons, plugin=status.plugin)
