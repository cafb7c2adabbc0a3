"""Coscheduling's gang preemption (`gangPreemption: true`; kubesched's own, scheduler-plugins
has none, its issues #581 and #443). Coscheduling's PostFilter then preempts for every pod of
its profile (DefaultPreemption is disabled at postFilter there):

- **A gang member** preempts for its gang: the members still to place (minMember less the
  members bound or waiting at Permit; the pod first, then its pending siblings by name) are
  placed together on the whole cluster with every unit of lower priority than the lowest of
  them taken off (`gang_victims.select`); if one does not fit, nobody is evicted. Else units
  are given back, most important first, while every placed member still fits on its node;
  the rest are evicted and the pod is nominated to its node. Each sibling gets its
  nomination when it next fails, until the victims are gone (the plan, `_plans`).
- **Any other pod** preempts on one node, as DefaultPreemption, but a gang's pods are one
  victim: evicting one member evicts its whole gang (wherever its pods run), so no gang is
  left below minMember. The best node by upstream's criteria over the victims' pods.

Victims are pods of strictly lower priority; a gang is a victim only when all its pods are.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from kubesched.framework import (
    FILTER_RUNNER_KEY,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    NodeToStatusReader,
    PostFilterResult,
    Status,
)
from kubesched.framework.interfaces import FilterRunner
from kubesched.framework.status import StatusError
from kubesched.model import ApiObject, Pod, PodDisruptionBudget
from kubesched.plugins.coscheduling.core import GroupManager
from kubesched.plugins.coscheduling.gang_trial import ClusterTrial, Member
from kubesched.plugins.coscheduling.gang_victims import Chosen, collect, gang_pods, rank, select
from kubesched.plugins.coscheduling.podgroup import PodGroup, full_name

log = logging.getLogger(__name__)

NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
ONGOING = "waiting for the preemption for this pod group to be finished"
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_RUNNER = "no FilterRunner in the cycle state"
RIVAL = (
    "Coscheduling gangPreemption: true, but DefaultPreemption also runs at postFilter in "
    "this profile and may evict single members of gangs; disable it there "
    "(plugins.postFilter.disabled: [{name: DefaultPreemption}])"
)
_MIN_CANDIDATES = 100  # as DefaultPreemption's defaults: max(10% of the nodes, 100)


class _Outcome(Protocol):
    @property
    def status(self) -> Status: ...
    @property
    def node_names(self) -> AbstractSet[str] | None: ...


@runtime_checkable
class _PreFilterRunner(Protocol):
    """The profile's PreFilter, run for a sibling (the framework in the cycle state)."""

    def run_pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> _Outcome: ...


@dataclass(frozen=True, slots=True)
class Plan:
    """A gang's preemption under way: each member's node, and the victims."""

    hosts: Mapping[str, str]
    victims: tuple[Pod, ...]


