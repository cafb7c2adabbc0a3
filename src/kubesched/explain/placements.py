"""A gang's topology placements, explained (the `TopologyAwareWorkloadScheduling` feature
gate): the placement cycle of kube-scheduler v1.37 (`podGroupSchedulingPlacementAlgorithm`),
run as the scheduler's pod-group cycle runs it, but keeping every trial:

1. the profile's PlacementGenerate plugin splits the nodes into placements (one per domain
   of the PodGroup's topology key; only the placed members' domain once some are placed);
2. the pending members, in the queue's order, are tried on each placement's nodes alone
   (PreFilter sees every node, as the scheduler's), each placed one assumed in explain's own
   cache and reserved so the next sees its room taken, PlacementFeasible asked after each;
   every trial is undone before the next placement;
3. the feasible placements are scored by each PlacementScore plugin (normalized, weighted)
   and the highest total is the one the scheduler would take (a tie: picked at random).

Nothing leaves the process: the cache is explain's, the Handle read-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.explain.placement_report import MemberTrial, PlacementsReport, PlacementTrial
from kubesched.explain.placement_trial import GroupTrial, try_placement
from kubesched.framework.placement_points import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
    ProposedAssignment,
    ScheduledMember,
)
from kubesched.model import Pod, SchedulingPodGroup
from kubesched.runtime import POD_GROUP_UNSCHEDULABLE, Framework
from kubesched.runtime.placement_points import run_placement_generate, run_placement_score


@dataclass
class _Found:
    trials: list[PlacementTrial] = field(default_factory=list)
    feasible: list[tuple[Placement, GroupTrial]] = field(default_factory=list)
    first: GroupTrial | None = None
    error: str = ""


def explain_placements(
    fw: Framework,
    *,
    cache: SchedulerCache,
    snapshot: Snapshot,
    group: SchedulingPodGroup,
    pods: Sequence[Pod],
    explained: Pod,
) -> PlacementsReport | None:
    """The placement cycle of `group` (None when the profile does not place groups by
    topology); `pods` are the cluster's, `explained` the pod explain was asked about."""
    if not fw.topology_aware:
        return None
    scheduled, queued = _members(fw, group, pods, explained)
    info = PodGroupInfo(group, tuple(ScheduledMember(p, p.node_name) for p in scheduled))
    generators = fw.plugins.placement_generate
    report = PlacementsReport(
        topology_key=group.topology_key,
        generator=generators[0].name if generators else "",
        members=tuple(p.name for p in queued),
        scheduled=tuple((p.name, p.node_name) for p in scheduled),
        notes=tuple(_queue_notes(fw, queued)),
        pod=explained.name,
    )
    if not queued:
        return _done(report, outcome="no member is pending: there is no placement cycle")
    placements, status = run_placement_generate(generators, info, list(snapshot.node_infos))
    if not status.is_success():
        what = "error" if status.is_error() else "FailedScheduling"
        return _done(report, outcome=f"{what}: {status.message}")
    found = _try_all(
        fw, cache=cache, snapshot=snapshot, info=info, queued=queued, placements=placements
    )
    return _decide(fw, info, _done(report, trials=found.trials), found)


def _decide(
    fw: Framework, info: PodGroupInfo, report: PlacementsReport, found: _Found
) -> PlacementsReport:
    """The scheduler's choice among the placements tried."""
    if found.error:
        return _done(report, outcome=f"error: {found.error}")
    if not found.feasible:
        assert found.first is not None
        return _done(report, outcome=_none_available(len(found.trials), found.first))
    if not any(member.host for _, trial in found.feasible for member in trial.members):
        # upstream `runRootSchedulingAlgorithm`: a group scheduled before whose pending
        # members fit nowhere in its domain satisfies PlacementFeasible, so its placement
        # is feasible and the group is refused after the choice
        return _done(report, outcome=f"FailedScheduling: {POD_GROUP_UNSCHEDULABLE}")
    if len(found.feasible) == 1:
        only = found.feasible[0][0].name
        outcome = (
            f"{_domain(only)} is the only placement where the group fits: the scheduler "
            "takes it without scoring"
        )
        return _done(report, chosen=only, best=(only,), outcome=outcome)
    return _scored(fw, info, report, found.feasible)


def _members(
    fw: Framework, group: SchedulingPodGroup, pods: Sequence[Pod], explained: Pod
) -> tuple[list[Pod], list[Pod]]:
    """The members placed already (bound, or held at Permit) and the pending ones the
    scheduler would try, in the order it tries them."""
    members = [p for p in pods if _in(group, p)]
    if all(p.uid != explained.uid for p in members) and _in(group, explained):
        members.append(explained)
    scheduled = sorted((p for p in members if p.node_name), key=lambda p: p.name)
    pending = [
        p
        for p in members
        if not p.node_name
        and not p.deleting
        and not p.scheduling_gates
        and p.scheduler_name == fw.profile_name
    ]
    # Upstream's member order (`PodGroupMemberPodsOrderingFunc`): higher priority, more
    # attempts (unknown here: none), earlier queue time (here: creation), then name.
    queued = sorted(pending, key=lambda p: (-p.priority, p.creation_timestamp or "~", p.name))
    return scheduled, queued


