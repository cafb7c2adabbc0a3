"""RBAC for what enabled plugins declare: list/watch each resource, patch its status."""

from __future__ import annotations

from pathlib import Path

from kubesched.apis.resources import SCHEDULING_PODGROUPS, ResourceSpec
from kubesched.manifests.crds import elastic_quota_crd, pod_group_crd
from kubesched.manifests.rbac import cluster_rules, resource_rules
from kubesched.plugins import config_resources
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS
from kubesched.plugins.coscheduling import PODGROUPS
from kubesched.plugins.coscheduling.podgroup import GROUP_PODS
from tests.unit.manifests.manifests_helpers import config_for


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


def test_the_gate_grants_native_pod_groups_even_without_gang_scheduling(tmp_path: Path) -> None:
    """The pod-group cycle reads native PodGroups and writes their status under
    `GenericWorkload` whether or not GangScheduling runs: the server's informers
    (`cluster_resources`) and so the RBAC of `kubesched manifests` and `doctor`."""
    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: s1\n"
        "  plugins: {multiPoint: {disabled: [{name: GangScheduling}, {name: DynamicResources}]}}\n"
    )
    gated = config_for(
        [f"--config={path}", "--feature-gates=GenericWorkload=true"], tmp_path=tmp_path
    )
    plain = config_for([f"--config={path}"], tmp_path=tmp_path)

    device_classes = (["resource.k8s.io"], ["deviceclasses"])  # NodeResourcesFit reads them
    assert SCHEDULING_PODGROUPS in config_resources(gated)
    declared = [(s.group, s.resource) for s in config_resources(plain)]
    assert ("resource.k8s.io", "deviceclasses") in declared
    assert not any(group.startswith("scheduling") for group, _ in declared)
    rules = resource_rules(config_resources(gated))
    assert [(r["apiGroups"], r["resources"]) for r in rules] == [
        device_classes,
        (["scheduling.k8s.io"], ["podgroups"]),
        (["scheduling.k8s.io"], ["podgroups/status"]),
    ]


def test_resource_rules_are_in_the_order_of_group_and_resource() -> None:
    """Whatever the order of the profiles and plugins, so that the chart's template (which
    cannot know that order) renders the same list."""
    specs = [PODGROUPS, ResourceSpec("", "v1", "configmaps"), SCHEDULING_PODGROUPS]
    expected = resource_rules(specs)

    assert resource_rules(list(reversed(specs))) == expected
    assert [(r["apiGroups"][0], r["resources"][0]) for r in expected] == [
        ("", "configmaps"),
        ("scheduling.k8s.io", "podgroups"),
        ("scheduling.k8s.io", "podgroups/status"),
        ("scheduling.x-k8s.io", "podgroups"),
        ("scheduling.x-k8s.io", "podgroups/status"),
    ]


def test_capacity_scheduling_reads_elastic_quotas() -> None:
    rules = cluster_rules(preemption=True, resources=[ELASTIC_QUOTAS])
    by_resource = {(r["apiGroups"][0], r["resources"][0]): r["verbs"] for r in rules}
    assert by_resource[("scheduling.x-k8s.io", "elasticquotas")] == ["get", "list", "watch"]
    assert ("scheduling.x-k8s.io", "elasticquotas/status") not in by_resource


def test_the_elastic_quota_crd_is_scheduler_plugins_one() -> None:
    """Names, scope, printer columns and the fields of scheduler-plugins v0.35.4-devel's
    manifests/capacityscheduling/crd.yaml."""
    crd = elastic_quota_crd()
    spec = crd["spec"]
    assert crd["metadata"]["name"] == "elasticquotas.scheduling.x-k8s.io"
    assert (spec["group"], spec["scope"]) == ("scheduling.x-k8s.io", "Namespaced")
    assert spec["names"]["shortNames"] == ["eq", "eqs"]
    version = spec["versions"][0]
    assert (version["name"], version["subresources"]) == ("v1alpha1", {"status": {}})
    columns = [(c["name"], c["jsonPath"]) for c in version["additionalPrinterColumns"]]
    assert columns == [
        ("Used", ".status.used"),
        ("Max", ".spec.max"),
        ("Age", ".metadata.creationTimestamp"),
    ]
    schema = version["schema"]["openAPIV3Schema"]["properties"]
    assert set(schema["spec"]["properties"]) == {"min", "max"}
    assert set(schema["status"]["properties"]) == {"used"}
    quantity = schema["spec"]["properties"]["max"]["additionalProperties"]
    assert quantity["x-kubernetes-int-or-string"] is True
