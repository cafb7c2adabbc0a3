"""DefaultPreemption's core without a framework: victims per node (reprieve, PDBs), the
choice between candidate nodes, eligibility, PDB matching and the candidate count."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from kubesched.framework import SUCCESS, Code, CycleState, NodeInfo, NodeToStatus, Status
from kubesched.model import Pod, PodDisruptionBudget
from kubesched.plugins.default_preemption.evaluation import (
    NO_VICTIMS,
    Candidate,
    evaluate,
    ineligibility,
    num_candidates,
    pick_one_node,
    select_victims_on_node,
)
from kubesched.plugins.default_preemption.pdb import pdb_selects, violation_counts
from kubesched.plugins.default_preemption.victims import start_seconds
from kubesched.testing import make_node, make_pod

NOW = 1_800_000_000.0


@dataclass
class CpuRunner:
    """A FilterRunner that only checks CPU, and records the extension calls."""

    calls: list[str] = field(default_factory=list)

    def run_filter_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status:
        free = node_info.allocatable.milli_cpu - node_info.requested.milli_cpu
        if pod.requests.milli_cpu <= free:
            return SUCCESS
        return Status(Code.UNSCHEDULABLE, "Insufficient cpu")

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        self.calls.append(f"add {pod_to_add.name}")
        return SUCCESS

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        self.calls.append(f"remove {pod_to_remove.name}")
        return SUCCESS


def node(name: str, cpu: str, *pods: Pod) -> NodeInfo:
    info = NodeInfo(node=make_node().name(name).capacity(cpu=cpu).model())
    for pod in pods:
        info.add_pod(pod)
    return info


def victim(name: str, cpu: str, priority: int, *, start: str = "", **labels: str) -> Pod:
    builder = make_pod().name(name).namespace("ns").node("n").req(cpu=cpu).priority(priority)
    if start:
        builder = builder.start_time(start)
    for key, value in labels.items():
        builder = builder.label(key, value)
    return builder.model()


def preemptor(cpu: str = "1", priority: int = 100, **fields: Any) -> Pod:
    builder = make_pod().name("preemptor").namespace("ns").req(cpu=cpu).priority(priority)
    if "policy" in fields:
        builder = builder.preemption_policy(fields["policy"])
    if "nominated" in fields:
        builder = builder.nominated_node(fields["nominated"])
    return builder.model()


def pdb(
    selector: dict[str, Any] | None, *, allowed: int = 0, disrupted: tuple[str, ...] = ()
) -> PodDisruptionBudget:
    return PodDisruptionBudget(
        namespace="ns",
        name="pdb",
        selector=selector,
        disruptions_allowed=allowed,
        disrupted_pods=frozenset(disrupted),
    )


def names(pods: list[Pod] | tuple[Pod, ...]) -> list[str]:
    return [pod.name for pod in pods]


# --- select_victims_on_node -------------------------------------------------------------


@dataclass
class VictimCase:
    name: str
    pods: list[Pod]
    want_cpu: str
    pdbs: list[PodDisruptionBudget]
    victims: list[str]
    violations: int


VICTIM_CASES = [
    VictimCase(
        "reprieve keeps the more important pods; the lowest priority goes",
        [victim("p1", "1", 1), victim("p5", "1", 5), victim("p9", "1", 9)],
        "1",
        [],
        ["p1"],
        0,
    ),
    VictimCase(
        "two must go: the two least important",
        [victim("p1", "1", 1), victim("p5", "1", 5), victim("p9", "1", 9)],
        "2",
        [],
        ["p5", "p1"],
        0,
    ),
    VictimCase(
        "equal priority: the one started later goes (earlier is more important)",
        [
            victim("old", "1", 1, start="2025-01-01T00:00:00Z"),
            victim("new", "1", 1, start="2025-06-01T00:00:00Z"),
        ],
        "1",
        [],
        ["new"],
        0,
    ),
    VictimCase(
        "a PDB-protected pod is reprieved first, another is evicted instead",
        [victim("guarded", "1", 1, app="db"), victim("free", "1", 5)],
        "1",
        [pdb({"matchLabels": {"app": "db"}})],
        ["free"],
        0,
    ),
    VictimCase(
        "when nothing else makes room the protected pod goes, counted as a violation",
        [victim("guarded", "2", 1, app="db"), victim("free", "1", 5)],
        "2",
        [pdb({"matchLabels": {"app": "db"}})],
        ["guarded"],
        1,
    ),
    VictimCase(
        "a budget with room left is no violation",
        [victim("guarded", "2", 1, app="db")],
        "2",
        [pdb({"matchLabels": {"app": "db"}}, allowed=1)],
        ["guarded"],
        0,
    ),
    VictimCase(
        "victims end up most important first when both kinds are evicted",
        [victim("guarded", "1", 1, app="db"), victim("free", "1", 5)],
        "2",
        [pdb({"matchLabels": {"app": "db"}})],
        ["free", "guarded"],
        1,
    ),
]


@pytest.mark.parametrize("case", VICTIM_CASES, ids=[case.name for case in VICTIM_CASES])
def test_select_victims_on_node(case: VictimCase) -> None:
    full = sum(pod.requests.milli_cpu for pod in case.pods)
    info = node("n", f"{full}m", *case.pods)  # no room left
    before = info.requested.milli_cpu
    got, got_violations, status = select_victims_on_node(
        CpuRunner(), CycleState(), preemptor(case.want_cpu), info, case.pdbs, now=NOW
    )
    assert status.is_success()
    assert names(got) == case.victims
    assert got_violations == case.violations
    assert info.requested.milli_cpu == before, "the snapshot's node is never changed"


def test_only_lower_priority_pods_are_victims() -> None:
    info = node("n", "2", victim("same", "1", 100), victim("higher", "1", 200))
    got, _, status = select_victims_on_node(
        CpuRunner(), CycleState(), preemptor("1", 100), info, [], now=NOW
    )
    assert got == []
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message == NO_VICTIMS


def test_no_fit_even_without_every_victim_gives_the_filter_status() -> None:
    info = node("n", "2", victim("low", "1", 1), victim("high", "1", 500))
    got, _, status = select_victims_on_node(
        CpuRunner(), CycleState(), preemptor("2", 100), info, [], now=NOW
    )
    assert got == []
    assert status.code is Code.UNSCHEDULABLE
    assert status.message == "Insufficient cpu"


def test_prefilter_extensions_follow_every_removal_and_reprieve() -> None:
    runner = CpuRunner()
    info = node("n", "2", victim("a", "1", 1), victim("b", "1", 2))
    select_victims_on_node(runner, CycleState(), preemptor("1"), info, [], now=NOW)
    # Both removed (node order), then added back from the more important: "b" stays,
    # "a" does not fit with it and is removed again.
    assert runner.calls == ["remove a", "remove b", "add b", "add a", "remove a"]


# --- choosing the node ------------------------------------------------------------------


def cand(name: str, *victims: tuple[int, str], violations: int = 0) -> Candidate:
    pods = tuple(
        make_pod().name(f"{name}-{i}").priority(prio).start_time(start).model()
        for i, (prio, start) in enumerate(victims)
    )
    # Victims most important first: higher priority, then the one that started earlier.
    ordered = sorted(pods, key=lambda pod: (-pod.priority, start_seconds(pod, NOW)))
    return Candidate(name, tuple(ordered), violations)


T1, T2 = "2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z"


@pytest.mark.parametrize(
    ("case", "candidates", "chosen"),
    [
        (
            "fewest PDB violations first",
            [cand("a", (1, T1), violations=1), cand("b", (9, T1))],
            "b",
        ),
        ("lowest highest-priority victim", [cand("a", (5, T1)), cand("b", (3, T1), (3, T1))], "b"),
        (
            "smallest sum of priorities",
            [cand("a", (5, T1), (4, T1)), cand("b", (5, T1), (1, T1))],
            "b",
        ),
        ("fewest victims", [cand("a", (0, T1), (0, T1)), cand("b", (0, T1))], "b"),
        (
            "negative priorities: fewer victims still win on the sum",
            [cand("a", (-5, T1), (-5, T1)), cand("b", (-5, T1))],
            "b",
        ),
        (
            "latest start of the highest-priority victims",
            [cand("a", (5, T1)), cand("b", (5, T2))],
            "b",
        ),
        ("full tie: the first one", [cand("a", (5, T1)), cand("b", (5, T1))], "a"),
        ("a single candidate", [cand("only", (5, T1))], "only"),
    ],
)
def test_pick_one_node(case: str, candidates: list[Candidate], chosen: str) -> None:
    best = pick_one_node(candidates, now=NOW)
    assert best is not None
    assert best.node_name == chosen, case


def test_pick_one_node_of_nothing() -> None:
    assert pick_one_node([], now=NOW) is None


# --- eligibility, counts, PDB selectors ---------------------------------------------------


def test_preemption_policy_never_is_not_eligible() -> None:
    reason = ineligibility(preemptor(policy="Never"), nominated_status=SUCCESS, nominated_node=None)
    assert reason == "not eligible due to preemptionPolicy=Never."


def test_terminating_victim_on_the_nominated_node_makes_the_preemptor_wait() -> None:
    dying = make_pod().name("dying").node("n").priority(1).preempted().model()
    nominated = node("n", "4", dying)
    waiting = preemptor(nominated="n")
    unschedulable = Status(Code.UNSCHEDULABLE, "Insufficient cpu")
    assert ineligibility(waiting, nominated_status=unschedulable, nominated_node=nominated) == (
        "not eligible due to a terminating pod on the nominated node."
    )
    # ... unless the nominated node cannot take the pod at all any more.
    unresolvable = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "gone")
    assert not ineligibility(waiting, nominated_status=unresolvable, nominated_node=nominated)


@pytest.mark.parametrize(
    ("nodes", "percentage", "absolute", "want"),
    [(1000, 10, 100, 100), (5000, 10, 100, 500), (50, 10, 100, 50), (1000, 0, 3, 3)],
)
def test_num_candidates(nodes: int, percentage: int, absolute: int, want: int) -> None:
    assert num_candidates(nodes, percentage=percentage, absolute=absolute) == want


@pytest.mark.parametrize(
    ("selector", "labels", "selected"),
    [
        (None, {"a": "b"}, False),
        ({}, {"a": "b"}, False),  # an empty selector selects nothing here
        ({"matchLabels": {}}, {"a": "b"}, False),
        ({"matchLabels": {"a": "b"}}, {"a": "b"}, True),
        ({"matchLabels": {"a": "c"}}, {"a": "b"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]}, {"a": "b"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}, {"a": "b"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": "b"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": "b"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "Bogus"}]}, {"a": "b"}, False),
    ],
)
def test_pdb_selects(
    selector: dict[str, Any] | None, labels: dict[str, str], selected: bool
) -> None:
    assert pdb_selects(selector, labels) is selected


def test_pdb_budget_is_shared_by_the_victims_in_order() -> None:
    pods = [victim(f"db{i}", "1", 1, app="db") for i in range(3)]
    budget = pdb({"matchLabels": {"app": "db"}}, allowed=1, disrupted=("db1",))
    counts = violation_counts([(pod,) for pod in pods], [budget])
    # db0 uses the one disruption allowed, db1 is already being disrupted, db2 violates.
    assert counts == [0, 0, 1]


def test_pdb_violations_of_a_group_count_each_of_its_pods() -> None:
    pods = [victim(f"db{i}", "1", 1, app="db") for i in range(3)]
    budget = pdb({"matchLabels": {"app": "db"}}, allowed=1)
    assert violation_counts([pods[:2], pods[2:]], [budget]) == [1, 1]


def test_pdb_of_another_namespace_and_unlabelled_pods_never_violate() -> None:
    other = PodDisruptionBudget(namespace="other", name="x", selector={"matchLabels": {"a": "b"}})
    unlabelled = make_pod().name("u").namespace("ns").model()
    labelled = victim("l", "1", 1, a="b")
    assert violation_counts([(unlabelled,), (labelled,)], [other]) == [0, 0]


# --- the whole evaluation ------------------------------------------------------------------


def statuses(**by_node: Status) -> NodeToStatus:
    result = NodeToStatus()
    for name, status in by_node.items():
        result.set(name, status)
    return result


def test_evaluate_skips_unresolvable_nodes_and_reports_upstreams_message() -> None:
    nodes = [node("a", "1", victim("x", "1", 1)), node("b", "1", victim("y", "1", 1))]
    rejected = statuses(
        a=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match Pod's node affinity"),
        b=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match Pod's node affinity"),
    )
    evaluation = evaluate(
        CpuRunner(),
        CycleState(),
        preemptor("1"),
        nodes=nodes,
        statuses=rejected,
        pdbs=[],
        min_candidate_nodes_percentage=10,
        min_candidate_nodes_absolute=100,
        offset=0,
        now=NOW,
    )
    assert evaluation.candidate is None
    assert evaluation.clear_nomination
    assert evaluation.status.message == (
        "0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )


def test_evaluate_finds_the_cheapest_node() -> None:
    nodes = [
        node("two-small", "2", victim("s1", "1", 1), victim("s2", "1", 1)),
        node("one-big", "2", victim("big", "2", 1)),
        node("important", "2", victim("vip", "2", 50)),
    ]
    insufficient = Status(Code.UNSCHEDULABLE, "Insufficient cpu")
    evaluation = evaluate(
        CpuRunner(),
        CycleState(),
        preemptor("2"),
        nodes=nodes,
        statuses=statuses(**{n.name: insufficient for n in nodes}),
        pdbs=[],
        min_candidate_nodes_percentage=10,
        min_candidate_nodes_absolute=100,
        offset=7,
        now=NOW,
    )
    assert evaluation.candidate == Candidate("one-big", (nodes[1].pods["uid-big"],), 0)
