"""An independent checker of topology-gang placements, written from kube-scheduler v1.37's
rules (TopologyPlacementGenerator, GangScheduling), not from kubesched's code.

    problems, feasible = check_side(scenario, outcomes, final_nodes)

For each gang in submission order, on the cluster its predecessors left on that side: at
least `minCount` members are bound or none is (all or nothing); bound members share one
domain of the gang's key (every node carries the key, one value); no node holds more than
its allocatable cpu and memory (pre-bound pods counted); a gang stays where it settled until
the run ends. `feasible[i]` is the domains where `minCount` of gang i's members could be
packed at all (an exact search over every choice of members, not the scheduler's greedy
order): a gang bound outside them is a capacity violation, and when only one domain is
feasible the domain is upstream's deterministic choice.

A gang bound with members left over (more members than `minCount`, not all fitting) had a
second cycle for those at once (`AddAttemptedPodGroupIfNeeded` requeues them without
backoff): one placement, the domain of the bound members (`TopologyPlacement`), where each
says `0/N nodes are available: ...` with N that domain's nodes; the group's status is
`pod group is unschedulable` with the preemption part (`runRootSchedulingAlgorithm`,
`applyPodGroupPostFilterResult`), and the condition it writes is either left True
(`updatePodGroupCondition` read its True) or False with that message (it read the PodGroup
before its own True came back), or True with that message (it read an earlier False):
`LEFTOVER_CONDITIONS`.

The members' texts of a gang no placement holds follow from the group's condition
(upstream's submitPodGroupAlgorithmResult): with `first placement status: minCount (M)
cannot be satisfied: S scheduled, R remaining`, the S members placed on trial say `pod group
is unschedulable, <condition>`, the R members never tried say the condition without its
preemption part, and the others (those that did not fit) say `0/N nodes are available: ...`
(counting that placement's nodes); each member's FailedScheduling event says the same."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from tests.e2e.harness.topology_live import GangOutcome
from tests.e2e.harness.topology_scenario import Amount, Gang, Node, Scenario


def placements(scenario: Scenario, gang: Gang) -> list[str]:
    """The domains upstream generates for a gang with nothing bound: each value of its key."""
    return sorted({v for node in scenario.nodes if (v := node.label(gang.key)) is not None})


def domain_of(scenario: Scenario, gang: Gang, nodes: Sequence[str]) -> str | None:
    """The one domain all bound `nodes` share, or None (unbound, unlabelled, or split)."""
    by_name = {node.name: node for node in scenario.nodes}
    values = {by_name[name].label(gang.key) for name in nodes if name}
    return values.pop() if len(values) == 1 else None


def _free(scenario: Scenario, used: dict[str, Amount]) -> dict[str, Amount]:
    free = {}
    for node in scenario.nodes:
        taken = used.get(node.name, Amount(0, 0))
        free[node.name] = Amount(
            node.allocatable.cpu - taken.cpu, node.allocatable.memory - taken.memory
        )
    return free


def packs(members: Sequence[Amount], room: list[Amount]) -> bool:
    """Whether `members` fit into `room` (one Amount a node), by an exact search."""
    if not members:
        return True
    first, rest = members[0], members[1:]
    tried: set[Amount] = set()
    for index, space in enumerate(room):
        if space in tried or space.cpu < first.cpu or space.memory < first.memory:
            continue
        tried.add(space)
        room[index] = Amount(space.cpu - first.cpu, space.memory - first.memory)
        fits = packs(rest, room)
        room[index] = space
        if fits:
            return True
    return False


def feasible_domains(scenario: Scenario, gang: Gang, used: dict[str, Amount]) -> list[str]:
    """The domains of `gang`'s key where `minCount` of its members could be placed now."""
    free = _free(scenario, used)
    members = sorted(gang.members, key=lambda m: (m.cpu, m.memory), reverse=True)
    choices = {tuple(chosen) for chosen in combinations(members, gang.min_count)}
    found = []
    for domain in placements(scenario, gang):
        room = [free[n.name] for n in scenario.nodes if n.label(gang.key) == domain]
        if any(packs(chosen, room) for chosen in choices):
            found.append(domain)
    return found


SCHEDULED = ("True", "Scheduled", "")
LEFTOVER_MESSAGE = (
    "pod group is unschedulable, pod group preemption: "
    "No preemption victims found for incoming preemptor"
)
LEFTOVER_CONDITIONS = (
    SCHEDULED,
    ("False", "Unschedulable", LEFTOVER_MESSAGE),
    ("True", "Scheduled", LEFTOVER_MESSAGE),
)
"""The conditions a gang bound with members left over may end with (no pod of a lower
priority in a scenario: no victims); the third when a cycle before the one that scheduled
it had written False (its patch, the difference from the False it read, is the message)."""

