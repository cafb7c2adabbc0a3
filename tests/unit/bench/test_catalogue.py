"""The scheduler_perf catalogue: every test case builds valid objects with upstream's
parameters, namespaces and node labelling; the suite's table reads its results."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from kubesched.bench import BenchSettings, ClientLimits, ContenderResult, Machine
from kubesched.bench.catalogue import CASES, SIZES, catalogue_workload
from kubesched.bench.churn import churn_object
from kubesched.bench.stats import Summary
from kubesched.bench.suite import SuiteRow
from kubesched.bench.suite_report import suite_markdown
from kubesched.bench.templates import HOSTNAME, ZONE
from kubesched.model import Node, Pod

ISSUE_CASES = {
    "SchedulingBasic",
    "SchedulingPodAntiAffinity",
    "SchedulingPodAffinity",
    "SchedulingPreferredPodAffinity",
    "SchedulingPreferredPodAntiAffinity",
    "SchedulingNodeAffinity",
    "TopologySpreading",
    "PreferredTopologySpreading",
    "MixedSchedulingBasePod",
    "PreemptionBasic",
    "Unschedulable",
    "SchedulingWithMixedChurn",
}


MORE_CASES = {
    "SchedulingPodMatchingAntiAffinity",
    "SchedulingRequiredPodAntiAffinityWithNSSelector",
    "SchedulingPreferredAntiAffinityWithNSSelector",
    "SchedulingRequiredPodAffinityWithNSSelector",
    "SchedulingPreferredAffinityWithNSSelector",
    "DefaultTopologySpreading",
    "SchedulingWithNodeInclusionPolicy",
    "SchedulingDaemonset",
    "SchedulingSecrets",
    "HostPortConflict",
    "ResourceSaturation",
}


DRA_CASES = {
    "SchedulingWithResourceClaimTemplate",
    "SchedulingWithResourceClaimTemplate/empty",
    "SchedulingWithResourceClaimTemplate/half",
    "SchedulingWithResourceClaimTemplate/full",
    "SchedulingWithResourceClaimTemplate/selector_empty",
    "SchedulingWithResourceClaimTemplate/match_empty",
    "SchedulingWithResourceClaim",
}


DRA_MORE_CASES = {
    "FirstAvailable",
    "DeviceTaintToleration",
    "ExtendedResource",
    "ExtendedResourceScoring",
    "Partitionable",
    "PartitionableBacktracking",
    "ConsumableCapacity",
    "SharedPodGroupResourceClaim",
    "SharedPodGroupResourceClaimTemplate",
}


EVENT_CASES = {
    "SchedulingWhileGated",
    "SchedulingDeletedPodsWithFinalizers",
    "SchedulingWithExtendedResource",
    "SchedulingGatedPodsWithPodAffinityImpactForThroughput",
    "StarvationIndependent",
    "StarvationPodGroup",
    "PreemptionAsync",
}


QUOTA_CASES = {"CapacitySchedulingQuotas"}


NUMA_CASES = {"NodeResourceTopologyMatch"}


VOLUME_CASES = {
    "SchedulingInTreePVs",
    "SchedulingMigratedInTreePVs",
    "SchedulingCSIPVs",
    "PreemptionPVs",
}


PODGROUP_CASES = {"BasicScheduling", "GangScheduling", "TopologyAwareScheduling"}


GANG_PREEMPTION_CASES = {
    "GangPreemptionBasic",
    "GangPreemptionPodGroups",
    "GangPreemptionAffinity",
    "PreemptionPodGroupDisruptionMode",
}


EVENT_HANDLING_CASES = {
    "EventHandlingPodDelete",
    "EventHandlingPodUpdate",
    "EventHandlingNodeAdd",
    "EventHandlingPodAdd",
    "EventHandlingNodeUpdate",
}


def test_the_catalogue_holds_every_test_case_at_every_size() -> None:
    cases = ISSUE_CASES | MORE_CASES | DRA_CASES | EVENT_CASES | VOLUME_CASES | QUOTA_CASES
    cases |= PODGROUP_CASES | EVENT_HANDLING_CASES | NUMA_CASES | GANG_PREEMPTION_CASES
    cases |= DRA_MORE_CASES
    assert set(CASES) == cases
    for name, size in itertools.product(ISSUE_CASES | MORE_CASES, SIZES):
        workload = catalogue_workload(name, size)
        assert workload.name == name
        assert workload.nodes >= 5
        assert workload.pods >= 4


@pytest.mark.parametrize("name", sorted(ISSUE_CASES | MORE_CASES))
def test_every_pod_and_node_parses_and_carries_the_scheduler_name(name: str) -> None:
    workload = catalogue_workload(name, "5")
    nodes = [Node.from_json(workload.node(i)) for i in range(workload.nodes)]
    assert all(node.labels[HOSTNAME] == node.name for node in nodes)
    groups = [*workload.initial, workload.measured]
    for group in groups:
        for path, body in group.pods("bench"):
            pod = Pod.from_json(body)
            assert path == f"/api/v1/namespaces/{pod.namespace}/pods"
            assert pod.namespace in workload.all_namespaces()
            assert body["spec"]["schedulerName"] == "bench"


def test_upstream_parameters_at_500_nodes() -> None:
    anti = catalogue_workload("SchedulingPodAntiAffinity", "500")
    assert (anti.nodes, anti.initial_pods, anti.pods) == (500, 100, 400)
    assert [g.namespace for g in anti.initial] == ["sched-0"]
    assert anti.measured.namespace == "sched-1"
    mixed = catalogue_workload("MixedSchedulingBasePod", "500")
    assert [g.count for g in mixed.initial] == [200] * 5
    assert mixed.measured.namespace == "namespace-7"
    basic = catalogue_workload("SchedulingBasic", "5000")
    assert (basic.nodes, basic.initial_pods, basic.pods) == (5000, 1000, 10000)


def test_zones_are_labelled_round_robin_as_upstreams_label_strategy() -> None:
    spread = catalogue_workload("TopologySpreading", "5")
    zones = [spread.node(i)["metadata"]["labels"][ZONE] for i in range(5)]
    assert zones == ["moon-1", "moon-2", "moon-3", "moon-1", "moon-2"]
    basic = catalogue_workload("SchedulingBasic", "5")
    assert ZONE not in basic.node(0)["metadata"]["labels"]


def test_preemption_needs_a_priority_class_and_has_no_ceiling() -> None:
    preemption = catalogue_workload("PreemptionBasic", "5")
    assert not preemption.ceiling
    ((klass, value),) = preemption.priority_classes
    _, body = next(preemption.measured.pods("bench"))
    assert body["spec"]["priorityClassName"] == klass
    assert value == 10
    assert body["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "3000m"


def test_churn_objects() -> None:
    churn_case = catalogue_workload("SchedulingWithMixedChurn", "5")
    churn = churn_case.churn
    assert churn is not None
    assert churn.mode == "recreate"
    paths = [churn_object(t, 3, churn, "bench")[0] for t in churn.templates]
    assert paths == [
        "/api/v1/nodes",
        "/api/v1/namespaces/namespace-1/pods",
        "/api/v1/namespaces/namespace-1/services",
    ]
    node = Node.from_json(churn_object("node", 1, churn, "bench")[1])
    assert node.allocatable.allowed_pods == 0


def test_overrides_are_noted() -> None:
    shrunk = catalogue_workload("SchedulingBasic", "5000", pods=2000)
    assert shrunk.pods == 2000
    assert "shrunk from upstream's (5000, 1000, 10000)" in shrunk.note
    with pytest.raises(ValueError, match="unknown test case"):
        catalogue_workload("NoSuchCase", "500")


def test_suite_table_has_a_row_per_test_case_with_the_ratio() -> None:
    workload = catalogue_workload("PreemptionBasic", "5")
    settings = BenchSettings(workload=workload, limits=ClientLimits("bench", 5000, 5000))
    fast = ContenderResult(name="kubesched", throughput=Summary.of([200.0, 200.0]))
    slow = ContenderResult(name="kube-scheduler", throughput=Summary.of([100.0]))
    skipped = ContenderResult(name="null-binder", skipped="the null binder cannot preempt")
    machine = Machine(cpus=2, load_before=(1.0, 1.0, 1.0), load_after=(2.0, 1.0, 1.0))
    table = suite_markdown([SuiteRow(settings, [fast, slow, skipped], machine)], command="x")
    row = next(line for line in table.splitlines() if line.startswith("| PreemptionBasic"))
    assert "| 200.0 | 100.0 | n/a | **2.00x** |" in row
    assert "passed" in row


def test_another_checkout_gets_a_cpu_per_pod_table() -> None:
    workload = catalogue_workload("SchedulingBasic", "5")
    settings = BenchSettings(workload=workload, limits=ClientLimits("bench", 5000, 5000))
    old = f"kubesched@{Path(__file__).parents[3]}"
    ours = ContenderResult(name="kubesched", throughput=Summary.of([200.0]), cpu_seconds=2.0)
    theirs = ContenderResult(name=old, throughput=Summary.of([180.0]), cpu_seconds=2.5)
    machine = Machine(cpus=2, load_before=(1.0, 1.0, 1.0), load_after=(1.0, 1.0, 1.0))
    table = suite_markdown([SuiteRow(settings, [theirs, ours], machine)], command="x")
    per_pod = 2.5 / workload.pods * 1000
    assert f"| SchedulingBasic | {old} | 180.0 | 2.50 | {per_pod:.3f} | 1.250 |" in table
    assert (
        f"| SchedulingBasic | kubesched | 200.0 | 2.00 | {2.0 / workload.pods * 1000:.3f} | 1.000 |"
        in table
    )
