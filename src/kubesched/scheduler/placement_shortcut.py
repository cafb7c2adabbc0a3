"""Placements whose trial is known to succeed without running it (the placement algorithm
of `podgroup_placement`, `TopologyAwareWorkloadScheduling`).

Upstream tries the whole group on every placement (at 5000 nodes in 50 racks, a gang of 4
is 200 member cycles) and scores the feasible ones. For the PodGroupPodsCount score only
two things of a placement's trial count: whether it succeeded, and how many members it
placed. This module answers both for a placement without its trial when they are certain,
and the placement chosen is then tried for real (its members' nodes are the trial's).

Why the answer is certain. Every member is tried in turn on the snapshot as left by the
ones before it (each one assumed on its node). When

* every PreFilter, Filter and Reserve plugin of the profile is one whose answer for a node
  depends only on that node (its labels, taints, pods, ports, resources) and on the member,
  or (for the plugins in `_WHEN_SKIPPED`) skips this member altogether;
* no member has required pod affinity or anti-affinity (so a member placed changes no
  other member's InterPodAffinity answer), and no member is nominated (so placing one
  takes no nominated pod off a node);
* the PlacementFeasible plugins read only the counts (GangScheduling), PlacementScore only
  the number of members placed (PodGroupPodsCount), and the placements are the topology
  domains (TopologyPlacementGenerator: disjoint);

then member k's answers on a node no earlier member went to are its answers on the
snapshot before the trial. Members 0..k-1 go to at most k nodes; so if, for every k,
member k passes Filter on more than k of the placement's nodes (among PreFilter's nodes)
on that snapshot, every member finds a node, its Reserve succeeds (the plugins allowed
there do nothing for these members), and the trial places all of them: its status is what
PlacementFeasible says after all of them were placed (`walk_pod_group` with every member
placed). Whatever node each member picks (scores, random ties), the answer is the same.
Anything else (a member failing PreFilter, a Filter error, fewer nodes) is left to the
trial itself, and so is the first placement, so that a member's hint from
OpportunisticBatching is never one of a placement tried later (see `podgroup_placement`).

What differs from trying every placement: only the trials not run, so the rotating start
index of the Filter loop (`Framework.next_start_node_index`) and the per-plugin metrics
advance less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kubesched.apis import names
from kubesched.cache import Snapshot
from kubesched.framework import SUCCESS, Code, CycleState, PlacementProgress, Status
from kubesched.framework.placement_points import Placement, PodGroupInfo
from kubesched.model import Pod
from kubesched.queue import Nominator, QueuedPodInfo
from kubesched.runtime import Framework
from kubesched.runtime.placement import walk_pod_group
from kubesched.scheduler.podgroup_algorithm import GroupResult, MemberResult

_NODE_LOCAL = frozenset(
    {
        names.NODE_UNSCHEDULABLE,
        names.NODE_NAME,
        names.TAINT_TOLERATION,
        names.NODE_AFFINITY,
        names.NODE_PORTS,
        names.NODE_RESOURCES_FIT,
        names.NODE_DECLARED_FEATURES,
        names.INTER_POD_AFFINITY,  # with no required pod (anti-)affinity on the members
    }
)
"""PreFilter/Filter plugins whose Filter answer on a node reads that node and the pod only
(InterPodAffinity: the counts of other pods' required anti-affinity, unchanged by members
that have none)."""

_WHEN_SKIPPED = frozenset(
    {
        names.POD_TOPOLOGY_SPREAD,
        names.VOLUME_RESTRICTIONS,
        names.NODE_VOLUME_LIMITS,
        names.VOLUME_BINDING,
        names.VOLUME_ZONE,
        names.DYNAMIC_RESOURCES,
    }
)
"""Plugins allowed only when their PreFilter skips every member (no spread constraints, no
volumes, no claims)."""

_RESERVE = frozenset({names.GANG_SCHEDULING, names.VOLUME_BINDING, names.DYNAMIC_RESOURCES})
"""Reserve plugins that succeed for members the two last skip (GangScheduling: always)."""

_FEASIBLE = frozenset({names.GANG_SCHEDULING})
_SCORE = frozenset({names.POD_GROUP_PODS_COUNT})
_GENERATE = frozenset({names.TOPOLOGY_PLACEMENT_GENERATOR})


class KnownResult(GroupResult):
    """A placement's trial result known without the trial: success, every member placed
    (their nodes unknown until the placement is chosen and tried)."""

    __slots__ = ("placement",)

    def __init__(self, status: Status, members: list[MemberResult], placement: Placement) -> None:
        super().__init__(status, members)
        self.placement = placement


@dataclass(frozen=True, slots=True)
class _Member:
    pod: Pod
    state: CycleState
    """After PreFilter on the snapshot before any trial."""
    nodes: frozenset[str] | None
    """PreFilter's node names (None: every node)."""