_FIRST = re.compile(r"minCount \((\d+)\) cannot be satisfied: (\d+) scheduled, (\d+) remaining")
_OWN = re.compile(r"^0/\d+ nodes are available: ")
_PREEMPTION = ", pod group preemption: "


def text_problems(gang: Gang, outcome: GangOutcome) -> list[str]:
    """Whether an unbound gang's member texts are the ones its condition implies."""
    message = outcome.condition[2] if outcome.condition else ""
    found = _FIRST.search(message) if "first placement status: " in message else None
    if any(outcome.nodes) or found is None:
        return []
    wanted, scheduled, remaining = (int(group) for group in found.groups())
    said = [reason.partition(" | event: ") for reason in outcome.reasons]
    problems = [
        f"{gang.name}: event {note!r} after {text!r}" for text, _, note in said if text != note
    ]
    kinds = Counter(
        "placed"
        if text == f"pod group is unschedulable, {message}"
        else "untried"
        if text == message.partition(_PREEMPTION)[0]
        else "failed"
        if _OWN.match(text)
        else text
        for text, _, _ in said
    )
    failed = len(gang.members) - scheduled - remaining
    expected = Counter(placed=scheduled, untried=remaining, failed=failed)
    if +kinds != +expected or wanted != gang.min_count:
        problems.append(f"{gang.name}: members say {dict(kinds)} after {message!r}")
    return problems


def bound_problems(scenario: Scenario, gang: Gang, outcome: GangOutcome) -> list[str]:
    """A bound gang's condition, and its leftover members' texts (see the module docstring)."""
    if not any(outcome.nodes):
        return []
    if not outcome.leftover:
        fine = outcome.condition == SCHEDULED and not outcome.reasons
        return [] if fine else [f"{gang.name}: bound, with {outcome.condition}, {outcome.reasons}"]
    problems = []
    if outcome.condition not in LEFTOVER_CONDITIONS:
        problems.append(f"{gang.name}: bound with members left over, {outcome.condition}")
    domain = domain_of(scenario, gang, outcome.nodes)
    size = sum(1 for node in scenario.nodes if domain and node.label(gang.key) == domain)
    for text, _, note in (reason.partition(" | event: ") for reason in outcome.reasons):
        if not text.startswith(f"0/{size} nodes are available: ") or note != text:
            problems.append(f"{gang.name}: a member left over in {domain} says {text!r}, {note!r}")
    return problems


def _take(used: dict[str, Amount], node: str, amount: Amount) -> None:
    before = used.get(node, Amount(0, 0))
    used[node] = Amount(before.cpu + amount.cpu, before.memory + amount.memory)


def _gang_problems(scenario: Scenario, gang: Gang, outcome: GangOutcome) -> list[str]:
    bound = [name for name in outcome.nodes if name]
    if not bound:
        return []
    problems = []
    if len(bound) < gang.min_count:
        problems.append(f"{gang.name}: {len(bound)} members bound, minCount {gang.min_count}")
    if domain_of(scenario, gang, bound) is None:
        problems.append(f"{gang.name}: members outside one domain of {gang.key}: {bound}")
    return problems


def _overcommitted(nodes: Sequence[Node], used: dict[str, Amount]) -> list[str]:
    return [
        f"node {node.name} holds {used[node.name]} of {node.allocatable}"
        for node in nodes
        if node.name in used
        and (
            used[node.name].cpu > node.allocatable.cpu
            or used[node.name].memory > node.allocatable.memory
        )
    ]


def check_side(
    scenario: Scenario, outcomes: Sequence[GangOutcome], final: dict[str, tuple[str, ...]]
) -> tuple[list[str], list[list[str]]]:
    """One side's rule violations, and each gang's feasible domains when it came."""
    used: dict[str, Amount] = {}
    for pod in scenario.prebound:
        _take(used, pod.node, pod.request)
    problems: list[str] = []
    feasible: list[list[str]] = []
    for gang, outcome in zip(scenario.gangs, outcomes, strict=True):
        feasible.append(feasible_domains(scenario, gang, used))
        problems.extend(_gang_problems(scenario, gang, outcome))
        problems.extend(text_problems(gang, outcome))
        problems.extend(bound_problems(scenario, gang, outcome))
        for node, member in zip(outcome.nodes, gang.members, strict=True):
            if node:
                _take(used, node, member)
        if final[gang.name] != outcome.nodes:
            problems.append(f"{gang.name}: settled on {outcome.nodes}, ended on {final[gang.name]}")
    return problems + _overcommitted(scenario.nodes, used), feasible
