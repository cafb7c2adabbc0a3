"""CapacityScheduling's preemption decision (scheduler-plugins' `preemptor` in kube-scheduler
v1.35's `preemption.Evaluator`), without the plugin plumbing.

1. Eligibility (`PodEligibleToPreemptOthers`): not with `preemptionPolicy: Never`; a pod
   nominated to a node (that its filters did not find unresolvable) waits while a pod there
   is terminating that may be making room for it: in its own namespace with lower priority,
   or, while its quota is within `min`, in another namespace whose quota is over `min` (with
   no quota: a lower-priority terminating pod of a namespace without one).
2. Every node Filter found Unschedulable is tried (`victims.select_victims_on_node`), none
   skipped: the plugin asks for all of them, from the first.
3. The best candidate: fewest PDB violations, then the lowest highest-victim priority, the
   smallest sum of priorities, the fewest victims, the latest start of the most important
   victims; the first of equals (upstream picks among equals in map order).

When no node can help, the message is upstream's FitError over the dry run's statuses
(`0/2 nodes are available: 2 No victims found on node ...`), nodes not tried counting as
`Preemption is not helpful for scheduling`; the success message is empty (the plugin does
not prefix `preemption: ` as DefaultPreemption does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kubesched.framework import SUCCESS, Code, CycleState, NodeInfo, NodeToStatus, Status
from kubesched.framework.diagnosis import Diagnosis, fit_error_message
from kubesched.framework.interfaces import FilterRunner, NodeToStatusReader
from kubesched.model import Pod, PodDisruptionBudget
from kubesched.plugins.capacity_scheduling.core import PRE_FILTER_KEY, SNAPSHOT_KEY
from kubesched.plugins.capacity_scheduling.quota import QuotaInfos
from kubesched.plugins.capacity_scheduling.victims import (
    own_over_min,
    select_victims_on_node,
    start_seconds,
)

NEVER = "Never"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_STATE = "not eligible due to failed to read from cycleState"
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_NODES = "no nodes available"
_PRIORITY_OFFSET = 2**31


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node where evicting `victims` (most important first) lets the preemptor in."""

    node_name: str
    victims: tuple[Pod, ...]
    num_pdb_violations: int = 0


@dataclass(frozen=True, slots=True)
class Decision:
    """A candidate (status SUCCESS) or why there is none; `clear_nomination` when no node
    could help (upstream's result with an empty nominated node)."""

    candidate: Candidate | None
    status: Status
    clear_nomination: bool = False


def ineligibility(
    state: CycleState, preemptor: Pod, *, nominated_status: Status, nominated: NodeInfo | None
) -> str:
    """Why the preemptor may not preempt now, or "": a pod on its nominated node that it
    could evict is terminating already (it waits for that room)."""
    if preemptor.preemption_policy == NEVER:
        return NOT_ELIGIBLE_NEVER
    pre = state.get(PRE_FILTER_KEY)
    if pre is None:
        return NOT_ELIGIBLE_STATE
    snapshot = state.get(SNAPSHOT_KEY)
    if not preemptor.nominated_node_name or snapshot is None or nominated is None:
        return ""
    if nominated_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
        return ""
    infos = snapshot.infos
    over = own_over_min(preemptor, infos, pre)
    for pod in nominated.pods.values():
        if pod.deleting and _waits_for(pod, preemptor, infos, own_over_min=over):
            return NOT_ELIGIBLE_TERMINATING
    return ""


def _waits_for(pod: Pod, preemptor: Pod, infos: QuotaInfos, *, own_over_min: bool) -> bool:
    """Whether a terminating `pod` may be making room for the preemptor: of its namespace
    with lower priority, or of a quota over `min` while the preemptor's is within it (of
    a namespace without a quota with lower priority, for a preemptor without one)."""
    quota = infos.get(pod.namespace)
    if preemptor.namespace not in infos:
        return quota is None and pod.priority < preemptor.priority
    if quota is None:
        return False
    if pod.namespace == preemptor.namespace:
        return pod.priority < preemptor.priority
    return not own_over_min and quota.used_over_min()


def rank(candidate: Candidate, now: float) -> tuple[int, int, int, int, float]:
    """Upstream `pickOneNodeForPreemption`'s default criteria, in order; higher is better."""
    victims = candidate.victims
    highest = victims[0].priority
    top = max(pod.priority for pod in victims)
    earliest = min(start_seconds(pod, now) for pod in victims if pod.priority == top)
    return (
        -candidate.num_pdb_violations,
        -highest,
        -sum(pod.priority + _PRIORITY_OFFSET for pod in victims),
        -len(victims),
        earliest,
    )


def pick_one(candidates: Sequence[Candidate], now: float) -> Candidate | None:
    """The best candidate; the first of equally ranked ones."""
    if not candidates:
        return None
    return max(candidates, key=lambda candidate: rank(candidate, now))


def decide(
    runner: FilterRunner,
    state: CycleState,
    preemptor: Pod,
    *,
    nodes: Sequence[NodeInfo],
    statuses: NodeToStatusReader,
    pdbs: Sequence[PodDisruptionBudget],
    now: float,
) -> Decision:
    """What preempting for `preemptor` would do, changing nothing but clones."""
    nominated = next((n for n in nodes if n.name == preemptor.nominated_node_name), None)
    status = statuses.get(preemptor.nominated_node_name)
    reason = ineligibility(state, preemptor, nominated_status=status, nominated=nominated)
    if reason:
        return Decision(None, Status(Code.UNSCHEDULABLE, reason))
    if not nodes:
        return Decision(None, Status(Code.ERROR, NO_NODES))
    potential = [node for node in nodes if statuses.get(node.name).code is Code.UNSCHEDULABLE]
    clean: list[Candidate] = []
    violating: list[Candidate] = []
    tried = NodeToStatus()
    errors: list[Status] = []
    for node in potential:
        victims, violations, found = select_victims_on_node(
            runner, state.clone(), preemptor, node, pdbs, now=now
        )
        if found.is_success() and victims:
            (violating if violations else clean).append(
                Candidate(node.name, tuple(victims), violations)
            )
            continue
        if found.is_success():
            found = Status(Code.ERROR, f'expected at least one victim pod on node "{node.name}"')
        if found.code is Code.ERROR:
            errors.append(found)
        tried.set(node.name, found)
    return _outcome(clean + violating, tried, errors, num_nodes=len(nodes), now=now)


def _outcome(
    candidates: list[Candidate],
    tried: NodeToStatus,
    errors: list[Status],
    *,
    num_nodes: int,
    now: float,
) -> Decision:
    if not candidates and errors:
        return Decision(None, errors[0])
    best = pick_one(candidates, now)
    if best is None:
        tried.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_HELPFUL)
        diagnosis = Diagnosis(node_to_status=tried)
        message = fit_error_message(num_all_nodes=num_nodes, diagnosis=diagnosis)
        return Decision(None, Status(Code.UNSCHEDULABLE, message), clear_nomination=True)
    return Decision(best, SUCCESS)
