"""The generated RBAC: enough for every call kubesched makes, nothing more."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.manifests.rbac import AUTH_DELEGATOR, cluster_rules, lease_rules
from tests.unit.manifests.manifests_helpers import Build, of_kind, one, rules_granting

LEASES = "coordination.k8s.io"


def all_rules(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [rule for obj in objects for rule in obj.get("rules", ())]


def test_lease_role_creates_without_resource_names_and_reads_and_updates_only_its_lease(
    build: Build,
) -> None:
    objects = build("--scheduler-name=my-custom-scheduler")
    role = one(objects, "Role")
    assert role["metadata"]["namespace"] == "kubesched-system"
    creates = rules_granting(role["rules"], group=LEASES, resource="leases", verb="create")
    assert creates
    assert all("resourceNames" not in rule for rule in creates)
    for verb in ("get", "update"):
        granted = rules_granting(role["rules"], group=LEASES, resource="leases", verb=verb)
        assert granted
        assert all(rule.get("resourceNames") == ["my-custom-scheduler"] for rule in granted)
    assert not rules_granting(role["rules"], group=LEASES, resource="leases", verb="delete")
    assert not rules_granting(role["rules"], group=LEASES, resource="leases", verb="patch")


def test_no_cluster_wide_lease_access(build: Build) -> None:
    cluster_role = one(build(), "ClusterRole")
    assert all(LEASES not in rule["apiGroups"] for rule in cluster_role["rules"])


def test_the_lease_role_lives_in_the_lease_namespace(build: Build) -> None:
    objects = build(
        "--leader-election-resource-name=my-custom-scheduler",
        "--leader-election-resource-namespace=custom-scheduler-ns",
    )
    role, binding = one(objects, "Role"), one(objects, "RoleBinding")
    assert role["metadata"]["namespace"] == binding["metadata"]["namespace"]
    assert role["metadata"]["namespace"] == "custom-scheduler-ns"
    assert role["rules"] == lease_rules("my-custom-scheduler")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": role["metadata"]["name"],
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "kubesched", "namespace": "kubesched-system"}
    ]


def test_cluster_role_grants_what_the_scheduler_calls(build: Build) -> None:
    rules = one(build(), "ClusterRole")["rules"]
    for resource in ("pods", "nodes", "namespaces"):
        for verb in ("get", "list", "watch"):
            assert rules_granting(rules, group="", resource=resource, verb=verb), (resource, verb)
    assert rules_granting(rules, group="", resource="pods/binding", verb="create")
    for verb in ("patch", "update"):
        assert rules_granting(rules, group="", resource="pods/status", verb=verb)
    for group in ("", "events.k8s.io"):
        for verb in ("create", "patch", "update"):
            assert rules_granting(rules, group=group, resource="events", verb=verb)
    for group, resource in (
        ("", "services"),
        ("", "replicationcontrollers"),
        ("apps", "replicasets"),
        ("apps", "statefulsets"),
    ):  # the informers default topology spreading reads
        for verb in ("list", "watch"):
            assert rules_granting(rules, group=group, resource=resource, verb=verb), resource


@pytest.mark.parametrize("preemption", [False, True])
def test_pods_delete_only_with_preemption(build: Build, preemption: bool) -> None:
    rules = all_rules(build(preemption=preemption))
    deletes = rules_granting(rules, group="", resource="pods", verb="delete")
    assert bool(deletes) is preemption
    assert (
        cluster_rules(preemption=preemption)
        == one(build(preemption=preemption), "ClusterRole")["rules"]
    )


@pytest.mark.parametrize("preemption", [False, True])
def test_no_wildcards_no_secrets_no_writes_beyond_the_scheduler(
    build: Build, preemption: bool
) -> None:
    rules = all_rules(build(preemption=preemption))
    for rule in rules:
        for key in ("apiGroups", "resources", "verbs", "resourceNames"):
            assert "*" not in rule.get(key, ()), rule
        assert "nonResourceURLs" not in rule
        assert not {"secrets", "configmaps", "serviceaccounts"} & set(rule["resources"]), rule
        assert not {"escalate", "bind", "impersonate", "deletecollection"} & set(rule["verbs"])
    writes = {
        (group, resource, verb)
        for rule in rules
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
        if verb not in ("get", "list", "watch")
    }
    expected = {
        ("", "pods/binding", "create"),
        ("", "pods/status", "patch"),
        ("", "pods/status", "update"),
        *(
            (group, "events", verb)
            for group in ("", "events.k8s.io")
            for verb in ("create", "patch", "update")
        ),
        (LEASES, "leases", "create"),
        (LEASES, "leases", "update"),
        # VolumeBinding's PreBind: a PV's claimRef, a claim's selected node.
        ("", "persistentvolumes", "patch"),
        ("", "persistentvolumeclaims", "patch"),
    }
    if preemption:
        expected.add(("", "pods", "delete"))
    assert writes == expected


def test_delegated_auth_through_the_built_in_auth_delegator_role(build: Build) -> None:
    bindings = of_kind(build(), "ClusterRoleBinding")
    delegator = [b for b in bindings if b["roleRef"]["name"] == AUTH_DELEGATOR]
    assert len(delegator) == 1
    assert delegator[0]["roleRef"]["kind"] == "ClusterRole"
    assert delegator[0]["subjects"] == [
        {"kind": "ServiceAccount", "name": "kubesched", "namespace": "kubesched-system"}
    ]


def test_cluster_wide_names_are_unique_per_namespace_and_name(build: Build) -> None:
    first = build("--scheduler-name=a", namespace="team-a")
    second = build("--scheduler-name=a", namespace="team-b")
    third = build("--scheduler-name=b", namespace="team-a")

    def cluster_names(objects: list[dict[str, Any]]) -> set[str]:
        return {
            obj["metadata"]["name"]
            for obj in objects
            if obj["kind"] in ("ClusterRole", "ClusterRoleBinding")
        }

    assert cluster_names(first) == {"kubesched:team-a:a", "kubesched:team-a:a:auth-delegator"}
    assert not cluster_names(first) & cluster_names(second)
    assert not cluster_names(first) & cluster_names(third)
    binding = next(
        b
        for b in of_kind(first, "ClusterRoleBinding")
        if b["metadata"]["name"] == "kubesched:team-a:a"
    )
    assert binding["roleRef"]["name"] == one(first, "ClusterRole")["metadata"]["name"]


def test_without_leader_election_there_is_no_lease_role(build: Build) -> None:
    objects = build("--leader-elect=false", replicas=1)
    assert not of_kind(objects, "Role")
    assert not of_kind(objects, "RoleBinding")
    assert all(LEASES not in rule["apiGroups"] for rule in all_rules(objects))
