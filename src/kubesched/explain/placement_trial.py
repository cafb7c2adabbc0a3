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
from kubesched.framework import SUCCESS, Code, CycleState, NodeInfo, PlacementProgress, Status
from kubesched.framework.placement_points import Placement, PodGroupInfo
from kubesched.model import Pod
from kubesched.runtime import (
    FitError,
    Framework,
    NoNodesAvailableError,
    SchedulingError,
    schedule_pod,
)
from kubesched.runtime.placement import walk_pod_group


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
    """The scheduler's statuses exactly (`walk_pod_group`)."""
    members: list[MemberOutcome] = []

    def place(pod: Pod) -> Status:
        member = _place(fw, undo, pod, names)
        members.append(member)
        if member.error is not None:
            return member.error
        return SUCCESS if member.host else Status(Code.UNSCHEDULABLE, member.message)

    progress = PlacementProgress(len(info.scheduled), len(queued))
    plugins = fw.plugins.placement_feasible
    # One placement of several: a success placing no member is refused after the choice.
    status = walk_pod_group(plugins, info.group, progress, queued, place, root=False)
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
