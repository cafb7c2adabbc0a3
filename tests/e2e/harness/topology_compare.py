"""kube-scheduler's run of a topology-gang scenario against kubesched's
(tests/e2e/test_topology_differential.py).

    tally = compare(scenario, theirs, ours)       # Run: outcomes and final nodes of a side

Each side is first held to the independent checker (harness/topology_check.py). Then, gang
by gang and while both clusters are still the same, the two runs must agree on: bound or
not, and how many members (PodGroupPodsCount prefers the domain holding the most); the
PodGroup's `PodGroupInitiallyScheduled` condition; each unbound member's PodScheduled
message and FailedScheduling event; and the domain, where upstream's choice is deterministic
(one domain can hold the gang). Where it is not (several can, and PodGroupPodsCount ties
them: upstream breaks the tie at random), the two may bind in different domains; from that
gang on the clusters differ and only the checker applies. Upstream also reports the first
placement it tried of an unschedulable gang in a random order (Go map order): with more than
one placement, the condition is compared with the counts that come from that placement
masked (`S scheduled, R remaining`), and each side's member texts are held by the checker to
the ones its own condition implies. A gang bound with members left over may end with either
of the checker's `LEFTOVER_CONDITIONS` on either side (a race in upstream's
`updatePodGroupCondition`): the two are compared as one and counted (`raced`); the texts of
the members left over are compared as they are. How many members beyond `minCount` fit
follows from the nodes chosen: when the two bound such a gang on different nodes (upstream
picks at random among nodes of equal score), the rest is checked alone. The clusters also
part where the members sit on the same nodes but not each on the same one (members differ
in size). Where kube-scheduler's first cycle for a gang held only part of it
(`GangOutcome.partial_first_cycle`, a race of upstream's queue) and the outcomes differ,
its members met the nodes in another order: the clusters part there, unchecked but by the
checker."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from tests.e2e.harness.topology_check import (
    LEFTOVER_CONDITIONS,
    SCHEDULED,
    check_side,
    domain_of,
    placements,
)
from tests.e2e.harness.topology_live import GangOutcome
from tests.e2e.harness.topology_scenario import Gang, Scenario

_FIRST_PLACEMENT = re.compile(r"\d+ scheduled, \d+ remaining")


@dataclass(frozen=True)
class Run:
    """One side's outcomes (in gang order) and where each gang's members ended."""

    outcomes: list[GangOutcome]
    final: dict[str, tuple[str, ...]]


@dataclass
class Tally:
    """Comparisons made and the mismatches found, with a readable trace."""

    checks: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)
    mismatches: list[str] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    diverged: int = 0
    """1 when the clusters parted at a legal tie (the gangs after it checked alone)."""
    raced: int = 0
    """Gangs with members left over whose two conditions differed only by the race."""

    def see(self, kind: str, theirs: object, ours: object, where: str) -> bool:
        """Count one comparison; a difference is a mismatch."""
        self.checks[kind] += 1
        if theirs == ours:
            self.matched[kind] += 1
            return True
        self.mismatches.append(f"{where} {kind}: kube-scheduler {theirs!r}, kubesched {ours!r}")
        return False

    def summary(self) -> str:
        """Matched/made per comparison, and whether the clusters parted at a tie."""
        counts = sorted(self.checks.items())
        made = " ".join(f"{kind}={self.matched[kind]}/{n}" for kind, n in counts)
        return f"{made} diverged={self.diverged} raced={self.raced}"


def mask(text: str) -> str:
    """`text` without the parts that name the placement upstream happened to try first."""
    return _FIRST_PLACEMENT.sub("<s> scheduled, <r> remaining", text)


def _texts(outcome: GangOutcome, masked: bool) -> tuple[object, object]:
    """The condition and member texts to compare; masked: the condition with its counts
    masked, and no member texts (the checker holds each side's to its condition). With
    members left over, either condition of the race reads as True."""
    if outcome.leftover and outcome.condition in LEFTOVER_CONDITIONS:
        return SCHEDULED, outcome.reasons
    if not masked:
        return outcome.condition, outcome.reasons
    condition = outcome.condition
    if condition is not None:
        condition = (condition[0], condition[1], mask(condition[2]))
    return condition, len(outcome.reasons)


def _gang(
    tally: Tally, scenario: Scenario, gang: Gang, pair: tuple[GangOutcome, GangOutcome], sure: bool
) -> bool:
    """Compare one gang; whether the two clusters are still the same after it."""
    theirs, ours = pair
    where = f"seed {scenario.seed} {gang.name}"
    if theirs.partial_first_cycle and theirs.nodes != ours.nodes:
        tally.trace.append(
            f"{gang.name}: kube-scheduler's first cycle held part of the gang (its race), "
            f"its members came in another order: kube-scheduler {theirs.nodes}, "
            f"kubesched {ours.nodes}"
        )
        return False
    bound = (any(theirs.nodes), any(ours.nodes))
    same = tally.see("bound", bound[0], bound[1], where)
    masked = not bound[0] and len(placements(scenario, gang)) > 1
    their_texts, our_texts = _texts(theirs, masked), _texts(ours, masked)
    tally.see("condition", their_texts[0], our_texts[0], where)
    if theirs.leftover and ours.leftover and theirs.condition != ours.condition:
        tally.raced += 1
        tally.trace.append(f"{gang.name}: conditions {theirs.condition}, {ours.condition}")
    domains = domain_of(scenario, gang, theirs.nodes), domain_of(scenario, gang, ours.nodes)
    if bound == (True, True) and sure:
        same &= tally.see("domain", domains[0], domains[1], where)
    parted = domains[0] != domains[1] or theirs.nodes != ours.nodes
    if parted and bound == (True, True) and len(gang.members) > gang.min_count:
        # Nodes of equal score (or domains) tied: how many extra members fit follows from it.
        tally.trace.append(f"{gang.name}: kube-scheduler {theirs.nodes}, kubesched {ours.nodes}")
        return False
    counts = [sum(1 for name in side.nodes if name) for side in pair]
    same &= tally.see("members", counts[0], counts[1], where)
    tally.see("reasons", their_texts[1], our_texts[1], where)
    if parted:
        tally.trace.append(f"{gang.name}: kube-scheduler {theirs.nodes}, kubesched {ours.nodes}")
        return False
    return same


def compare(scenario: Scenario, theirs: Run, ours: Run) -> Tally:
    """Hold both runs to the checker, then compare them while their clusters agree."""
    tally = Tally()
    their_problems, feasible = check_side(scenario, theirs.outcomes, theirs.final)
    our_problems, _ = check_side(scenario, ours.outcomes, ours.final)
    tally.see("checker", [], their_problems, f"seed {scenario.seed} kube-scheduler's run")
    tally.see("checker", [], our_problems, f"seed {scenario.seed} kubesched's run")
    pairs = zip(scenario.gangs, theirs.outcomes, ours.outcomes, feasible, strict=True)
    for gang, their_outcome, our_outcome, domains in pairs:
        kind = "one" if len(domains) == 1 else f"{len(domains)}"
        tally.trace.append(f"{gang.name} key={gang.key} feasible domains: {domains} ({kind})")
        sure = len(domains) == 1
        if not _gang(tally, scenario, gang, (their_outcome, our_outcome), sure):
            tally.trace.append(f"clusters differ after {gang.name}: the rest checked alone")
            tally.diverged += 1
            break
    return tally
