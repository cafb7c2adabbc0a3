"""DefaultPreemption's decisions, as kube-scheduler makes them, without the plugin plumbing.

    evaluation = evaluate(runner, state, preemptor, nodes=..., statuses=..., pdbs=..., ...)
    evaluation.candidate       # Candidate(node_name, victims, num_pdb_violations) or None

The steps (upstream `Evaluator.Preempt`, `SelectVictimsOnNode`, `pickOneNodeForPreemption`):

1. The preemptor must be eligible: not `preemptionPolicy: Never`, and no lower-priority pod
   preempted earlier still terminating on the node it is nominated to.
2. Potential nodes: those Filter rejected as Unschedulable (UnschedulableAndUnresolvable
   ones cannot be helped by removing pods).
3. Dry run, from a random offset, until enough candidates are found (`num_candidates`):
   on a copy of each node remove every pod of lower priority; if the preemptor fits, add
   them back from the most important (highest priority, then earliest start) while it
   still fits (reprieve) — pods whose eviction would break a PodDisruptionBudget first,
   so those are evicted only when nothing else makes room.
4. Pick the node: fewest PDB violations, then the lowest highest-victim priority, the
   smallest sum of victim priorities, the fewest victims, the latest start of the
   highest-priority victims; then the first one. Upstream finds the candidates in parallel
   from a random offset, so the first of equally ranked ones is a random pick; `ties`
   lists the other equally ranked candidates.

Only pods of strictly lower priority are ever victims, whatever scheduler placed them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kubesched.framework import (
    SUCCESS,
    Code,
    CycleState,
    NodeInfo,
    NodeToStatus,
    StateKey,
    Status,
)
from kubesched.framework.diagnosis import Diagnosis, fit_error_message
from kubesched.framework.interfaces import FilterRunner, NodeToStatusReader
from kubesched.model import Pod, PodDisruptionBudget
from kubesched.plugins.default_preemption.node_victims import select_on_node
from kubesched.plugins.default_preemption.victims import (
    Everywhere,
    GroupOf,
    pod_priority,
    start_seconds,
)

NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NO_CANDIDATE = "no candidate node for preemption"
PREEMPT_NEVER = "Never"
_PRIORITY_OFFSET = 2**31  # upstream adds MaxInt32+1 so that every priority counts as >= 0


CandidatesHook = Callable[[list["Candidate"]], "list[Candidate] | Status"]
"""What the scheduler's extenders make of the dry run's candidates (upstream `callExtenders`):
the candidates to choose from, or the status that ends this preemption."""
EXTENDER_CANDIDATES: StateKey[CandidatesHook] = StateKey("DefaultPreemption/extenders")
"""Where a cycle that consults extenders puts its `CandidatesHook` (read by `evaluate`)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node where evicting `victims` (most important first) makes the preemptor fit."""

    node_name: str
    victims: tuple[Pod, ...]
    num_pdb_violations: int = 0


@dataclass(slots=True)
class DryRun:
    """What the dry run found: candidates (non-violating first) and why other nodes failed."""

    candidates: list[Candidate] = field(default_factory=list)
    statuses: NodeToStatus = field(default_factory=NodeToStatus)
    errors: list[Status] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The outcome: a candidate (status SUCCESS), or why preemption cannot help.

    `clear_nomination` is set when no node could be helped at all: the preemptor's
    nomination is then cleared (upstream returns a result with an empty node name)."""

    candidate: Candidate | None
    status: Status
    clear_nomination: bool = False
    ties: tuple[Candidate, ...] = ()
    """The other candidates ranked as high as `candidate` (upstream may pick any of them)."""


