"""The test cases of `catalogue_podgroups`: upstream's sizes, PodGroups, pods, nodes and
feature gates, and the checks that catch a gang bound in part or across racks."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from kubesched.bench.catalogue import CASES, SIZES, catalogue_workload
from kubesched.bench.catalogue_podgroups import PODGROUP_CASES
from kubesched.bench.gates import cluster_options, scheduler_gate_flags
from kubesched.bench.podgroup_checks import (
    GroupSpec,
    Member,
    early_bindings,
    group_specs,
    members_by_group,
    partly_bound,
    split_across_domains,
)
from kubesched.bench.templates import HOSTNAME
from kubesched.bench.templates_podgroups import RACK
from kubesched.bench.tracker import PodRecord
from kubesched.localcluster.gates import apiserver_args
from kubesched.model import Node, Pod

NAMES = [entry[0] for entry in PODGROUP_CASES]
TAS_GATES = ("GenericWorkload", "TopologyAwareWorkloadScheduling")


def test_the_three_cases_are_registered_with_upstreams_gates() -> None:
    assert NAMES == ["BasicScheduling", "GangScheduling", "TopologyAwareScheduling"]
    assert set(NAMES) <= set(CASES)
    gates = {name: catalogue_workload(name, "5").feature_gates for name in NAMES}
    assert gates == {
        "BasicScheduling": ("GenericWorkload",),
        "GangScheduling": ("GenericWorkload",),
        "TopologyAwareScheduling": TAS_GATES,
    }


@pytest.mark.parametrize(("name", "size"), list(itertools.product(NAMES, SIZES)))
def test_every_pod_joins_an_existing_group_of_its_namespace(name: str, size: str) -> None:
    workload = catalogue_workload(name, size)
    groups = group_specs(workload.objects)
    assert len(groups) == len(workload.objects)
    members: Counter[tuple[str, str]] = Counter()
    for _path, body in workload.measured.pods("bench"):
        pod = Pod.from_json(body)
        assert pod.scheduler_name == "bench"
        assert body["spec"]["containers"][0]["resources"] == {
            "requests": {"cpu": "100m", "memory": "100Mi"}
        }
        members[pod.namespace, pod.pod_group_name] += 1
    assert set(members) == set(groups)
    assert workload.initial == ()
    assert workload.measured.namespace in workload.all_namespaces()
    for key, spec in groups.items():
        assert spec.min_count in (None, members[key])


def test_sizes_follow_upstreams_variants() -> None:
    figures = {
        (name, size): (w.nodes, len(w.objects), w.pods)
        for name in NAMES
        for size in SIZES
        if (w := catalogue_workload(name, size))
    }
    assert figures[("GangScheduling", "5")] == (10, 3, 9)
    assert figures[("GangScheduling", "500")] == (500, 1000, 3000)
    assert figures[("BasicScheduling", "5000")] == (5000, 1000, 3000)
    assert figures[("TopologyAwareScheduling", "500")] == (500, 750, 3000)
    assert figures[("TopologyAwareScheduling", "5000")] == (5000, 750, 3000)
    assert "on 500 nodes" in catalogue_workload("GangScheduling", "500").note


def test_pod_i_joins_group_i_over_pods_per_group_as_upstreams_template() -> None:
    workload = catalogue_workload("TopologyAwareScheduling", "500")
    pods = [body for _path, body in itertools.islice(workload.measured.pods("bench"), 9)]
    names = [(p["metadata"]["name"], p["spec"]["schedulingGroup"]["podGroupName"]) for p in pods]
    assert names[:5] == [
        ("test-tas-scheduling-0", "gang-0"),
        ("test-tas-scheduling-1", "gang-0"),
        ("test-tas-scheduling-2", "gang-0"),
        ("test-tas-scheduling-3", "gang-0"),
        ("test-tas-scheduling-4", "gang-1"),
    ]
    assert {p["metadata"]["namespace"] for p in pods} == {"tas-ns-0"}


def test_podgroups_carry_upstreams_policy_and_constraint() -> None:
    basic = catalogue_workload("BasicScheduling", "5").objects[0]
    gang = catalogue_workload("GangScheduling", "5").objects[2]
    tas = catalogue_workload("TopologyAwareScheduling", "500").objects[0]
    assert basic[0] == "/apis/scheduling.k8s.io/v1beta1/namespaces/basic-ns-0/podgroups"
    assert basic[1]["metadata"]["name"] == "basic-group-0"
    assert basic[1]["spec"] == {"schedulingPolicy": {"basic": {}}}
    assert gang[1]["metadata"] == {"name": "gang-2", "namespace": "gang-ns-0"}
    assert gang[1]["spec"] == {"schedulingPolicy": {"gang": {"minCount": 3}}}
    assert tas[1]["spec"] == {
        "schedulingPolicy": {"gang": {"minCount": 4}},
        "schedulingConstraints": {"topology": [{"key": RACK}]},
    }


def test_tas_nodes_come_in_racks_of_a_hundred() -> None:
    workload = catalogue_workload("TopologyAwareScheduling", "500")
    nodes = [Node.from_json(workload.node(i)) for i in (0, 99, 100, 499)]
    assert [(n.name, n.labels[RACK]) for n in nodes] == [
        ("node-0", "rack-0"),
        ("node-99", "rack-0"),
        ("node-100", "rack-1"),
        ("node-499", "rack-4"),
    ]
    assert all(n.labels[HOSTNAME] == n.name for n in nodes)
    assert nodes[0].allocatable.milli_cpu == 4000
    plain = Node.from_json(catalogue_workload("GangScheduling", "500").node(7))
    assert RACK not in plain.labels


def test_overriding_the_pods_keeps_whole_groups() -> None:
    workload = catalogue_workload("GangScheduling", "500", pods=10)
    assert (workload.pods, len(workload.objects)) == (9, 3)
    assert "changed from upstream's" in workload.note or "shrunk" in workload.note


def test_gates_reach_the_apiserver_and_both_schedulers() -> None:
    assert cluster_options(()) == {}
    assert scheduler_gate_flags(()) == ()
    flag = "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
    assert scheduler_gate_flags(TAS_GATES) == (flag,)
    options = cluster_options(TAS_GATES)
    assert options == {"gates": {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}}
    # LocalCluster gives them to kube-apiserver (serving the PodGroups' API version) and to
    # kube-controller-manager.
    args = apiserver_args(options["gates"])
    assert args[:2] == [flag, "--runtime-config=scheduling.k8s.io/v1beta1=true"]


GANG = ("ns", "gang-0")
SPECS = {GANG: GroupSpec(3, RACK), ("ns", "basic-0"): GroupSpec(None)}


def _records(created: list[float], bound: list[float]) -> dict[str, PodRecord]:
    return {
        f"p{i}": PodRecord(seen_at=seen, node="n" if at else "", bound_at=at)
        for i, (seen, at) in enumerate(zip(created, bound, strict=True))
    }


def test_a_member_bound_before_its_gang_existed_is_caught() -> None:
    groups = {GANG: [Member(f"p{i}", "n") for i in range(3)]}
    together = _records([1.0, 2.0, 3.0], [3.5, 3.6, 3.7])
    assert early_bindings(SPECS, groups, together) == []
    one_by_one = _records([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])
    assert early_bindings(SPECS, groups, one_by_one) == ["gang-0"]
    basic = {("ns", "basic-0"): groups[GANG]}
    assert early_bindings(SPECS, basic, one_by_one) == []


def test_a_gang_partly_bound_is_caught() -> None:
    members = [Member("p0", "n1"), Member("p1", "n2"), Member("p2", "")]
    assert partly_bound(SPECS, {GANG: members}) == ["gang-0 (2/3)"]
    assert partly_bound(SPECS, {GANG: [Member("p0", ""), Member("p1", "")]}) == []
    assert partly_bound(SPECS, {("ns", "basic-0"): members}) == []


def test_a_gang_across_racks_or_off_the_key_is_caught() -> None:
    labels = {"a": {RACK: "rack-0"}, "b": {RACK: "rack-0"}, "c": {RACK: "rack-1"}, "d": {}}
    inside = {GANG: [Member("p0", "a"), Member("p1", "b")]}
    assert split_across_domains(SPECS, inside, labels) == []
    across = {GANG: [Member("p0", "a"), Member("p1", "c")]}
    assert split_across_domains(SPECS, across, labels) == [f"gang-0 ({RACK}: rack-0, rack-1)"]
    unlabelled = {GANG: [Member("p0", "a"), Member("p1", "d")]}
    assert split_across_domains(SPECS, unlabelled, labels) == [f"gang-0 ({RACK}: None, rack-0)"]


def test_members_are_grouped_by_namespace_and_pod_group_name() -> None:
    pods: list[dict[str, Any]] = [
        {
            "metadata": {"name": "a", "namespace": "x"},
            "spec": {"schedulingGroup": {"podGroupName": "g"}, "nodeName": "n"},
        },
        {
            "metadata": {"name": "b", "namespace": "y"},
            "spec": {"schedulingGroup": {"podGroupName": "g"}},
        },
        {"metadata": {"name": "c", "namespace": "x"}, "spec": {}},
    ]
    assert members_by_group(pods) == {("x", "g"): [Member("a", "n")], ("y", "g"): [Member("b", "")]}
