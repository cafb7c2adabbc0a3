"""CapacityScheduling's preemption rules: eligibility (TestPodEligibleToPreemptOthers in
scheduler-plugins' capacity_scheduling_test.go), PodDisruptionBudgets, the texts when no
node can help, and its README's demo (two quotas of min 4 / max 6 CPUs on 8 CPUs)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kubesched.framework import POD_DISRUPTION_BUDGETS, Code, CycleState, Status
from kubesched.model import ApiObject, Pod, PodDisruptionBudget, Resource
from kubesched.plugins.capacity_scheduling.core import (
    PRE_FILTER_KEY,
    SNAPSHOT_KEY,
    PreFilterState,
    QuotaSnapshot,
)
from kubesched.plugins.capacity_scheduling.preemption import (
    NOT_ELIGIBLE_NEVER,
    NOT_ELIGIBLE_STATE,
    NOT_ELIGIBLE_TERMINATING,
    ineligibility,
)
from kubesched.plugins.capacity_scheduling.quota import QuotaInfo, QuotaInfos
from kubesched.plugins.capacity_scheduling.victims import split_by_pdb
from kubesched.testing import make_node, make_pod

from .conftest import Cluster, quota

MID, HIGH = 100, 1000


def mem(amount: int) -> Resource:
    return Resource(memory=amount)


def eq(namespace: str, used: int) -> QuotaInfo:
    return QuotaInfo(namespace, min=mem(50), max=mem(150), used=mem(used))


@dataclass
class Eligibility:
    name: str
    preemptor: Pod
    on_node: list[Pod]
    infos: QuotaInfos
    expected: str
    nominated_status: Status = Status(Code.SUCCESS)  # noqa: RUF009 - immutable


def nominated(ns: str = "ns1", *, never: bool = False) -> Pod:
    builder = make_pod().name("t1-p1").uid("t1-p1").namespace(ns).priority(HIGH)
    if never:
        return builder.preemption_policy("Never").model()
    return builder.nominated_node("node-a").model()


def terminating(ns: str) -> Pod:
    builder = make_pod().name("t1-p0").uid("t1-p0").namespace(ns).priority(MID).node("node-a")
    return builder.preempted().model()


def running(ns: str) -> Pod:
    builder = make_pod().name("t1-p0").uid("t1-p0").namespace(ns).priority(MID).node("node-a")
    return builder.req(memory="50", cpu="10m").model()


ELIGIBILITY = [
    Eligibility(
        "preemptionPolicy Never",
        nominated(never=True),
        [running("ns1")],
        QuotaInfos(ns1=eq("ns1", 0)),
        NOT_ELIGIBLE_NEVER,
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint"),
    ),
    Eligibility(
        "nominated node unschedulable and unresolvable",
        nominated(),
        [running("ns1")],
        QuotaInfos(ns1=eq("ns1", 0)),
        "",
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint"),
    ),
    Eligibility(
        "terminating pod in the same namespace",
        nominated(),
        [terminating("ns1")],
        QuotaInfos(ns1=eq("ns1", 0)),
        NOT_ELIGIBLE_TERMINATING,
    ),
    Eligibility(
        "terminating pod in another namespace over its min",
        nominated(),
        [terminating("ns2")],
        QuotaInfos(ns1=eq("ns1", 0), ns2=eq("ns2", 100)),
        NOT_ELIGIBLE_TERMINATING,
    ),
    Eligibility(
        "no quotas, a terminating pod of lower priority",
        nominated(),
        [terminating("ns2")],
        QuotaInfos(),
        NOT_ELIGIBLE_TERMINATING,
    ),
    Eligibility(
        "no quota for the preemptor, the terminating pod has one",
        nominated(),
        [terminating("ns2")],
        QuotaInfos(ns2=eq("ns2", 100)),
        "",
    ),
]


@pytest.mark.parametrize("case", ELIGIBILITY, ids=[c.name for c in ELIGIBILITY])
def test_eligibility(case: Eligibility) -> None:
    cluster = Cluster([make_node().name("node-a").capacity(memory="150").model()])
    for pod in case.on_node:
        cluster.bind(pod)
    state = CycleState()
    state.write(PRE_FILTER_KEY, PreFilterState(Resource(), Resource(), Resource()))
    state.write(SNAPSHOT_KEY, QuotaSnapshot(case.infos))
    info = cluster.handle.get_node_info("node-a")
    reason = ineligibility(
        state, case.preemptor, nominated_status=case.nominated_status, nominated=info
    )
    assert reason == case.expected


def test_without_pre_filter_state_a_pod_is_not_eligible() -> None:
    reason = ineligibility(
        CycleState(), nominated(), nominated_status=Status(Code.SUCCESS), nominated=None
    )
    assert reason == NOT_ELIGIBLE_STATE


# ---- PodDisruptionBudgets -----------------------------------------------------------------


def labelled(name: str, app: str) -> Pod:
    return make_pod().name(name).uid(name).namespace("ns").label("app", app).model()


def test_split_by_pdb_uses_each_budget_in_order() -> None:
    budget = PodDisruptionBudget(
        "ns", "web", selector={"matchLabels": {"app": "web"}}, disruptions_allowed=1
    )
    empty = PodDisruptionBudget("ns", "all", selector={}, disruptions_allowed=0)
    pods = [labelled("a", "web"), labelled("b", "web"), labelled("c", "db")]
    violating, others = split_by_pdb(pods, [budget, empty])
    assert [p.name for p in violating] == ["b"]
    assert [p.name for p in others] == ["a", "c"]


def test_a_protected_borrower_is_spared_when_another_one_makes_room() -> None:
    nodes = [make_node().name(n).capacity(cpu="2").model() for n in ("n1", "n2")]
    quotas = [
        quota("team-a", min_={"cpu": "2"}, max_={"cpu": "4"}),
        quota("team-b", min_={"cpu": "2"}, max_={"cpu": "4"}),
    ]
    cluster = Cluster(nodes, quotas)
    pdb = {
        "metadata": {"namespace": "team-a", "name": "db"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}},
    }
    cluster.handle.listers.declare(POD_DISRUPTION_BUDGETS)
    cluster.handle.listers.add(
        POD_DISRUPTION_BUDGETS,
        ApiObject.from_json(pdb),
    )
    for name, where, app in (
        ("db", "n1", "db"),
        ("web", "n2", "web"),
        ("a3", "n1", "x"),
        ("a4", "n2", "x"),
    ):
        pod = make_pod().name(name).uid(name).namespace("team-a").label("app", app).req(cpu="1")
        cluster.bind(pod.model(), where)
    error = cluster.refuse(make_pod().name("b1").uid("b1").namespace("team-b").req(cpu="2").model())
    assert "total ElasticQuota used is more than min" in str(error)
    [preemption] = cluster.handle.preemptions
    assert "team-a/db" not in preemption.keys[2]
    assert len(preemption.keys[2]) == 2


# ---- no node can help -------------------------------------------------------------------


def nginx(i: int, namespace: str = "quota1") -> Pod:
    return make_pod().name(f"nginx-{i}").namespace(namespace).req(cpu="2").model()


@pytest.mark.parametrize(
    ("quotas", "placed", "refusal"),
    [
        (["quota1"], 2, "total ElasticQuota used is more than min"),
        (["quota1", "quota2"], 3, "ElasticQuota quota1 is more than Max"),
    ],
    ids=["alone, a quota cannot borrow", "at its max"],
)
def test_a_quota_cannot_preempt_its_peers_of_equal_priority(
    quotas: list[str], placed: int, refusal: str
) -> None:
    nodes = [make_node().name(n).capacity(cpu="4").model() for n in ("node-1", "node-2")]
    limits = {"min_": {"cpu": "4"}, "max_": {"cpu": "6"}}
    cluster = Cluster(nodes, [quota(name, **limits) for name in quotas])
    for i in range(placed):
        cluster.schedule(nginx(i))
    error = cluster.refuse(nginx(placed))
    name = f"nginx-{placed}"
    assert str(error) == (
        f"0/2 nodes are available: Pod quota1/{name} is rejected in PreFilter because"
        f" {refusal}. 0/2 nodes are available:"
        f" 1 No victims found on node node-1 for preemptor pod {name},"
        f" 1 No victims found on node node-2 for preemptor pod {name}."
    )
    assert cluster.handle.preemptions == []
    assert error.nominated_node_name == ""
    assert not error.keep_nomination


# ---- the README's demo ------------------------------------------------------------------


def test_demo_quota2_reclaims_what_quota1_borrowed() -> None:
    nodes = [make_node().name(n).capacity(cpu="4").model() for n in ("node-1", "node-2")]
    limits = {"min_": {"cpu": "4"}, "max_": {"cpu": "6"}}
    cluster = Cluster(nodes, [quota("quota1", **limits), quota("quota2", **limits)])
    app1 = [make_pod().name(f"app1-{i}").namespace("quota1").req(cpu="2").model() for i in range(4)]
    for pod in app1[:3]:
        cluster.schedule(pod)
    cluster.refuse(app1[3])
    assert cluster.plugin.book.infos["quota1"].used.milli_cpu == 6000
    app2 = [make_pod().name(f"app2-{i}").namespace("quota2").req(cpu="2").model() for i in range(2)]
    cluster.schedule(app2[0])
    error = cluster.refuse(app2[1])
    assert str(error) == (
        "0/2 nodes are available: Pod quota2/app2-1 is rejected in PreFilter because"
        " total ElasticQuota used is more than min."
    )
    [preemption] = cluster.handle.preemptions
    preemptor, node_name, victims = preemption.keys
    assert preemptor == "quota2/app2-1"
    assert error.nominated_node_name == node_name
    assert len(victims) == 1
    assert victims[0].startswith("quota1/app1-")


def test_global_quota_max_exceeded_when_evicting_cannot_bring_the_quota_under_max() -> None:
    nodes = [make_node().name(n).capacity(cpu="4").model() for n in ("n1", "n2")]
    limits = {"min_": {"cpu": "2"}, "max_": {"cpu": "4"}}
    cluster = Cluster(
        nodes, [quota("q1", **limits), quota("q2", min_={"cpu": "6"}, max_={"cpu": "6"})]
    )
    cluster.bind(make_pod().name("h").namespace("q1").priority(HIGH).req(cpu="2").model(), "n1")
    cluster.bind(make_pod().name("l").namespace("q1").priority(MID // 2).req(cpu="2").model(), "n2")
    error = cluster.refuse(make_pod().name("p").namespace("q1").priority(MID).req(cpu="4").model())
    assert str(error) == (
        "0/2 nodes are available: Pod q1/p is rejected in PreFilter because ElasticQuota q1"
        " is more than Max. 0/2 nodes are available: 1 No victims found on node n1 for"
        " preemptor pod p, 1 global quota max exceeded."
    )
    assert cluster.handle.preemptions == []


def test_pods_nominated_in_other_namespaces_within_their_min_hold_their_share() -> None:
    nodes = [make_node().name(n).capacity(cpu="4").model() for n in ("n1", "n2")]
    limits = {"min_": {"cpu": "4"}, "max_": {"cpu": "6"}}
    cluster = Cluster(nodes, [quota("q1", **limits), quota("q2", **limits)])
    for i in range(2):
        cluster.schedule(make_pod().name(f"a{i}").namespace("q1").req(cpu="2").model())
    borrower = make_pod().name("a2").namespace("q1").req(cpu="2").model()
    cluster.handle.nominate(make_pod().name("b").namespace("q2").req(cpu="4").model(), "n2")
    error = cluster.refuse(borrower)
    assert "because total ElasticQuota used is more than min" in str(error)
    cluster.handle.nominated.clear()
    assert cluster.schedule(borrower) in ("n1", "n2")


def test_a_borrower_gives_pods_only_while_it_is_over_its_min() -> None:
    """team-b borrows one CPU (3 used, min 2); team-a (within its min) needs 3 CPUs on the
    one node. Evicting one of team-b's pods brings it back to its min, so no other pod of
    team-b may go: 2 CPUs free are not enough, and the node cannot help (upstream walks the
    node's pods and re-reads the quota for each one)."""
    cluster = Cluster(
        [make_node().name("n1").capacity(cpu="4").model()],
        [
            quota("team-a", min_={"cpu": "3"}, max_={"cpu": "4"}),
            quota("team-b", min_={"cpu": "2"}, max_={"cpu": "4"}),
        ],
    )
    for i in range(3):
        cluster.bind(make_pod().name(f"b{i}").namespace("team-b").req(cpu="1").model(), "n1")
    error = cluster.refuse(make_pod().name("a").namespace("team-a").req(cpu="3").model())
    assert str(error) == (
        "0/1 nodes are available: Pod team-a/a is rejected in PreFilter because total"
        " ElasticQuota used is more than min. 0/1 nodes are available: 1 Insufficient cpu."
    )
    assert cluster.handle.preemptions == []


def test_a_borrower_over_its_min_by_two_pods_gives_two() -> None:
    """team-b (min 1) uses 3 CPUs: two of its pods may go, and both must, for team-a's pod
    of 2 CPUs to keep all quotas within the sum of their mins (3)."""
    cluster = Cluster(
        [make_node().name("n1").capacity(cpu="4").model()],
        [
            quota("team-a", min_={"cpu": "2"}, max_={"cpu": "4"}),
            quota("team-b", min_={"cpu": "1"}, max_={"cpu": "4"}),
        ],
    )
    for i in range(3):
        cluster.bind(make_pod().name(f"b{i}").namespace("team-b").req(cpu="1").model(), "n1")
    cluster.refuse(make_pod().name("a").namespace("team-a").req(cpu="2").model())
    [preemption] = cluster.handle.preemptions
    assert len(preemption.keys[2]) == 2