def num_candidates(num_nodes: int, *, percentage: int, absolute: int) -> int:
    """How many candidates the dry run looks for (`minCandidateNodes*` args, capped)."""
    return min(max(num_nodes * percentage // 100, absolute), num_nodes)


def ineligibility(
    preemptor: Pod,
    *,
    nominated_status: Status,
    nominated_node: NodeInfo | None,
    group_of: GroupOf | None = None,
) -> str:
    """Why the preemptor may not preempt now, or "" (upstream `PodEligibleToPreemptOthers`).

    A preemptor whose nominated node still hosts a lower-priority pod terminating because
    a scheduler preempted it waits for that pod, unless that node became unresolvable."""
    if preemptor.preemption_policy == PREEMPT_NEVER:
        return NOT_ELIGIBLE_NEVER
    if not preemptor.nominated_node_name:
        return ""
    if nominated_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE or nominated_node is None:
        return ""
    for pod in nominated_node.pods.values():
        priority = pod_priority(pod, group_of)
        if priority < preemptor.priority and pod.deleting and pod.preempted_by_scheduler:
            return NOT_ELIGIBLE_TERMINATING
    return ""


def potential_nodes(nodes: Sequence[NodeInfo], statuses: NodeToStatusReader) -> list[NodeInfo]:
    """The nodes Filter rejected as Unschedulable (removing pods may help there)."""
    return [node for node in nodes if statuses.get(node.name).code is Code.UNSCHEDULABLE]


# --- one node ---------------------------------------------------------------------------


def select_victims_on_node(
    runner: FilterRunner,
    state: CycleState,
    preemptor: Pod,
    node: NodeInfo,
    pdbs: Sequence[PodDisruptionBudget],
    *,
    now: float,
    group_of: GroupOf | None = None,
    everywhere: Sequence[NodeInfo] = (),
) -> tuple[list[Pod], int, Status]:
    """The fewest, least important pods to evict from `node` (left untouched, as is
    `state`: a trial works on a clone) so that `preemptor` fits: (victims, PDB violations,
    status).

    UnschedulableAndUnresolvable when the node has no lower-priority pod; the Filter
    status when the preemptor does not fit even without all of them. With `group_of` (the
    `GenericWorkload` gate) PodGroup members are victims as `node_victims` says, their
    groups' pods found on `everywhere`; without it every pod is a victim of its own."""
    return select_on_node(
        runner,
        state,
        preemptor,
        node,
        pdbs,
        group_of=group_of,
        everywhere=everywhere or (node,),
        now=now,
    )


# --- all nodes ----------------------------------------------------------------------------


def dry_run(
    runner: FilterRunner,
    state: CycleState,
    preemptor: Pod,
    nodes: Sequence[NodeInfo],
    pdbs: Sequence[PodDisruptionBudget],
    *,
    offset: int,
    wanted: int,
    now: float,
    group_of: GroupOf | None = None,
    everywhere: Sequence[NodeInfo] = (),
) -> DryRun:
    """Select victims on `nodes` from `offset` (wrapping) until `wanted` candidates are
    found, at least one of them violating no PDB (upstream `DryRunPreemption`)."""
    result = DryRun()
    clean: list[Candidate] = []
    violating: list[Candidate] = []
    if everywhere and not isinstance(everywhere, Everywhere):
        everywhere = Everywhere(everywhere)
    for i in range(len(nodes)):
        node = nodes[(offset + i) % len(nodes)]
        victims, violations, status = select_victims_on_node(
            runner,
            state,
            preemptor,
            node,
            pdbs,
            now=now,
            group_of=group_of,
            everywhere=everywhere,
        )
        if status.is_success() and victims:
            found = clean if violations == 0 else violating
            if len(found) < wanted:
                found.append(Candidate(node.name, tuple(victims), violations))
            if clean and len(clean) + len(violating) >= wanted:
                break
            continue
        if status.is_success():
            status = Status(Code.ERROR, f'expected at least one victim pod on node "{node.name}"')
        if status.code is Code.ERROR:
            result.errors.append(status)
        result.statuses.set(node.name, status)
    result.candidates = clean + violating
    return result


def candidate_rank(candidate: Candidate, now: float) -> tuple[int, int, int, int, float]:
    """Upstream `pickOneNodeForPreemption`'s criteria, in order; higher is better."""
    victims = candidate.victims
    highest = max(pod.priority for pod in victims)
    earliest = min(start_seconds(pod, now) for pod in victims if pod.priority == highest)
    return (
        -candidate.num_pdb_violations,
        -highest,
        -sum(pod.priority + _PRIORITY_OFFSET for pod in victims),
        -len(victims),
        earliest,
    )


def pick_one_node(candidates: Sequence[Candidate], *, now: float) -> Candidate | None:
    """The best candidate by upstream's criteria, in order (see the module docstring)."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    return max(candidates, key=lambda c: candidate_rank(c, now))  # the first of equals


# --- the whole evaluation -----------------------------------------------------------------


def evaluate(
    runner: FilterRunner,
    state: CycleState,
    preemptor: Pod,
    *,
    nodes: Sequence[NodeInfo],
    statuses: NodeToStatusReader,
    pdbs: Sequence[PodDisruptionBudget],
    min_candidate_nodes_percentage: int,
    min_candidate_nodes_absolute: int,
    offset: int,
    now: float,
    group_of: GroupOf | None = None,
    extenders: CandidatesHook | None = None,
) -> Evaluation:
    """Decide what preempting for `preemptor` would do, without doing anything.

    `nodes` is the whole snapshot; `statuses` says why each node rejected the preemptor;
    `offset` (taken modulo the number of potential nodes) is where the dry run starts;
    `group_of` (the `GenericWorkload` gate: a pod's native PodGroup) makes PodGroup members
    victims as kube-scheduler does with that gate (`node_victims`); `extenders` narrows
    the candidates before the best is picked."""
    nominated = preemptor.nominated_node_name
    nominated_node = next((node for node in nodes if node.name == nominated), None)
    reason = ineligibility(
        preemptor,
        nominated_status=statuses.get(nominated),
        nominated_node=nominated_node,
        group_of=group_of,
    )
    if reason:
        return Evaluation(None, Status(Code.UNSCHEDULABLE, reason))
    potential = potential_nodes(nodes, statuses)
    found = DryRun()
    if potential:
        wanted = num_candidates(
            len(potential),
            percentage=min_candidate_nodes_percentage,
            absolute=min_candidate_nodes_absolute,
        )
        found = dry_run(
            runner,
            state,
            preemptor,
            potential,
            pdbs,
            offset=offset % len(potential),
            wanted=wanted,
            now=now,
            group_of=group_of,
            everywhere=nodes,
        )
    if not found.candidates:
        if found.errors:
            return Evaluation(None, found.errors[0])
        found.statuses.absent_nodes_status = Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_HELPFUL
        )
        diagnosis = Diagnosis(node_to_status=found.statuses)
        message = fit_error_message(num_all_nodes=len(nodes), diagnosis=diagnosis)
        return Evaluation(None, Status(Code.UNSCHEDULABLE, message), clear_nomination=True)
    candidates = found.candidates if extenders is None else extenders(found.candidates)
    if isinstance(candidates, Status):
        return Evaluation(None, candidates)
    best = pick_one_node(candidates, now=now)
    if best is None:  # no candidate left by the extenders
        return Evaluation(None, Status(Code.UNSCHEDULABLE, NO_CANDIDATE))
    rank = candidate_rank(best, now)
    ties = tuple(c for c in candidates if c is not best and candidate_rank(c, now) == rank)
    return Evaluation(best, SUCCESS, ties=ties)


def placement_message(candidate: Candidate) -> str:
    """Upstream's success message (it ends the FailedScheduling event of this attempt)."""
    return (
        f"found a potential placement for pod on node {candidate.node_name}, "
        f"preempting {len(candidate.victims)} victims"
    )


__all__ = [
    "EXTENDER_CANDIDATES",
    "NOT_HELPFUL",
    "NO_VICTIMS",
    "Candidate",
    "CandidatesHook",
    "DryRun",
    "Evaluation",
    "candidate_rank",
    "dry_run",
    "evaluate",
    "ineligibility",
    "num_candidates",
    "pick_one_node",
    "placement_message",
    "potential_nodes",
    "select_victims_on_node",
    "start_seconds",
]
