"""The placement algorithm of a pod-group cycle (upstream
`podGroupSchedulingPlacementAlgorithm`, the `TopologyAwareWorkloadScheduling` feature gate):

1. the PlacementGenerate plugin splits the snapshot's nodes into placements (none: the group
   is unschedulable, `no feasible placements found`), timed as that extension point;
2. the whole group is tried on each placement's nodes alone (`podgroup_algorithm`, every
   trial undone after it); an error stops at once;
3. where it fits nowhere, the first placement's results say why
   (`0/N placements are available, first placement status: ...`);
4. else the PlacementScore plugins score the feasible ones (skipped when only one is) and
   the best total wins, ties broken at random (timed as `PlacementScore`); its members are
   the ones committed;
5. a chosen placement where no member was placed (a group scheduled before, whose extra
   members fit nowhere in its domain: PlacementFeasible is satisfied, so the trial
   succeeds) makes the group `pod group is unschedulable`, with no placement text, as
   upstream's `runRootSchedulingAlgorithm` does after `podGroupSchedulingAlgorithm`.

Upstream narrows its snapshot to the placement (`AssumePlacement`); here the members'
cycles get the placement's nodes as their only candidates (`schedule_pod(placement=)`), so
PreFilter still sees every node, as upstream's does.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code, Status
from kubesched.framework.placement_points import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
    ProposedAssignment,
    ScheduledMember,
)
from kubesched.model import SchedulingPodGroup
from kubesched.queue import Nominator, QueuedPodInfo
from kubesched.runtime import POD_GROUP_UNSCHEDULABLE, Framework, pod_group_unschedulable
from kubesched.runtime.placement_points import (
    PLACEMENT_GENERATE,
    PLACEMENT_SCORE,
    run_placement_generate,
    run_placement_score,
)
from kubesched.scheduler.placement_metrics import FEASIBLE, INFEASIBLE, PlacementMetrics
from kubesched.scheduler.placement_shortcut import (
    KnownResult,
    PlacementShortcut,
    placement_shortcut,
)
from kubesched.scheduler.podgroup_algorithm import (
    GroupResult,
    schedule_group,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PlacementCycle:
    """What the placement algorithm needs besides the framework and the group."""

    cache: SchedulerCache
    snapshot: Snapshot
    nominator: Nominator | None = None
    cycle: int | None = None
    metrics: PlacementMetrics | None = None


def scheduled_members(
    fw: Framework, cache: SchedulerCache, group: SchedulingPodGroup
) -> tuple[ScheduledMember, ...]:
    """The members of `group` bound or assumed (upstream's `PodGroupState.ScheduledPods`),
    with their nodes."""
    found = []
    for pod in fw.handle.pod_lister().list(group.namespace):
        if pod.pod_group_name != group.name:
            continue
        node = pod.node_name
        if not node and cache.is_assumed(pod.uid):
            assumed = cache.get_pod(pod.uid)
            node = assumed.node_name if assumed is not None else ""
        if node:
            found.append(ScheduledMember(pod, node))
    return tuple(found)


def schedule_group_in_placements(
    fw: Framework,
    run: PlacementCycle,
    info: PodGroupInfo,
    queued: list[QueuedPodInfo],
    *,
    shortcut: bool = True,
) -> GroupResult:
    """Place the group within the best of its placements (see the module docstring);
    `shortcut`: a placement certain to take every member is not tried unless chosen
    (`placement_shortcut`)."""
    nodes = list(run.snapshot.node_infos)
    started = time.perf_counter()
    generators, timings = fw.plugins.placement_generate, fw.plugin_metrics
    placements, status = run_placement_generate(generators, info, nodes, metrics=timings)
    fw.observe(PLACEMENT_GENERATE, str(status.code), time.perf_counter() - started)
    if not status.is_success():
        # No rejecting plugin, as upstream's members of a group that failed before any
        # placement was tried: they are retried after their backoff (a node labelled since
        # is then seen), not only when the plugin's (unregistered) events come.
        return GroupResult(Status(status.code, *status.reasons), [])
    if run.metrics is not None:
        run.metrics.record_generated(fw.profile_name, len(placements))
    feasible: list[tuple[Placement, GroupResult]] = []
    first: GroupResult | None = None
    known = _shortcut(fw, run, info, queued, len(placements)) if shortcut else None
    for index, placement in enumerate(placements):
        started = time.monotonic()
        # The first placement is always tried (see `placement_shortcut`).
        answer = known if index else None
        result = _answer(fw, run, info, queued, placement, known=answer, everywhere=len(nodes))
        if result.status.is_error():
            return result
        first = first or result
        fits = result.status.is_success()
        if fits:
            feasible.append((placement, result))
        if run.metrics is not None:
            seconds = time.monotonic() - started
            result_label = FEASIBLE if fits else INFEASIBLE
            run.metrics.observe_evaluation(result_label, fw.profile_name, seconds)
    if not feasible:
        assert first is not None  # run_placement_generate returns at least one
        return GroupResult(_none_available(len(placements), first.status), first.members)
    chosen = feasible[0][1] if len(feasible) == 1 else _best(fw, info, feasible)
    if isinstance(chosen, KnownResult):
        assert known is not None
        tried = _try(fw, run, info, queued, chosen.placement, everywhere=len(nodes))
        if not known.confirms(tried):  # never expected: then every placement is tried
            log.error("placement shortcut disagreed with the trial of %s", chosen.placement.name)
            return schedule_group_in_placements(fw, run, info, queued, shortcut=False)
        chosen = tried
    return _at_root(chosen)


def _shortcut(
    fw: Framework, run: PlacementCycle, info: PodGroupInfo, queued: list[QueuedPodInfo], count: int
) -> PlacementShortcut | None:
    """The shortcut of this cycle when there is more than one placement to try."""
    if count < 2:
        return None
    return placement_shortcut(fw, run.snapshot, info, queued, run.nominator)


def _answer(
    fw: Framework,
    run: PlacementCycle,
    info: PodGroupInfo,
    queued: list[QueuedPodInfo],
    placement: Placement,
    *,
    known: PlacementShortcut | None,
    everywhere: int,
) -> GroupResult:
    """The placement's result: known without its trial, else its trial's."""
    result = known.known(placement) if known is not None else None
    if result is None:
        return _try(fw, run, info, queued, placement, everywhere=everywhere)
    return result


def _at_root(result: GroupResult) -> GroupResult:
    """Upstream `runRootSchedulingAlgorithm`: a success that placed no member (PlacementFeasible
    satisfied by members scheduled before) is `pod group is unschedulable`."""
    placed = any(member.status.is_success() and member.host for member in result.members)
    if result.status.is_success() and not placed:
        return GroupResult(pod_group_unschedulable(result.status), result.members)
    return result


def _try(
    fw: Framework,
    run: PlacementCycle,
    info: PodGroupInfo,
    queued: list[QueuedPodInfo],
    placement: Placement,
    *,
    everywhere: int,
) -> GroupResult:
    """The group tried on one placement; one holding every node is no restriction."""
    names = None
    if len(placement.nodes) != everywhere:
        names = frozenset(node.name for node in placement.nodes)
    return schedule_group(
        fw,
        cache=run.cache,
        snapshot=run.snapshot,
        group=info.group,
        queued=queued,
        scheduled=len(info.scheduled),
        nominator=run.nominator,
        cycle=run.cycle,
        placement=names,
        root=False,
    )


def _none_available(count: int, first: Status) -> Status:
    """Upstream's status when no placement fits: the first one's error text (a group-level
    rejection reads only `pod group is unschedulable`, as upstream's wrapped error)."""
    reasons = first.reasons
    said = POD_GROUP_UNSCHEDULABLE if reasons[:1] == (POD_GROUP_UNSCHEDULABLE,) else first.message
    message = f"0/{count} placements are available, first placement status: {said}"
    return Status(Code.UNSCHEDULABLE, POD_GROUP_UNSCHEDULABLE, message)


def _best(
    fw: Framework, info: PodGroupInfo, feasible: list[tuple[Placement, GroupResult]]
) -> GroupResult:
    """The feasible placement with the highest PlacementScore total (random among ties)."""
    assignments = [_assignments(placement, result) for placement, result in feasible]
    plugins, weights = fw.plugins.placement_score, fw.placement_score_weights
    started = time.perf_counter()
    timings = fw.plugin_metrics
    totals, status = run_placement_score(plugins, weights, info, assignments, metrics=timings)
    fw.observe(PLACEMENT_SCORE, str(status.code), time.perf_counter() - started)
    if not status.is_success():
        return GroupResult(status, [])
    top = max(totals)
    best = random.choice([i for i, total in enumerate(totals) if total == top])  # noqa: S311
    return feasible[best][1]


def _assignments(placement: Placement, result: GroupResult) -> PodGroupAssignments:
    known = isinstance(result, KnownResult)  # every member placed, on nodes not known yet
    proposed = tuple(
        ProposedAssignment(member.qpi.pod, member.host, member.state)
        for member in result.members
        if member.status.is_success() and (member.host or known)
    )
    return PodGroupAssignments(placement, proposed)


__all__ = ["PlacementCycle", "schedule_group_in_placements", "scheduled_members"]
