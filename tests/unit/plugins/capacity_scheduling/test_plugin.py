"""CapacityScheduling through a real Framework, with the inputs and verdicts of
scheduler-plugins' own tests (TestPreFilter, TestPostFilter, TestDryRunPreemption in
pkg/capacityscheduling/capacity_scheduling_test.go) and its README's demo."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kubesched.framework import ActionType, Code, CycleState, EventResource
from kubesched.model import Node, Pod, Resource
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS, CapacityScheduling
from kubesched.plugins.capacity_scheduling.core import SNAPSHOT_KEY
from kubesched.plugins.capacity_scheduling.quota import QuotaInfo, QuotaInfos
from kubesched.testing import FakeHandle, make_node, make_pod

from .conftest import Cluster, quota

MID, HIGH = 100, 1000


def node(name: str = "node-a", *, memory: str = "150", cpu: str = "4") -> Node:
    return make_node().name(name).capacity(cpu=cpu, memory=memory, pods="110").model()


def pod(name: str, namespace: str, *, memory: int = 0, cpu: str = "", priority: int = MID) -> Pod:
    builder = make_pod().name(name).uid(name).namespace(namespace).priority(priority)
    requests = {"memory": str(memory)} if memory else {}
    if cpu:
        requests["cpu"] = cpu
    return builder.req_named(requests).model()


def mem(amount: int) -> Resource:
    return Resource(memory=amount)


# ---- PreFilter (TestPreFilter) ------------------------------------------------------------


def pre_filter(cluster: Cluster, infos: QuotaInfos, target: Pod) -> tuple[Code, str]:
    cluster.plugin.book.infos = infos
    status = cluster.plugin.pre_filter(CycleState(), target, cluster.handle.list_node_infos())
    return (Code.SUCCESS, "") if status is None else (status.code, status.message)


def test_pre_filter_pod_subject_to_its_quota() -> None:
    cluster = Cluster([node()])
    infos = QuotaInfos(ns1=QuotaInfo("ns1", min=mem(1000), max=mem(2000), used=mem(300)))
    assert pre_filter(cluster, infos, pod("ns1-p1", "ns1", memory=500)) == (Code.SUCCESS, "")
    assert pre_filter(cluster, infos, pod("ns1-p2", "ns1", memory=1800)) == (
        Code.UNSCHEDULABLE,
        "Pod ns1/ns1-p2 is rejected in PreFilter because ElasticQuota ns1 is more than Max",
    )


def test_pre_filter_sum_of_used_bigger_than_sum_of_min() -> None:
    cluster = Cluster([node()])
    infos = QuotaInfos(
        ns1=QuotaInfo("ns1", min=mem(1000), max=mem(2000), used=mem(1800)),
        ns2=QuotaInfo("ns2", min=mem(1000), max=mem(2000), used=mem(200)),
    )
    assert pre_filter(cluster, infos, pod("ns2-p1", "ns2", memory=500)) == (
        Code.UNSCHEDULABLE,
        "Pod ns2/ns2-p1 is rejected in PreFilter because total ElasticQuota used is more than min",
    )


def test_pre_filter_without_a_quota() -> None:
    cluster = Cluster([node()])
    assert pre_filter(cluster, QuotaInfos(), pod("ns2-p1", "ns2", memory=500)) == (Code.SUCCESS, "")


def test_pre_filter_counts_pods_nominated_in_the_namespace_with_at_least_its_priority() -> None:
    cluster = Cluster([node()])
    infos = QuotaInfos(ns1=QuotaInfo("ns1", min=mem(1000), max=mem(2000), used=mem(300)))
    cluster.handle.nominate(pod("before", "ns1", memory=1000, priority=HIGH), "node-a")
    assert (
        pre_filter(cluster, infos, pod("p", "ns1", memory=500, priority=HIGH))[0]
        is Code.UNSCHEDULABLE
    )
    assert (
        pre_filter(cluster, infos, pod("p", "ns1", memory=500, priority=2 * HIGH))[0]
        is Code.SUCCESS
    )


# ---- PostFilter and the dry run (TestPostFilter, TestDryRunPreemption) --------------------


@dataclass
class Case:
    name: str
    preemptor: Pod
    pods: list[Pod]
    quotas: list[tuple[str, int, int]]
    """(namespace, min memory, max memory)."""
    victims: set[str]
    """Who may be evicted (one of them is)."""


def existing(name: str, namespace: str, priority: int = MID) -> Pod:
    return pod(name, namespace, memory=50, priority=priority)


CASES = [
    Case(
        "in-namespace preemption",
        pod("t1-p1", "ns1", memory=50, priority=HIGH),
        [existing("t1-p2", "ns1"), existing("t1-p3", "ns2"), existing("t1-p4", "ns2")],
        [("ns1", 50, 200), ("ns2", 200, 200)],
        {"ns1/t1-p2"},
    ),
    Case(
        "cross-namespace preemption",
        pod("t1-p1", "ns1", memory=50, priority=HIGH),
        [existing("t1-p2", "ns1"), existing("t1-p3", "ns2"), existing("t1-p4", "ns2")],
        [("ns1", 150, 200), ("ns2", 50, 200)],
        {"ns2/t1-p3", "ns2/t1-p4"},
    ),
    Case(
        "without elastic quotas",
        pod("t1-p1", "ns1", memory=50, priority=HIGH),
        [existing("t1-p2", "ns1"), existing("t1-p3", "ns2"), existing("t1-p4", "ns2")],
        [],
        {"ns1/t1-p2", "ns2/t1-p3", "ns2/t1-p4"},
    ),
    Case(
        "dry run: in-namespace preemption",
        pod("t1-p", "ns1", memory=50, priority=HIGH),
        [existing("t1-p1", "ns1"), existing("t1-p2", "ns2"), existing("t1-p3", "ns2")],
        [("ns1", 50, 200), ("ns2", 200, 200)],
        {"ns1/t1-p1"},
    ),
    Case(
        "dry run: cross-namespace preemption spares the more important borrower",
        pod("t1-p", "ns1", memory=50, priority=HIGH),
        [existing("t1-p1", "ns1"), existing("t1-p2", "ns2", HIGH), existing("t1-p3", "ns2")],
        [("ns1", 150, 200), ("ns2", 50, 200)],
        {"ns2/t1-p3"},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_post_filter_preempts_one_pod_on_node_a(case: Case) -> None:
    quotas = [
        quota(ns, min_={"memory": str(lo)}, max_={"memory": str(hi)}) for ns, lo, hi in case.quotas
    ]
    cluster = Cluster([node()], quotas)
    for each in case.pods:
        cluster.bind(each, "node-a")
    error = cluster.refuse(case.preemptor)
    assert str(error) == "0/1 nodes are available: 1 Insufficient memory."
    assert error.nominated_node_name == "node-a"
    [preemption] = cluster.handle.preemptions
    preemptor, node_name, victims = preemption.keys
    assert (preemptor, node_name, len(victims)) == (case.preemptor.key, "node-a", 1)
    assert set(victims) <= case.victims


# ---- Reserve, Unreserve and the PreFilter extensions ---------------------------------------


def test_reserve_and_unreserve_count_the_placed_pod() -> None:
    cluster = Cluster([node()], [quota("ns1", min_={"memory": "100"}, max_={"memory": "150"})])
    placed = pod("p", "ns1", memory=100).on_node("node-a")
    assert cluster.plugin.reserve(CycleState(), placed, "node-a") is None
    assert cluster.plugin.book.infos["ns1"].used == mem(100)
    second = pod("q", "ns1", memory=100)
    error = cluster.refuse(second)
    assert "ElasticQuota ns1 is more than Max" in str(error)
    cluster.plugin.unreserve(CycleState(), placed, "node-a")
    assert cluster.plugin.book.infos["ns1"].used == Resource()


def test_pre_filter_extensions_change_only_the_cycle_snapshot() -> None:
    cluster = Cluster([node()], [quota("ns1", min_={"memory": "100"}, max_={"memory": "150"})])
    bound = cluster.bind(pod("p", "ns1", memory=50), "node-a")
    state = CycleState()
    target = pod("q", "ns1", memory=50)
    info = cluster.handle.list_node_infos()[0]
    assert cluster.plugin.pre_filter(state, target, [info]) is None
    cluster.plugin.remove_pod(state, target, bound, info)
    clone = state.clone()
    cluster.plugin.add_pod(clone, target, bound, info)
    snapshot = state.read(SNAPSHOT_KEY).infos["ns1"]
    assert (snapshot.used, clone.read(SNAPSHOT_KEY).infos["ns1"].used) == (Resource(), mem(50))
    assert cluster.plugin.book.infos["ns1"].used == mem(50)


# ---- construction and queueing --------------------------------------------------------------


def test_a_plugin_built_after_the_informers_synced_counts_what_they_hold() -> None:
    handle = FakeHandle(
        nodes=[node()],
        objects=[(ELASTIC_QUOTAS, quota("ns1", min_={"memory": "100"}, max_={"memory": "150"}))],
    )
    bound = pod("p", "ns1", memory=60).on_node("node-a")
    handle.listers.pods.on_add(bound)
    handle.listers.pods.on_add(pod("pending", "ns1", memory=60))
    plugin = CapacityScheduling(args={}, handle=handle)
    assert (plugin.book.infos["ns1"].used, set(plugin.book.infos["ns1"].pods)) == (mem(60), {"p"})


def test_pod_deletions_and_any_elastic_quota_change_requeue() -> None:
    plugin = CapacityScheduling(args={}, handle=FakeHandle(nodes=[node()]))
    events = [(e.event.resource, e.event.action) for e in plugin.events_to_register()]
    assert events == [
        (EventResource.POD, ActionType.DELETE),
        ("elasticquotas.v1alpha1.scheduling.x-k8s.io", ActionType.ALL),
    ]
