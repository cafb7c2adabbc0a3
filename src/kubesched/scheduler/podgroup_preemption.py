"""Preemption for a pod group that does not fit (kube-scheduler v1.37's PodGroupPostFilter of
DefaultPreemption, `GenericWorkload`; upstream `PodGroupEvaluator.Preempt`), the decision
only: `Preemptions.start_group` evicts.

1. Members with `preemptionPolicy: Never` make the group ineligible.
2. A preemption of this group still running (a pod of lower priority, preempted by a
   scheduler, terminating on a node a member is nominated to) is waited for: the members
   keep their nominations.
3. The domain is the whole cluster (`default_preemption.victims.collect`, reading the
   CompositePodGroups above each PodGroup when the handle serves them); victims are those of
   strictly lower priority than the group's (`spec.priority`). Without any: `No preemption
   victims found for incoming preemptor`.
4. Every such victim is taken off the cluster and the group is placed again
   (`schedule_group`); if it still does not fit, that cycle's status is the answer.
5. Then, most important first (PDB-violating victims first), each victim is put back if
   every placed member still passes Filter on its node, the members taken as placed one
   after the other (Reserve), with the cycle states of step 4 kept current through the
   PreFilter extensions (`podgroup_reprieve`, on the snapshot alone). The victims not put
   back are evicted; every placed member is nominated to its node.

The cache is changed (victims set aside, members assumed) only within this synchronous call,
and restored before it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from kubesched.cache import PodState, SchedulerCache, Snapshot
from kubesched.framework import Code, Status
from kubesched.framework.status import StatusError
from kubesched.model import Pod, PodDisruptionBudget, SchedulingPodGroup
from kubesched.plugins.default_preemption.victims import (
    GroupOf,
    collect,
    most_important_first,
    pod_priority,
    with_composites,
)
from kubesched.plugins.helper.hierarchy import composite_hierarchy
from kubesched.queue import Nominator, QueuedPodInfo
from kubesched.runtime import Framework
from kubesched.scheduler.podgroup_algorithm import GroupResult, schedule_group
from kubesched.scheduler.podgroup_reprieve import select_victims

NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NO_VICTIMS = "No preemption victims found for incoming preemptor"
ONGOING = "ongoing preemption on nominated nodes"
GroupAlgorithm = Callable[[list[QueuedPodInfo]], GroupResult]
"""Places the queued members on the snapshot as it is (every trial undone)."""


@dataclass(frozen=True, slots=True)
class GroupPreemption:
    """The outcome: SUCCESS with the members' nominations (pod UID -> node, "" clears one)
    and the victims to evict (most important first), or why preemption cannot help."""

    status: Status
    nominations: Mapping[str, str] = field(default_factory=dict)
    victims: tuple[Pod, ...] = ()
    num_pdb_violations: int = 0
    group_disruptions: int = 0
    """How many of the victims are whole pod groups (`disruptionMode: All`)."""
    evaluation_seconds: float | None = None
    """How long the search for victims took; None when the group was not eligible or a
    preemption of it was still running (upstream times its `evaluate` alone)."""


@dataclass(slots=True)
class _Aside:
    """Victims' pods taken out of the cache, and put back."""

    cache: SchedulerCache
    snapshot: Snapshot
    states: dict[str, PodState] = field(default_factory=dict)

    def remove(self, pods: Sequence[Pod]) -> None:
        for pod in pods:
            state = self.cache.set_aside(pod)
            if state is not None:
                self.states[pod.uid] = state

    def restore(self) -> None:
        for state in self.states.values():
            self.cache.put_back(state)
        self.states.clear()
        self.cache.update_snapshot(self.snapshot)


def evaluate_group(
    fw: Framework,
    *,
    cache: SchedulerCache,
    snapshot: Snapshot,
    group: SchedulingPodGroup,
    queued: Sequence[QueuedPodInfo],
    scheduled: int,
    group_of: GroupOf,
    pdbs: Sequence[PodDisruptionBudget],
    nominator: Nominator | None = None,
    now: float,
    algorithm: GroupAlgorithm | None = None,
    reprieve_shortcut: bool = True,
) -> GroupPreemption:
    """What preempting for the group would do (see the module docstring); the status's
    message is upstream's, without the `pod group preemption: ` prefix. `algorithm` places
    the group once the victims are gone (the placement algorithm under
    `TopologyAwareWorkloadScheduling`); by default `schedule_group`. `reprieve_shortcut`:
    `podgroup_reprieve`'s shortcut (tests compare it with the plain path)."""
    group_of = with_composites(group_of, composite_hierarchy(fw.handle))
    members = [qpi.pod for qpi in queued]
    if any(pod.preemption_policy == "Never" for pod in members):
        return GroupPreemption(Status(Code.UNSCHEDULABLE, NOT_ELIGIBLE_NEVER))
    nominated = {pod.uid: _nominated(pod, nominator) for pod in members}
    if _ongoing(snapshot, set(nominated.values()) - {""}, group_of, group.priority):
        return GroupPreemption(Status(Code.SUCCESS, ONGOING), nominated)
    started = time.monotonic()  # upstream times its `evaluate` from here on

    def evaluated(outcome: GroupPreemption) -> GroupPreemption:
        return replace(outcome, evaluation_seconds=time.monotonic() - started)

    potential = [
        victim
        for victim in collect(snapshot.node_infos, group_of, now=now)
        if victim.priority < group.priority
    ]
    if not potential:
        return evaluated(GroupPreemption(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)))
    aside = _Aside(cache, snapshot)
    try:
        for victim in potential:
            aside.remove(victim.pods)
        cache.update_snapshot(snapshot)  # each node re-cloned once
        if algorithm is not None:
            result = algorithm(list(queued))
        else:
            result = schedule_group(
                fw,
                cache=cache,
                snapshot=snapshot,
                group=group,
                queued=list(queued),
                scheduled=scheduled,
                nominator=nominator,
            )
        if not result.status.is_success():
            return evaluated(GroupPreemption(result.status))
        placed = [m for m in result.members if m.host and m.status.is_success()]
        ordered = most_important_first(potential)
        chosen, violations = select_victims(
            fw, snapshot, placed, ordered, pdbs, shortcut=reprieve_shortcut
        )
    except StatusError as err:
        return evaluated(GroupPreemption(err.status))
    finally:
        aside.restore()
    victims = tuple(pod for victim in most_important_first(chosen) for pod in victim.pods)
    message = f"found a placement for podgroup, preempting {len(victims)} victims"
    nominations = {m.qpi.pod.uid: m.host for m in placed}
    disruptions = sum(1 for victim in chosen if victim.is_group)
    status = Status(Code.SUCCESS, message)
    return evaluated(GroupPreemption(status, nominations, victims, violations, disruptions))


def _nominated(pod: Pod, nominator: Nominator | None) -> str:
    if pod.nominated_node_name:
        return pod.nominated_node_name
    return nominator.node_of(pod.uid) if nominator is not None else ""


def _ongoing(snapshot: Snapshot, nodes: set[str], group_of: GroupOf, priority: int) -> bool:
    """Upstream `isOngoingPreemption`."""
    for name in nodes:
        info = snapshot.get(name)
        if info is None:
            continue
        for pod in info.pods.values():
            terminating = pod.deleting and pod.preempted_by_scheduler
            if terminating and pod_priority(pod, group_of) < priority:
                return True
    return False