@dataclass(slots=True)
class GangPreemption:
    handle: Handle
    manager: GroupManager
    pdbs: Callable[[], Sequence[PodDisruptionBudget]]
    now: Callable[[], float] = time.time
    warned: bool = False
    """Whether the profile's DefaultPreemption at postFilter has been logged."""
    nested: bool = False
    """True while siblings run PreFilter here (Coscheduling's own PreFilter lets them by)."""
    _plans: dict[str, Plan] = field(default_factory=dict)

    def plan(self, gang: str) -> Plan | None:
        """The gang's preemption under way, if any."""
        return self._plans.get(gang)

    def forget(self, gang: str) -> None:
        """The gang reached minMember (or went): its plan is over."""
        self._plans.pop(gang, None)

    def group_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        """A PodGroup lister listener: a deleted group's plan goes with it."""
        if new is None and old is not None:
            self.forget(f"{old.namespace}/{old.name}")

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatusReader, group: PodGroup | None
    ) -> tuple[PostFilterResult | None, Status]:
        runner = state.get(FILTER_RUNNER_KEY)
        if runner is None:
            return None, Status(Code.ERROR, NO_RUNNER)
        if not self.warned and _rival(runner):
            self.warned = True
            log.error(RIVAL)
        if pod.preemption_policy == "Never":
            return None, Status(Code.UNSCHEDULABLE, NOT_ELIGIBLE_NEVER)
        try:
            if group is None:
                return self._single(runner, state, pod, statuses)
            return self._gang(runner, state, pod, statuses, group)
        except StatusError as failed:
            return None, failed.status

    # ---- a gang ----------------------------------------------------------------------------

    def _gang(
        self,
        runner: FilterRunner,
        state: CycleState,
        pod: Pod,
        statuses: NodeToStatusReader,
        group: PodGroup,
    ) -> tuple[PostFilterResult | None, Status]:
        name = group.full_name
        plan = self._plans.get(name)
        if plan is not None and self._under_way(plan):
            host = plan.hosts.get(pod.uid)
            return (PostFilterResult(host) if host else None), Status(Code.UNSCHEDULABLE, ONGOING)
        self._plans.pop(name, None)
        placing, need = self._to_place(pod, group)
        refused = self._refusal(name, placing, need, statuses)
        if refused is not None:
            return None, refused
        nodes = self.handle.list_node_infos()
        priority = min(member.priority for member in placing)
        gangs = gang_pods(nodes, full_name)
        potential = collect(
            nodes, full_name, below=priority, now=self.now(), gangs=gangs, exclude=name
        )
        if not potential:
            return None, Status(Code.UNSCHEDULABLE, f"no victims of lower priority for {name}")
        members = self._members(runner, state, placing, statuses, nodes)
        trial = ClusterTrial(runner, members, nodes)
        chosen = select(trial, potential, self.pdbs())
        if chosen is None or not chosen.units:
            message = f"podgroup {name}: {len(placing)} members do not fit even after preemption"
            return None, Status(Code.UNSCHEDULABLE, message)
        victims = chosen.pods
        self._plans[name] = Plan(dict(trial.hosts), victims)
        host = trial.hosts[pod.uid]
        self.handle.preempt(
            pod, node_name=host, victims=victims, pdb_violations=chosen.pdb_violations
        )
        message = f"found a placement for podgroup {name}, preempting {len(victims)} victims"
        return PostFilterResult(host), Status(Code.SUCCESS, message)

    def _refusal(
        self, name: str, placing: Sequence[Pod], need: int, statuses: NodeToStatusReader
    ) -> Status | None:
        """Why the gang may not preempt now, or None."""
        if len(placing) < need:  # never make room for part of the gang
            message = f"podgroup {name}: {need} members needed, {len(placing)} can be placed"
            return Status(Code.UNSCHEDULABLE, message)
        if any(member.preemption_policy == "Never" for member in placing):
            return Status(Code.UNSCHEDULABLE, NOT_ELIGIBLE_NEVER)
        if _terminating_on_nominated(self.handle, placing, statuses):
            return Status(Code.UNSCHEDULABLE, ONGOING)
        return None

    def _under_way(self, plan: Plan) -> bool:
        pods = self.handle.pod_lister()
        for victim in plan.victims:
            found = pods.get(victim.name, victim.namespace)
            if found is not None and found.uid == victim.uid:
                return True
        return False

    def _to_place(self, pod: Pod, group: PodGroup) -> tuple[list[Pod], int]:
        """The pod and the pending siblings needed to reach minMember (by name), and how
        many are needed (at least the pod)."""
        members = self.manager.members(pod)
        placed = set(self.manager.assigned.get(group.full_name, ()))
        placed.update(member.name for member in members if member.node_name)
        need = group.min_member - len(placed)
        siblings = sorted(
            (
                member
                for member in members
                if member.uid != pod.uid
                and member.name not in placed
                and not member.node_name
                and not member.scheduling_gates
                and not member.deleting
            ),
            key=lambda member: member.name,
        )
        need = max(need, 1)
        return [pod, *siblings][:need], need

    def _members(
        self,
        runner: FilterRunner,
        state: CycleState,
        placing: Sequence[Pod],
        statuses: NodeToStatusReader,
        nodes: Sequence[NodeInfo],
    ) -> list[Member]:
        """Each pod to place with its cycle state: the pod's own (nodes PreFilter or Filter
        found unresolvable left out), a sibling's from the profile's PreFilter."""
        first, *siblings = placing
        allowed = {
            info.name
            for info in nodes
            if statuses.get(info.name).code is not Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        }
        members = [Member(first, state.clone(), allowed)]
        pre_filter = runner if isinstance(runner, _PreFilterRunner) else None
        members.extend(self._sibling(pre_filter, sibling, nodes) for sibling in siblings)
        return members

    def _sibling(
        self, runner: _PreFilterRunner | None, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Member:
        if runner is None:
            raise StatusError(Status(Code.ERROR, "the profile cannot run PreFilter here"))
        sibling_state = CycleState()
        self.nested = True
        try:
            outcome = runner.run_pre_filter(sibling_state, pod, nodes)
        finally:
            self.nested = False
        if not outcome.status.is_success():
            message = f"sibling {pod.name}: {outcome.status.message}"
            raise StatusError(Status(Code.UNSCHEDULABLE, message))
        return Member(pod, sibling_state, outcome.node_names)

    # ---- a pod of no gang -----------------------------------------------------------------

    def _single(
        self, runner: FilterRunner, state: CycleState, pod: Pod, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status]:
        if _terminating_on_nominated(self.handle, [pod], statuses):
            return None, Status(Code.UNSCHEDULABLE, NOT_ELIGIBLE_TERMINATING)
        nodes = self.handle.list_node_infos()
        gangs = gang_pods(nodes, full_name)
        potential = [i for i in nodes if statuses.get(i.name).code is Code.UNSCHEDULABLE]
        wanted = min(max(len(potential) // 10, _MIN_CANDIDATES), len(potential))
        now, pdbs = self.now(), self.pdbs()
        best: tuple[str, Chosen] | None = None
        found = 0
        for info in potential:
            units = collect([info], full_name, below=pod.priority, now=now, gangs=gangs)
            member = Member(pod, state.clone(), frozenset((info.name,)))
            chosen = select(ClusterTrial(runner, [member], nodes), units, pdbs) if units else None
            if chosen is None or not chosen.units:
                continue
            if best is None or rank(chosen, now) > rank(best[1], now):
                best = (info.name, chosen)
            found += 1
            if found >= wanted:
                break
        if best is None:
            return PostFilterResult(""), Status(Code.UNSCHEDULABLE, _no_help(len(nodes)))
        node, chosen = best
        victims = chosen.pods
        self.handle.preempt(
            pod, node_name=node, victims=victims, pdb_violations=chosen.pdb_violations
        )
        message = (
            f"found a potential placement for pod on node {node}, preempting {len(victims)} victims"
        )
        return PostFilterResult(node), Status(Code.SUCCESS, message)


def _terminating_on_nominated(
    handle: Handle, pods: Sequence[Pod], statuses: NodeToStatusReader
) -> bool:
    """Whether a pod's earlier preemption is still under way (upstream
    `PodEligibleToPreemptOthers`): its nominated node, still resolvable, holds a pod of
    lower priority that a scheduler preempted and that is terminating."""
    for pod in pods:
        name = pod.nominated_node_name
        info = handle.get_node_info(name) if name else None
        if info is None or statuses.get(name).code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            continue
        for other in info.pods.values():
            if other.deleting and other.preempted_by_scheduler and other.priority < pod.priority:
                return True
    return False


def _rival(runner: FilterRunner) -> bool:
    """Whether DefaultPreemption runs at postFilter in the runner's profile (the Framework
    lists its plugins per extension point)."""
    plugins = getattr(getattr(runner, "plugins", None), "post_filter", ())
    return any(getattr(plugin, "name", "") == "DefaultPreemption" for plugin in plugins)


def _no_help(nodes: int) -> str:
    return (
        f"0/{nodes} nodes are available: preemption (gangs evicted whole) "
        "is not helpful for scheduling."
    )


__all__ = [
    "NOT_ELIGIBLE_NEVER",
    "NOT_ELIGIBLE_TERMINATING",
    "ONGOING",
    "RIVAL",
    "GangPreemption",
    "Plan",
]
