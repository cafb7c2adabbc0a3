"""The default pod-group scheduling algorithm (upstream `podGroupSchedulingDefaultAlgorithm`,
`GenericWorkload` feature gate): every member is placed in turn on one snapshot, each placed
member assumed and reserved as a trial so the next one sees its room taken;
PlacementFeasible runs before the first member and after each one, and stops the cycle as
soon as the group cannot meet its constraints. Every trial is undone at the end, whatever
the outcome: the caller commits the placements (assume, Reserve, Permit, bind) only if the
group as a whole succeeded.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import SUCCESS, Code, CycleState, NodeInfo, PlacementProgress, Status
from kubesched.model import Pod, SchedulingPodGroup
from kubesched.queue import Nominator, QueuedPodInfo
from kubesched.runtime import (
    FitError,
    Framework,
    NoNodesAvailableError,
    SchedulingError,
    schedule_pod,
)
from kubesched.runtime.placement import walk_pod_group
from kubesched.scheduler.binder import rejected_on_node


@dataclass(slots=True)
class MemberResult:
    """One member's outcome in the cycle: the node it was placed on, or why not."""

    qpi: QueuedPodInfo
    state: CycleState = field(default_factory=CycleState)
    host: str = ""
    status: Status = SUCCESS
    rejectors: set[str] = field(default_factory=set)
    """The plugins that rejected the member (for requeueing)."""


@dataclass(slots=True)
class GroupResult:
    """The group's status and one result per member tried (in order)."""

    status: Status
    members: list[MemberResult]


@dataclass(slots=True)
class _Trial:
    fw: Framework
    cache: SchedulerCache
    snapshot: Snapshot
    nominator: Nominator | None = None
    """As upstream's assume, a placed member's nomination is dropped; the revert restores it."""
    cycle: int | None = None
    """The group's scheduling cycle, shared by its members (OpportunisticBatching's)."""
    placement: AbstractSet[str] | None = None
    """The names of the nodes the members may go to (a topology placement); None: all."""
    undo: list[tuple[CycleState, Pod, str]] = field(default_factory=list)
    group_state: CycleState = field(default_factory=CycleState)
    """Shared by the members' cycle states (upstream's PodGroup cycle state)."""
    nominated: list[tuple[Pod, str]] = field(default_factory=list)

    def place(self, qpi: QueuedPodInfo) -> MemberResult:
        result = MemberResult(qpi)
        result.state.pod_group_cycle = self.group_state
        placement: Sequence[NodeInfo] | None = None
        if self.placement is not None:
            # Read each time: a trial re-clones the NodeInfo of the node it assumed on.
            placement = placement_infos(self.snapshot, self.placement)
        try:
            found = schedule_pod(
                self.fw,
                result.state,
                qpi.pod,
                self.snapshot.node_infos,
                journal=self.snapshot,
                post_filter=False,
                cycle=self.cycle,
                placement=placement,
            )
        except FitError as err:
            result.rejectors = {
                *err.diagnosis.unschedulable_plugins,
                *err.diagnosis.pending_plugins,
            }
            result.status = Status(Code.UNSCHEDULABLE, str(err))
            return result
        except NoNodesAvailableError as err:
            result.status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
            return result
        except SchedulingError as err:
            result.status = err.status
            return result
        result.host = found.suggested_host
        self._assume(result)
        return result

    def _assume(self, result: MemberResult) -> None:
        assumed = self.cache.assume_pod(result.qpi.pod, result.host)
        status = self.fw.run_reserve(result.state, assumed, result.host)
        if not status.is_success():
            self.fw.run_unreserve(result.state, assumed, result.host)
            self.cache.forget_pod(assumed)
            if status.is_rejected():
                status = rejected_on_node(result.qpi, result.host, status)
                result.rejectors = set(result.qpi.unschedulable_plugins)
            result.status, result.host = status, ""
        else:
            self.undo.append((result.state, assumed, result.host))
            self._drop_nomination(result.qpi.pod)
        self.cache.update_snapshot(self.snapshot)

    def _drop_nomination(self, pod: Pod) -> None:
        node = self.nominator.node_of(pod.uid) if self.nominator is not None else ""
        if self.nominator is not None and node:
            self.nominator.delete(pod.uid)
            self.nominated.append((pod, node))

    def revert(self) -> None:
        """Undo every trial, newest first (Unreserve, forget the assumed pod)."""
        while self.undo:
            state, assumed, host = self.undo.pop()
            self.fw.run_unreserve(state, assumed, host)
            self.cache.forget_pod(assumed)
        while self.nominator is not None and self.nominated:
            pod, node = self.nominated.pop()
            self.nominator.add(pod, node_name=node)
        self.cache.update_snapshot(self.snapshot)


def placement_infos(snapshot: Snapshot, names: AbstractSet[str]) -> list[NodeInfo]:
    """The snapshot's NodeInfos of the nodes `names`, in `node_infos` order, found by
    position: the cost is the placement's size, not the cluster's (a group of a 5000-node
    cluster tries 50 racks of 100 nodes for each member)."""
    found = sorted(p for name in names if (p := snapshot.position(name)) is not None)
    infos = snapshot.node_infos
    return [infos[p] for p in found]


def schedule_group(
    fw: Framework,
    *,
    cache: SchedulerCache,
    snapshot: Snapshot,
    group: SchedulingPodGroup,
    queued: list[QueuedPodInfo],
    scheduled: int,
    nominator: Nominator | None = None,
    cycle: int | None = None,
    placement: AbstractSet[str] | None = None,
    root: bool = True,
) -> GroupResult:
    """Try every member of `queued` (`scheduled` members are already bound or assumed);
    `cycle` is the group's scheduling cycle (None: the profile's batch is left alone);
    `placement` names the only nodes the members may go to (None: every node); `root`:
    this is the whole cycle, not one placement's trial (see `walk_pod_group`)."""
    trial = _Trial(fw, cache, snapshot, nominator, cycle, placement)
    members: list[MemberResult] = []

    def place(qpi: QueuedPodInfo) -> Status:
        members.append(trial.place(qpi))
        return members[-1].status

    progress = PlacementProgress(scheduled, len(queued))
    try:
        plugins = fw.plugins.placement_feasible
        status = walk_pod_group(plugins, group, progress, queued, place, root=root)
        return GroupResult(status, members)
    finally:
        trial.revert()
