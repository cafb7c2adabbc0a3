"""RBAC for what enabled plugins declare: list/watch each resource, patch its status."""

from __future__ import annotations

from kubesched.apis.resources import ResourceSpec
from kubesched.manifests.crds import pod_group_crd
from kubesched.manifests.rbac import cluster_rules
from kubesched.plugins.coscheduling import PODGROUPS
from kubesched.plugins.coscheduling.podgroup import GROUP_PODS


def test_declared_resources_are_read_and_status_written() -> None:
    rules = cluster_rules(preemption=False, resources=[PODGROUPS, GROUP_PODS])
    by_resource = {(r["apiGroups"][0], r["resources"][0]): r["verbs"] for r in rules}
    assert by_resource[("scheduling.x-k8s.io", "podgroups")] == ["get", "list", "watch"]
    assert by_resource[("scheduling.x-k8s.io", "podgroups/status")] == ["patch", "update"]
    assert len(rules) == len(cluster_rules(preemption=False)) + 2  # pods are granted anyway


def test_a_configmap_rule_only_reads() -> None:
    rules = cluster_rules(preemption=False, resources=[ResourceSpec("", "v1", "configmaps")])
    assert rules[-1] == {
        "apiGroups": [""],
        "resources": ["configmaps"],
        "verbs": ["get", "list", "watch"],
    }


def test_the_podgroup_crd_serves_status_and_the_fields_coscheduling_reads() -> None:
    crd = pod_group_crd()
    version = crd["spec"]["versions"][0]
    assert crd["metadata"]["name"] == "podgroups.scheduling.x-k8s.io"
    assert version["subresources"] == {"status": {}}
    schema = version["schema"]["openAPIV3Schema"]["properties"]
    assert set(schema["spec"]["properties"]) == {
        "minMember",
        "minResources",
        "scheduleTimeoutSeconds",
    }
    assert {"phase", "scheduled", "running", "scheduleStartTime"} <= set(
        schema["status"]["properties"]
    )
