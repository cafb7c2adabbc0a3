"""The topology-gang differential's checker and comparison (tests/e2e/harness/topology_*):
they must flag what upstream's rules forbid and let through what they allow."""

from __future__ import annotations

from dataclasses import replace

from tests.e2e.harness.topology_check import check_side, feasible_domains, packs, text_problems
from tests.e2e.harness.topology_compare import Run, compare, mask
from tests.e2e.harness.topology_live import GangOutcome
from tests.e2e.harness.topology_scenario import (
    RACK_KEY,
    ZONE_KEY,
    Amount,
    Gang,
    Node,
    Prebound,
    Scenario,
    generate,
)

GROUP = (
    "pod group is unschedulable, 0/2 placements are available, first placement status: "
    "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"
)
PREEMPTION = ", pod group preemption: No preemption victims found for incoming preemptor"


def _node(name: str, rack: str, cpu: int) -> Node:
    return Node(name, Amount(cpu, 4096), ((ZONE_KEY, "z"), (RACK_KEY, rack)))


def _scenario(*gangs: Gang, prebound: tuple[Prebound, ...] = ()) -> Scenario:
    nodes = (_node("a0", "a", 2000), _node("a1", "a", 2000), _node("b0", "b", 3000))
    return Scenario(1, nodes, prebound, gangs)


def _gang(name: str, *cpus: int, extra: int = 0) -> Gang:
    return Gang(name, RACK_KEY, tuple(Amount(cpu, 100) for cpu in cpus), len(cpus) - extra)


def _bound(gang: Gang, *nodes: str) -> GangOutcome:
    return GangOutcome(gang.name, nodes, ("True", "Scheduled", ""), ())


def _said(text: str) -> str:
    return f"{text} | event: {text}"


def test_the_same_seed_gives_the_same_scenario() -> None:
    assert generate(5) == generate(5)
    assert generate(5) != generate(6)


def test_packing_is_exact_not_greedy() -> None:
    # 1+1 on one 2-cpu node and 2 on the other: a spreading greedy fails, a packing fits.
    members = [Amount(2000, 1), Amount(1000, 1), Amount(1000, 1)]
    assert packs(members, [Amount(2000, 10), Amount(2000, 10)])
    assert not packs(members, [Amount(2000, 10), Amount(1500, 10)])


def test_feasible_domains_count_what_is_already_bound() -> None:
    # Rack b's one node of 3 cpu holds one member of 2; rack a's two nodes hold both.
    gang = _gang("g", 2000, 2000)
    scenario = _scenario(gang, prebound=(Prebound("p", "a0", Amount(1000, 1)),))
    assert feasible_domains(scenario, gang, {}) == ["a"]
    assert feasible_domains(scenario, gang, {"a0": Amount(1000, 1)}) == []


def test_a_split_partial_or_overcommitted_gang_is_flagged() -> None:
    split, partial, big = _gang("split", 1000, 1000), _gang("partial", 500, 500), _gang("big", 2500)
    scenario = _scenario(split, partial, big)
    outcomes = [_bound(split, "a0", "b0"), _bound(partial, "a1", ""), _bound(big, "a1")]
    final = {o.name: o.nodes for o in outcomes}
    problems, _ = check_side(scenario, outcomes, final)
    assert any("split: members outside one domain" in p for p in problems)
    assert any("partial: 1 members bound, minCount 2" in p for p in problems)
    assert any(p.startswith("node a1 holds") for p in problems)
    moved = {**final, "big": ("",)}
    assert any("big: settled on" in p for p in check_side(scenario, outcomes, moved)[0])


def test_member_texts_follow_the_group_condition() -> None:
    gang = _gang("g", 1000, 1000, 1000)
    condition = GROUP + PREEMPTION
    right = (
        _said(f"pod group is unschedulable, {condition}"),
        _said(GROUP),
        _said("0/2 nodes are available: 2 Insufficient cpu."),
    )
    outcome = GangOutcome("g", ("", "", ""), ("False", "Unschedulable", condition), right)
    assert text_problems(gang, outcome) == []
    wrong = (right[0], right[0], right[2])
    problems = text_problems(gang, GangOutcome("g", ("", "", ""), outcome.condition, wrong))
    assert len(problems) == 1
    assert "members say" in problems[0]


def test_compare_masks_the_first_placement_and_stops_at_a_tie() -> None:
    assert mask(GROUP).endswith("minCount (3) cannot be satisfied: <s> scheduled, <r> remaining")
    gang, after = _gang("g", 1000), _gang("after", 2000)
    scenario = _scenario(gang, after)
    refused = GangOutcome("after", ("",), ("False", "Unschedulable", "x"), ())
    theirs = Run([_bound(gang, "a0"), refused], {"g": ("a0",), "after": ("",)})
    ours = Run([_bound(gang, "b0"), _bound(after, "a1")], {"g": ("b0",), "after": ("a1",)})
    tally = compare(scenario, theirs, ours)
    assert tally.mismatches == []
    assert tally.diverged == 1
    one_rack = _scenario(_gang("g", 3000))
    theirs = Run([_bound(one_rack.gangs[0], "b0")], {"g": ("b0",)})
    ours = Run([_bound(one_rack.gangs[0], "a0")], {"g": ("a0",)})
    tally = compare(one_rack, theirs, ours)
    assert any("domain" in line for line in tally.mismatches)


def test_members_on_the_same_nodes_each_elsewhere_part_the_clusters() -> None:
    # One rack holds both members either way; which member sits where changes what is left.
    gang, after = _gang("g", 500, 1500), _gang("after", 1500)
    scenario = _scenario(gang, after)
    refused = GangOutcome("after", ("",), ("False", "Unschedulable", "x"), ())
    theirs = Run([_bound(gang, "a0", "a1"), refused], {"g": ("a0", "a1"), "after": ("",)})
    ours = Run(
        [_bound(gang, "a1", "a0"), _bound(after, "a1")], {"g": ("a1", "a0"), "after": ("a1",)}
    )
    tally = compare(scenario, theirs, ours)
    assert tally.mismatches == []
    assert tally.diverged == 1


def test_kube_schedulers_partial_first_cycle_parts_the_clusters_only_where_it_mattered() -> None:
    gang = _gang("g", 1000, 1000)
    scenario = _scenario(gang)
    text = "pod group is unschedulable, 0/2 placements are available, first placement status: x"
    refused = GangOutcome("g", ("", ""), ("False", "Unschedulable", text), (), True)
    bound = _bound(gang, "a0", "a1")
    tally = compare(scenario, Run([refused], {"g": ("", "")}), Run([bound], {"g": bound.nodes}))
    assert tally.mismatches == []
    assert any("first cycle held part of the gang" in line for line in tally.trace)
    raced_alike = GangOutcome("g", bound.nodes, bound.condition, (), True)
    tally = compare(
        scenario, Run([raced_alike], {"g": bound.nodes}), Run([bound], {"g": bound.nodes})
    )
    assert tally.mismatches == []
    assert tally.diverged == 0
    plain = replace(refused, partial_first_cycle=False)
    tally = compare(scenario, Run([plain], {"g": ("", "")}), Run([bound], {"g": bound.nodes}))
    assert any("bound: kube-scheduler False, kubesched True" in line for line in tally.mismatches)
