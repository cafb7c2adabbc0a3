"""`make soak`'s verdict and churn mix, without a control plane."""

from __future__ import annotations

import pytest

from kubesched.bench.soak import growth, problems
from kubesched.bench.soak_churn import ChurnCounts, soak_node, soak_pod
from kubesched.model import Node, Pod
from kubesched.plugins.inter_pod_affinity.terms import NO_TERMS, pod_terms

MIB = 1024 * 1024


def test_growth_is_measured_over_the_last_two_thirds() -> None:
    samples = [100 * MIB] * 20 + [120 * MIB] + [121 * MIB] * 39 + [126 * MIB]
    found = growth(samples)
    assert found.from_minute == 20
    assert found.percent == pytest.approx(5.0)
    assert problems(found, ChurnCounts(), max_percent=5.0) == []


def test_growth_above_the_limit_fails() -> None:
    found = growth([100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB, 106 * MIB])
    assert found.from_minute == 1
    assert problems(found, ChurnCounts(), max_percent=5.0) == [
        "RSS grew 6.0 % from minute 1 (limit 5 %)"
    ]


def test_a_pod_deleted_before_it_was_bound_fails() -> None:
    counts = ChurnCounts(unbound_at_deletion=2, first_unbound="soak-7")
    assert problems(growth([MIB, MIB]), counts, max_percent=5.0) == [
        "2 pod(s) deleted before kubesched bound them (first: soak-7)"
    ]


def test_a_soak_needs_a_minute() -> None:
    with pytest.raises(ValueError, match="at least one minute"):
        growth([MIB])


def test_most_pods_of_the_mix_carry_affinity_terms() -> None:
    pods = [Pod.from_json(soak_pod(index, "soak-scheduler")) for index in range(12)]
    with_terms = [pod for pod in pods if pod_terms(pod) is not NO_TERMS]
    assert len(with_terms) == 8
    assert {pod.scheduler_name for pod in pods} == {"soak-scheduler"}
    assert len({pod.name for pod in pods}) == 12
    assert Node.from_json(soak_node(4)).labels["topology.kubernetes.io/zone"] == "zone-1"
