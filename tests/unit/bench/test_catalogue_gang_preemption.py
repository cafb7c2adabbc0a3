"""The test cases of `catalogue_gang_preemption`: upstream's `workload_preemption` sizes,
pods, PodGroups, priorities and host-port spreading."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from kubesched.bench.catalogue import CASES, SIZES, catalogue_workload
from kubesched.bench.catalogue_gang_preemption import GANG_PREEMPTION_CASES
from kubesched.bench.podgroup_checks import group_specs
from kubesched.model import Pod

NAMES = [entry[0] for entry in GANG_PREEMPTION_CASES]


def _pods(group: Any) -> list[dict[str, Any]]:
    return [body for _path, body in group.pods("bench")]


def _host_port(body: dict[str, Any]) -> int | None:
    ports = body["spec"]["containers"][0].get("ports") or [{}]
    port: int | None = ports[0].get("hostPort")
    return port


def test_the_cases_are_registered_with_the_generic_workload_gate() -> None:
    assert NAMES == [
        "GangPreemptionBasic",
        "GangPreemptionPodGroups",
        "GangPreemptionAffinity",
        "PreemptionPodGroupDisruptionMode",
    ]
    assert set(NAMES) <= set(CASES)
    for name, size in itertools.product(NAMES, SIZES):
        workload = catalogue_workload(name, size)
        assert workload.feature_gates == ("GenericWorkload",)
        assert workload.ceiling is False  # the null binder cannot preempt


def test_sizes_follow_upstreams_variants() -> None:
    figures = {
        (name, size): (w.nodes, w.initial_pods, len(w.objects), w.pods)
        for name in NAMES
        for size in SIZES
        if (w := catalogue_workload(name, size))
    }
    assert figures["GangPreemptionBasic", "5"] == (2, 10, 1, 2)
    assert figures["GangPreemptionBasic", "5000"] == (100, 1000, 10, 100)
    assert figures["GangPreemptionPodGroups", "5"] == (2, 4, 3, 2)
    assert figures["GangPreemptionPodGroups", "500"] == (100, 500, 60, 100)
    assert figures["GangPreemptionAffinity", "5"] == (2, 12, 1, 2)
    assert figures["GangPreemptionAffinity", "500"] == (100, 1100, 10, 100)
    assert "100Nodes_10PreemptorGangs_10Pods" in catalogue_workload(NAMES[0], "5000").note


@pytest.mark.parametrize(("name", "size"), list(itertools.product(NAMES, ("5", "500"))))
def test_every_gang_member_joins_an_existing_group_of_its_size(name: str, size: str) -> None:
    workload = catalogue_workload(name, size)
    specs = group_specs(workload.objects)
    members: Counter[tuple[str, str]] = Counter()
    for group in (*workload.initial, workload.measured):
        for body in _pods(group):
            pod = Pod.from_json(body)
            assert pod.namespace in workload.all_namespaces()
            if pod.pod_group_name:
                members[pod.namespace, pod.pod_group_name] += 1
    assert set(members) == set(specs)
    assert all(spec.min_count == members[key] for key, spec in specs.items())


def test_low_priority_pods_spread_evenly_by_host_port() -> None:
    workload = catalogue_workload("GangPreemptionBasic", "500")
    low = _pods(workload.initial[0])
    ports = Counter(_host_port(body) for body in low)
    assert ports == Counter({8000 + i: 100 for i in range(10)})
    assert low[0]["spec"]["containers"][0]["resources"]["requests"] == {
        "cpu": "40m",
        "memory": "100Mi",
    }
    assert "priorityClassName" not in low[0]["spec"]
    assert low[0]["metadata"]["labels"]["app"] == "blue"


def test_preemptors_fill_a_node_and_carry_upstreams_priorities() -> None:
    basic = catalogue_workload("GangPreemptionBasic", "5")
    member = _pods(basic.measured)[1]
    assert member["spec"]["schedulingGroup"] == {"podGroupName": "gang-0"}
    assert member["spec"]["priorityClassName"] == "bench-priority-8888888"
    assert member["spec"]["terminationGracePeriodSeconds"] == 0
    assert member["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "3970m"
    assert "ports" not in member["spec"]["containers"][0]
    group = basic.objects[0][1]
    assert group["spec"] == {
        "schedulingPolicy": {"gang": {"minCount": 2}},
        "priorityClassName": "bench-priority-8888888",
    }
    assert dict(basic.priority_classes)["bench-priority-8888888"] == 8888888


def test_podgroups_case_spreads_each_group_over_nodes_by_host_port() -> None:
    workload = catalogue_workload("GangPreemptionPodGroups", "500")
    low = _pods(workload.initial[0])
    high = _pods(workload.measured)
    assert {_host_port(b) for b in low[:10]} == {8000}
    assert {_host_port(b) for b in low[10:20]} == {8001}
    assert {_host_port(b) for b in high[:10]} == {9000}
    assert high[0]["spec"]["priorityClassName"] == "bench-priority-9999999"
    assert low[0]["spec"]["priorityClassName"] == "bench-priority-1000"
    assert {b["metadata"]["name"] for b in low}.isdisjoint({b["metadata"]["name"] for b in high})


def test_affinity_gangs_require_a_blue_pod_on_their_node_and_anchors_cover_every_node() -> None:
    workload = catalogue_workload("GangPreemptionAffinity", "500")
    anchors = _pods(workload.initial[0])
    assert len(anchors) == 100
    assert {_host_port(b) for b in anchors} == {7000}  # one per node
    assert anchors[0]["spec"]["priorityClassName"] == "bench-priority-9999999"
    member = _pods(workload.measured)[0]
    term = member["spec"]["affinity"]["podAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ][0]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["namespaceSelector"] == {}
    assert term["labelSelector"]["matchLabels"]["label4"] == "value4"


def test_disruption_mode_case_follows_upstreams_variants() -> None:
    tiny = catalogue_workload("PreemptionPodGroupDisruptionMode", "5")
    assert (tiny.nodes, tiny.initial_pods, len(tiny.objects), tiny.pods) == (2, 4, 2, 1)
    assert "FastTest_PodGroupDisruptionMode_All" in tiny.note
    big = catalogue_workload("PreemptionPodGroupDisruptionMode", "500")
    assert (big.nodes, big.initial_pods, len(big.objects), big.pods) == (1000, 10000, 1000, 100)
    other = catalogue_workload("PreemptionPodGroupDisruptionMode", "5000")
    assert (other.nodes, other.initial_pods, other.pods) == (big.nodes, big.initial_pods, big.pods)
    assert "1000Nodes_1000Candidates_DisruptionAll" in big.note


def test_disruption_mode_gangs_are_all_or_nothing_victims_of_whole_node_preemptors() -> None:
    workload = catalogue_workload("PreemptionPodGroupDisruptionMode", "500")
    assert [workload.measured.namespace, workload.initial[0].namespace] == [
        "gang-preempt-0",
        "gang-preempt-1",
    ]
    group = workload.objects[0][1]
    assert group["spec"] == {
        "schedulingPolicy": {"gang": {"minCount": 10}},
        "priorityClassName": "bench-priority-1000",
        "disruptionMode": {"all": {}},
    }
    low = _pods(workload.initial[0])
    assert low[19]["spec"]["schedulingGroup"] == {"podGroupName": "gang-1"}
    assert low[0]["spec"]["priorityClassName"] == "bench-priority-1000"
    assert low[0]["spec"]["containers"][0]["resources"]["limits"] == {
        "cpu": "300m",
        "memory": "50Mi",
    }
    preemptor = Pod.from_json(_pods(workload.measured)[0])
    assert preemptor.pod_group_name == ""
    assert preemptor.requests.milli_cpu == 3970
    assert dict(workload.priority_classes) == {
        "bench-priority-1000": 1000,
        "bench-priority-9999999": 9999999,
    }
    tiny = catalogue_workload("PreemptionPodGroupDisruptionMode", "5")
    tiny_low = _pods(tiny.initial[0])
    assert tiny_low[0]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1500m"
    assert tiny.objects[0][1]["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}
