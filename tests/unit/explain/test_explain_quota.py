"""`kubesched explain` with CapacityScheduling: the pod's quota verdict (used / min / max,
the runtime share of a tree, what it would borrow, whom it would reclaim from), built over
the read-only Handle as on a live cluster."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.explain import ReadOnlyHandle, build_snapshot, explain_pod
from kubesched.explain.render import table, to_dict
from kubesched.explain.report import Explanation
from kubesched.framework import POD_DISRUPTION_BUDGETS
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Node, Pod
from kubesched.plugins import in_tree_registry
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS
from kubesched.runtime import build_framework
from kubesched.testing import make_node, make_pod

GPU = "nvidia.com/gpu"
WEIGHT = "quota.scheduling.koordinator.sh/shared-weight"
PROFILE = Profile(
    scheduler_name="capacity-scheduler",
    plugins={
        "multiPoint": PluginSet(enabled=(PluginRef("CapacityScheduling"),)),
        "postFilter": PluginSet(
            enabled=(PluginRef("CapacityScheduling"),), disabled=(PluginRef("*"),)
        ),
    },
)


def gpu_node() -> Node:
    resources = {"cpu": "8", "memory": "16Gi", "pods": "110", GPU: "4"}
    return make_node().name("gpu-1").capacity_named(resources).model()


def quota(namespace: str, *, tree: bool) -> ApiObject:
    annotations = {WEIGHT: json.dumps({GPU: "1"})} if tree else {}
    meta = {"namespace": namespace, "name": f"{namespace}-quota", "annotations": annotations}
    spec = {"min": {GPU: "2"}, "max": {GPU: "4"}}
    return ApiObject.from_json({"metadata": meta, "spec": spec})


def gpu_pod(name: str, namespace: str, node: str = "") -> Pod:
    builder = make_pod().name(name).uid(f"{namespace}-{name}").namespace(namespace)
    builder = builder.req_named({GPU: "1"})
    return (builder.node(node) if node else builder).model()


def explain(pods: Sequence[Pod], pod: Pod, *, tree: bool) -> Explanation:
    snapshot = build_snapshot([gpu_node()], pods)
    listers = ClusterListers([ELASTIC_QUOTAS, POD_DISRUPTION_BUDGETS])
    for namespace in ("team-a", "team-b"):
        listers.add(ELASTIC_QUOTAS, quota(namespace, tree=tree))
    for each in [*pods, pod]:
        listers.pods.on_add(each)
    handle = ReadOnlyHandle(snapshot, nominated=[], listers=listers)
    fw = build_framework(profile=PROFILE, registry=in_tree_registry(), handle=handle)
    return explain_pod(fw, pod, handle.list_node_infos())


def finding(ex: Explanation) -> dict[str, Any]:
    [found] = ex.findings
    assert found.plugin == "CapacityScheduling"
    return dict(found.data)


def test_a_pod_within_min_says_so() -> None:
    ex = explain([], gpu_pod("a0", "team-a"), tree=False)
    data = finding(ex)
    assert data["quota"] == "team-a/team-a-quota"
    [gpu] = [r for r in data["resources"] if r["resource"] == GPU]
    assert (gpu["used"], gpu["min"], gpu["max"], gpu["request"], gpu["borrow"]) == (0, 2, 4, 1, 0)
    assert "  the pod stays within its quota's min (borrows nothing)" in table(ex)


def test_a_borrower_is_told_what_it_borrows() -> None:
    bound = [gpu_pod(f"a{i}", "team-a", "gpu-1") for i in range(2)]
    ex = explain(bound, gpu_pod("a2", "team-a"), tree=True)
    text = table(ex)
    assert "quota: ElasticQuota team-a/team-a-quota (in a quota tree; cpu in cores)" in text
    assert f"  {GPU}: used 2, min 2, max 4, runtime share 3, pod requests 1" in text
    assert f"  the pod would borrow 1 {GPU} beyond min" in text
    assert ex.chosen == "gpu-1"


def test_a_lender_is_told_whom_it_reclaims_from() -> None:
    bound = [gpu_pod(f"a{i}", "team-a", "gpu-1") for i in range(4)]
    ex = explain(bound, gpu_pod("b0", "team-b"), tree=False)
    assert ex.nominated_node == "gpu-1"
    [victim] = ex.victims
    text = table(ex)
    assert f"preemption: would evict 1 pod(s) from node gpu-1: {victim.pod} (priority 0)" in text
    assert f"  preemption would reclaim from namespace team-a: {victim.pod}" in text
    assert to_dict(ex)["findings"]["CapacityScheduling"]["reclaimsFrom"] == [
        {"namespace": "team-a", "victims": [victim.pod]}
    ]


def test_no_finding_for_a_namespace_without_quota() -> None:
    ex = explain([], gpu_pod("x", "elsewhere"), tree=False)
    assert ex.findings == ()
    assert to_dict(ex)["findings"] == {}