class PlacementShortcut:
    """Answers `known(placement)` for one group cycle (see the module docstring)."""

    def __init__(
        self,
        fw: Framework,
        snapshot: Snapshot,
        members: list[_Member],
        queued: list[QueuedPodInfo],
        status: Status,
    ) -> None:
        self._fw, self._snapshot, self._members = fw, snapshot, members
        self._queued, self._status = queued, status

    def known(self, placement: Placement) -> KnownResult | None:
        """The placement's trial result if certain without the trial, else None."""
        for needed, member in enumerate(self._members, start=1):
            if not self._passes(member, placement, needed):
                return None
        placed = [MemberResult(qpi) for qpi in self._queued]
        return KnownResult(self._status, placed, placement)

    def _passes(self, member: _Member, placement: Placement, needed: int) -> bool:
        """Whether `member` passes Filter on at least `needed` nodes of `placement` (a
        Filter error: no, the trial reports it)."""
        get, run = self._snapshot.get, self._fw.run_filter_with_nominated_pods
        allowed, found = member.nodes, 0
        for node in placement.nodes:
            name = node.name
            if allowed is not None and name not in allowed:
                continue
            info = get(name)  # the snapshot's current copy (trials re-clone the nodes)
            if info is None:
                return False
            status = run(member.state, member.pod, info)
            if status.is_success():
                found += 1
                if found >= needed:
                    return True
            elif not status.is_rejected():
                return False
        return False

    def confirms(self, result: GroupResult) -> bool:
        """Whether a real trial of a known placement gave what `known` promised."""
        placed = sum(1 for m in result.members if m.status.is_success() and m.host)
        return result.status.is_success() and placed == len(self._queued)


def placement_shortcut(
    fw: Framework,
    snapshot: Snapshot,
    info: PodGroupInfo,
    queued: list[QueuedPodInfo],
    nominator: Nominator | None,
) -> PlacementShortcut | None:
    """The shortcut for this group cycle, or None when its conditions do not hold."""
    if not queued or not _profile_allows(fw):
        return None
    for qpi in queued:
        pod = qpi.pod
        if pod.nominated_node_name or (nominator is not None and nominator.node_of(pod.uid)):
            return None
        if _has_required_pod_terms(pod):
            return None
    status = _status_all_placed(fw, info, queued)
    if not status.is_success():
        return None
    members = []
    for qpi in queued:
        member = _pre_filtered(fw, snapshot, qpi.pod)
        if member is None:
            return None
        members.append(member)
    return PlacementShortcut(fw, snapshot, members, queued, status)


def _profile_allows(fw: Framework) -> bool:
    plugins = fw.plugins
    allowed = _NODE_LOCAL | _WHEN_SKIPPED
    return (
        _names(plugins.pre_filter) <= allowed
        and _names(plugins.filter) <= allowed
        and _names(plugins.reserve) <= _RESERVE
        and _names(plugins.placement_feasible) <= _FEASIBLE
        and _names(plugins.placement_score) <= _SCORE
        and _names(plugins.placement_generate) <= _GENERATE
    )


def _names(plugins: Sequence[object]) -> frozenset[str]:
    return frozenset(str(getattr(pl, "name", "")) for pl in plugins)


def _has_required_pod_terms(pod: Pod) -> bool:
    affinity = pod.affinity
    if affinity is None:
        return False
    return any(
        terms is not None and terms.required
        for terms in (affinity.pod_affinity, affinity.pod_anti_affinity)
    )


def _status_all_placed(fw: Framework, info: PodGroupInfo, queued: list[QueuedPodInfo]) -> Status:
    """The status of a trial that places every member (PlacementFeasible's after each)."""

    def placed(_qpi: QueuedPodInfo) -> Status:
        return SUCCESS

    progress = PlacementProgress(len(info.scheduled), len(queued))
    plugins = fw.plugins.placement_feasible
    return walk_pod_group(plugins, info.group, progress, queued, placed, root=False)


def _pre_filtered(fw: Framework, snapshot: Snapshot, pod: Pod) -> _Member | None:
    """The member after PreFilter on the snapshot, if PreFilter passes and every plugin
    of `_WHEN_SKIPPED` among the profile's Filter and Reserve plugins skipped it."""
    state = CycleState()
    outcome = fw.run_pre_filter(state, pod, snapshot.node_infos)
    if outcome.status.code is not Code.SUCCESS:
        return None
    skipped = state.skip_filter_plugins
    used = _names(fw.plugins.filter) | _names(fw.plugins.pre_filter) | _names(fw.plugins.reserve)
    if any(name in _WHEN_SKIPPED and name not in skipped for name in used):
        return None
    nodes = None if outcome.node_names is None else frozenset(outcome.node_names)
    return _Member(pod, state, nodes)


__all__ = ["KnownResult", "PlacementShortcut", "placement_shortcut"]
