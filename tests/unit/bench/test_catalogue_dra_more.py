"""The test cases of scheduler_perf's DRA subfolders: upstream's parameters, gates and
objects, the direct allocation of partitionable claims (shared counters), and the DRA
checks of extended-resource claims and of claims reserved for a PodGroup."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.bench.catalogue import CASES, catalogue_workload
from kubesched.bench.catalogue_dra_more import DRA_MORE_CASES, THRESHOLDS
from kubesched.bench.dra_checks import _pod_problems
from kubesched.bench.dra_setup import UnsupportedClaim, allocate_claims
from kubesched.bench.dra_templates_more import NO_DEVICES_CLASS
from kubesched.bench.workloads import Workload
from kubesched.model import Node, Pod

NAMES = [name for name, *_ in DRA_MORE_CASES]


def objects(workload: Workload, kind: str) -> list[dict[str, Any]]:
    assert workload.dra is not None
    return [body for _path, body in workload.dra.objects() if body["kind"] == kind]


@pytest.mark.parametrize("name", NAMES)
def test_every_case_parses_at_every_size_with_its_gates(name: str) -> None:
    assert name in CASES
    for size in ("5", "500", "5000"):
        workload = catalogue_workload(name, size)
        assert "DynamicResourceAllocation" in workload.feature_gates
        nodes = [Node.from_json(workload.node(i)) for i in range(workload.nodes)]
        assert len({n.name for n in nodes}) == workload.nodes
        for group in (*workload.initial, workload.measured):
            for _path, body in group.pods("bench"):
                assert Pod.from_json(body).scheduler_name == "bench"
                break
    fast = catalogue_workload(name, "5")
    assert fast.nodes <= 4
    assert fast.steady == 0.0


def test_upstream_parameters_of_the_larger_variants() -> None:
    extended = catalogue_workload("ExtendedResource", "500")
    assert (extended.nodes, extended.initial_pods, extended.pods) == (500, 2500, 2500)
    assert len(objects(extended, "DeviceClass")) == 25
    (_path, pod), *_ = extended.measured.pods("bench")
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"example.com/gpu-0": "1"}
    assert THRESHOLDS["ExtendedResource"] == ("Explicit_25classes_5000pods_500nodes", 120)
    scoring = catalogue_workload("ExtendedResourceScoring", "500")
    assert (scoring.nodes, scoring.initial_pods, scoring.pods) == (500, 0, 5000)
    assert {c["spec"]["extendedResourceName"] for c in objects(scoring, "DeviceClass")} == {
        "example.com/gpu"
    }
    assert len(objects(scoring, "DeviceClass")) == 20
    (fit,) = scoring.plugin_config
    assert fit["args"]["scoringStrategy"]["type"] == "LeastAllocated"
    fast_scoring = catalogue_workload("ExtendedResourceScoring", "5")
    assert (fast_scoring.nodes, len(objects(fast_scoring, "DeviceClass"))) == (4, 2)
    for name in ("Partitionable", "PartitionableBacktracking"):
        half = catalogue_workload(name, "500")
        assert (half.nodes, half.pods, half.steady) == (500, 10, 10.0)
        assert len(objects(half, "ResourceClaim")) == 250
        assert half.dra is not None
        assert half.dra.allocate == "init"
    capacity = catalogue_workload("ConsumableCapacity", "500")
    assert (capacity.nodes, capacity.initial_pods, capacity.pods) == (500, 2000, 10)
    shared = catalogue_workload("SharedPodGroupResourceClaim", "500")
    assert (shared.nodes, shared.pods, len(shared.objects)) == (50, 5000, 100)
    assert "GenericWorkload" in shared.feature_gates
    first = catalogue_workload("FirstAvailable", "5")
    assert NO_DEVICES_CLASS in {c["metadata"]["name"] for c in objects(first, "DeviceClass")}


def _claims_and_slices(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    workload = catalogue_workload(name, "500", nodes=3)
    return objects(workload, "ResourceClaim"), objects(workload, "ResourceSlice")


def test_the_direct_allocation_respects_shared_counters() -> None:
    claims, slices = _claims_and_slices("PartitionableBacktracking")
    (allocated,) = allocate_claims(claims[:1], slices, rng=random.Random(1))
    results = allocated["status"]["allocation"]["devices"]["results"]
    # device-1 takes 20Gi of the 70Gi: only devices 2..8 fit together.
    assert [r["device"] for r in results] == [f"device-{d}" for d in range(2, 9)]
    assert len({r["pool"] for r in results}) == 1
    three = [dict(claims[0], metadata={"name": f"c{i}", "namespace": "init"}) for i in range(4)]
    with pytest.raises(UnsupportedClaim, match="no node has free devices"):
        list(allocate_claims(three, slices, rng=random.Random(1)))


def test_the_direct_allocation_takes_both_partitionable_devices_of_a_node() -> None:
    claims, slices = _claims_and_slices("Partitionable")
    allocated = list(allocate_claims(claims[:1] * 3, slices, rng=random.Random(1)))
    nodes = [a["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0] for a in allocated]
    assert len({str(n) for n in nodes}) == 3
    for claim in allocated:
        devices = [r["device"] for r in claim["status"]["allocation"]["devices"]["results"]]
        assert devices == ["device-1", "device-2"]


def _claim(name: str, reserved: list[dict[str, str]], selector: dict[str, Any]) -> dict[str, Any]:
    result = {"request": "req-0", "driver": "d", "pool": "p", "device": "x"}
    allocation = {"devices": {"results": [result]}, "nodeSelector": selector}
    status = {"allocation": allocation, "reservedFor": reserved}
    return {"metadata": {"namespace": "test", "name": name}, "status": status}


def test_the_checks_follow_extended_resource_claims_and_podgroup_reservations() -> None:
    by_labels = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "node-with-dra"}]}]}
    group = {"resource": "podgroups", "name": "test-dra-0", "uid": "g"}
    pod = {
        "metadata": {"namespace": "test", "name": "p", "uid": "u"},
        "spec": {
            "nodeName": "n1",
            "schedulingGroup": {"podGroupName": "test-dra-0"},
            "resourceClaims": [{"name": "resource", "resourceClaimName": "shared"}],
        },
        "status": {"extendedResourceClaimStatus": {"resourceClaimName": "extended"}},
    }
    on_n1 = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "values": ["n1"]}]}]}
    claims = {
        ("test", "shared"): _claim("shared", [group], by_labels),
        ("test", "extended"): _claim("extended", [{"resource": "pods", "uid": "u"}], on_n1),
    }
    assert _pod_problems(pod, claims) == []
    claims[("test", "extended")] = _claim("extended", [], on_n1)
    assert _pod_problems(pod, claims) == ["pod test/p on n1: claim extended"]
    other_group = dict(group, name="test-dra-1")
    claims[("test", "shared")] = _claim("shared", [other_group], by_labels)
    assert "pod test/p on n1: claim shared" in _pod_problems(pod, claims)