def _in(group: SchedulingPodGroup, pod: Pod) -> bool:
    return pod.namespace == group.namespace and pod.pod_group_name == group.name


def _queue_notes(fw: Framework, queued: Sequence[Pod]) -> list[str]:
    for pod in queued:
        status = fw.run_pre_enqueue(pod)
        if not status.is_success():
            note = (
                f"the members do not enter the scheduling queue yet ({status.plugin}: "
                f"{status.message}); the placements below are tried once they do"
            )
            return [note]
    return []


def _try_all(
    fw: Framework,
    *,
    cache: SchedulerCache,
    snapshot: Snapshot,
    info: PodGroupInfo,
    queued: list[Pod],
    placements: Sequence[Placement],
) -> _Found:
    """Each placement in turn, as the scheduler (an error stops at once)."""
    found = _Found()
    everywhere = len(snapshot.node_infos)
    for placement in placements:
        result = try_placement(
            fw, cache=cache, snapshot=snapshot, info=info, queued=queued, placement=placement,
            everywhere=everywhere,
        )  # fmt: skip
        found.trials.append(_trial(placement, result, queued))
        if result.status.is_error():
            found.error = result.status.message
            break
        found.first = found.first or result
        if result.status.is_success():
            found.feasible.append((placement, result))
    return found


def _trial(placement: Placement, result: GroupTrial, queued: list[Pod]) -> PlacementTrial:
    tried = {member.pod.uid: member for member in result.members}
    members = []
    for pod in queued:
        member = tried.get(pod.uid)
        if member is None:
            members.append(MemberTrial(pod.name, tried=False))
        else:
            members.append(MemberTrial(pod.name, member.host, member.message, member.plugins))
    feasible = result.status.is_success()
    return PlacementTrial(
        domain=placement.name,
        nodes=tuple(node.name for node in placement.nodes),
        feasible=feasible,
        status="" if feasible else result.status.message,
        members=tuple(members),
    )


def _none_available(count: int, first: GroupTrial) -> str:
    """The group's FailedScheduling text when no placement fits (before the preemption
    outcome the scheduler appends): the first placement's status."""
    reasons = first.status.reasons
    said = POD_GROUP_UNSCHEDULABLE if reasons[:1] == (POD_GROUP_UNSCHEDULABLE,) else ""
    said = said or first.status.message
    message = f"0/{count} placements are available, first placement status: {said}"
    return f"FailedScheduling: {POD_GROUP_UNSCHEDULABLE}, {message}"


def _scored(
    fw: Framework,
    info: PodGroupInfo,
    report: PlacementsReport,
    feasible: list[tuple[Placement, GroupTrial]],
) -> PlacementsReport:
    """Each PlacementScore plugin's weighted score of every feasible placement, the totals,
    and the best."""
    assignments = [_assignments(placement, result) for placement, result in feasible]
    weights = fw.placement_score_weights
    columns: list[tuple[str, list[int]]] = []
    for plugin in fw.plugins.placement_score:
        scores, status = run_placement_score([plugin], weights, info, assignments)
        if not status.is_success():
            return _done(report, outcome=f"error: {status.message}")
        columns.append((plugin.name, scores))
    totals = {
        placement.name: sum(scores[i] for _, scores in columns)
        for i, (placement, _) in enumerate(feasible)
    }
    rows = {
        placement.name: tuple((name, scores[i]) for name, scores in columns)
        for i, (placement, _) in enumerate(feasible)
    }
    trials = tuple(
        PlacementTrial(
            t.domain, t.nodes, t.feasible, t.status, t.members, rows[t.domain], totals[t.domain]
        )
        if t.domain in totals
        else t
        for t in report.placements
    )
    top = max(totals.values())
    best = tuple(name for name, total in totals.items() if total == top)
    if len(best) == 1:
        outcome = f"the scheduler would choose {_domain(best[0])} (total score {top})"
        return _done(report, trials=trials, chosen=best[0], best=best, outcome=outcome)
    tied = ", ".join(_domain(name) for name in best)
    outcome = f"tie between {tied} at total score {top}: the scheduler picks one at random"
    return _done(report, trials=trials, best=best, outcome=outcome)


def _assignments(placement: Placement, result: GroupTrial) -> PodGroupAssignments:
    proposed = tuple(
        ProposedAssignment(member.pod, member.host, member.state)
        for member in result.members
        if member.host
    )
    return PodGroupAssignments(placement, proposed)


def _domain(name: str) -> str:
    return name or "the placement of every node"


def _done(
    report: PlacementsReport,
    *,
    trials: Sequence[PlacementTrial] | None = None,
    chosen: str = "",
    best: tuple[str, ...] = (),
    outcome: str = "",
) -> PlacementsReport:
    return PlacementsReport(
        topology_key=report.topology_key,
        generator=report.generator,
        members=report.members,
        scheduled=report.scheduled,
        placements=tuple(trials) if trials is not None else report.placements,
        chosen=chosen,
        best=best,
        outcome=outcome,
        notes=report.notes,
        pod=report.pod,
    )
