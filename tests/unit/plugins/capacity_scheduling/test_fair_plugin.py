"""CapacityScheduling with a quota tree, through a real Framework: two teams sharing one GPU
pool, idle GPUs lent by weight, and a lender taking its share back by preemption."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from kubesched.model import Node, Pod
from kubesched.plugins.capacity_scheduling.tree import IS_PARENT_LABEL, PARENT_LABEL
from kubesched.plugins.capacity_scheduling.tree import SHARED_WEIGHT_ANNOTATION as WEIGHT
from kubesched.runtime import FitError
from kubesched.testing import make_node, make_pod

from .conftest import Cluster

GPU = "nvidia.com/gpu"


def gpu_node(name: str, gpus: int) -> Node:
    resources = {"cpu": "32", "memory": "64Gi", "pods": "110", GPU: str(gpus)}
    return make_node().name(name).capacity_named(resources).model()


def team(
    name: str, *, min_: int, max_: int, weight: int, parent: str = "", is_parent: bool = False
) -> dict[str, Any]:
    labels = {PARENT_LABEL: parent} if parent else {}
    if is_parent:
        labels[IS_PARENT_LABEL] = "true"
    return {
        "metadata": {
            "namespace": name,
            "name": name,
            "labels": labels,
            "annotations": {WEIGHT: json.dumps({GPU: str(weight)})},
        },
        "spec": {"min": {GPU: str(min_)}, "max": {GPU: str(max_)}},
    }


def gpu_pod(name: str, namespace: str, priority: int = 0) -> Pod:
    builder = make_pod().name(name).uid(f"{namespace}-{name}").namespace(namespace)
    return builder.priority(priority).req_named({GPU: "1"}).model()


def submit(cluster: Cluster, pods: list[Pod]) -> None:
    """Pending pods the pod lister sees (what their team asks for)."""
    for each in pods:
        cluster.handle.listers.pods.on_add(each)


def test_idle_gpus_are_lent_in_proportion_to_the_weights() -> None:
    cluster = Cluster(
        [gpu_node("gpu-1", 8)],
        [team("a", min_=2, max_=8, weight=1), team("b", min_=2, max_=8, weight=3)],
    )
    a_pods = [gpu_pod(f"a{i}", "a") for i in range(8)]
    b_pods = [gpu_pod(f"b{i}", "b") for i in range(8)]
    submit(cluster, a_pods + b_pods)
    placed = {"a": 0, "b": 0}
    refusals: set[str] = set()
    for each in [p for pair in zip(a_pods, b_pods, strict=True) for p in pair]:
        try:
            cluster.schedule(each)
        except FitError as refused:
            refusals.add(str(refused).split(" because ")[-1].split(".")[0])
        else:
            placed[each.namespace] += 1
    assert refusals == {
        "ElasticQuota a is more than its runtime share",
        "ElasticQuota b is more than its runtime share",
    }
    # 2 + 2 guaranteed, the 4 idle ones lent 1:3: a gets 3, b gets 5, arriving in turn.
    assert placed == {"a": 3, "b": 5}
    assert cluster.plugin.fair.runtime_of("a") is not None


def test_the_lender_reclaims_its_guarantee_by_preemption() -> None:
    cluster = Cluster(
        [gpu_node("gpu-1", 4)],
        [team("a", min_=2, max_=4, weight=1), team("b", min_=2, max_=4, weight=1)],
    )
    a_pods = [gpu_pod(f"a{i}", "a") for i in range(4)]
    submit(cluster, a_pods)
    assert [cluster.schedule(each) for each in a_pods] == ["gpu-1"] * 4
    late = gpu_pod("b0", "b")
    submit(cluster, [late])
    error = cluster.refuse(late)
    assert error.nominated_node_name == "gpu-1"
    [preemption] = cluster.handle.preemptions
    preemptor, node_name, victims = preemption.keys
    assert (preemptor, node_name, len(victims)) == ("b/b0", "gpu-1", 1)
    assert victims[0].startswith("a/")


def test_a_parent_caps_its_children_together() -> None:
    cluster = Cluster(
        [gpu_node("gpu-1", 8)],
        [
            team("research", min_=2, max_=3, weight=1, is_parent=True),
            team("vision", min_=1, max_=8, weight=1, parent="research"),
            team("speech", min_=1, max_=8, weight=1, parent="research"),
        ],
    )
    pods = [gpu_pod(f"v{i}", "vision") for i in range(3)] + [gpu_pod("s0", "speech")]
    submit(cluster, pods)
    for each in pods[:2]:
        cluster.schedule(each)
    cluster.schedule(pods[3])
    error = cluster.refuse(pods[2])
    assert "ElasticQuota vision is more than its runtime share" in str(error)


def test_without_the_labels_nothing_changes() -> None:
    plain = team("a", min_=2, max_=4, weight=1)
    plain["metadata"]["annotations"] = {}
    cluster = Cluster([gpu_node("gpu-1", 8)], [plain])
    assert not cluster.plugin.fair.active
    pods = [gpu_pod(f"a{i}", "a") for i in range(3)]
    submit(cluster, pods)
    cluster.schedule(pods[0])
    cluster.schedule(pods[1])
    error = cluster.refuse(pods[2])
    # scheduler-plugins' rule: borrowing beyond the sum of the mins (2) is refused.
    assert "total ElasticQuota used is more than min" in str(error)


def test_a_bad_tree_is_logged_once_and_never_stops_the_cycle(
    caplog: pytest.LogCaptureFixture,
) -> None:
    orphan = team("a", min_=1, max_=4, weight=1, parent="nowhere")
    cluster = Cluster([gpu_node("gpu-1", 4)], [orphan])
    pods = [gpu_pod(f"a{i}", "a") for i in range(2)]
    submit(cluster, pods)
    with caplog.at_level(logging.WARNING):
        assert [cluster.schedule(each) for each in pods] == ["gpu-1", "gpu-1"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert "parent nowhere does not exist: read as top-level" in message
    assert "create ElasticQuota nowhere" in message
    assert getattr(warnings[0], "kv", {}) == {"elasticQuota": "a/a"}
