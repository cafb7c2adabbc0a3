"""The permissions check: every verb the scheduler uses, and the resourceNames/create pitfall."""

from __future__ import annotations

from kubesched.doctor import CheckStatus, ServiceAccount, Target
from kubesched.doctor.permissions import check_permissions, scheduler_needs
from kubesched.kube.errors import Forbidden
from tests.unit.doctor.doctor_fakes import (
    FakeCluster,
    Rule,
    context,
    correct_rules,
    leader_election_guide_rules,
    lease,
    target,
)

SA = ServiceAccount("custom-scheduler-ns", "custom-scheduler-sa")
SA_USER = "system:serviceaccount:custom-scheduler-ns:custom-scheduler-sa"


def sa_target() -> Target:
    return target("my-custom-scheduler", namespace="custom-scheduler-ns", service_account=SA)


async def test_leader_election_guide_rbac_names_the_pitfall() -> None:
    cluster = FakeCluster()
    cluster.grant(SA_USER, leader_election_guide_rules())
    result = await check_permissions(context(cluster, sa_target()))
    assert result.status is CheckStatus.FAIL
    assert result.data["pitfall"] is True
    assert "cannot create the Lease custom-scheduler-ns/my-custom-scheduler" in result.detail
    assert "resourceNames cannot restrict create" in result.detail
    assert "first time" in result.detail
    assert "separate rule without resourceNames" in result.fix
    assert "verbs [create]" in result.fix
    denied = {d["permission"] for d in result.data["denied"]}
    assert "create leases.coordination.k8s.io in custom-scheduler-ns" in denied
    assert "patch pods/status" in denied  # the document grants create/update, not patch
    assert "create events.events.k8s.io" in denied
    assert "list namespaces" in denied  # the namespace informer (namespaceSelector labels)


async def test_the_create_review_carries_no_name_like_a_real_create() -> None:
    cluster = FakeCluster()
    cluster.grant(SA_USER, leader_election_guide_rules())
    await check_permissions(context(cluster, sa_target()))
    creates = [
        r["spec"]["resourceAttributes"]
        for r in cluster.reviews()
        if r["spec"]["resourceAttributes"]["resource"] == "leases"
        and r["spec"]["resourceAttributes"]["verb"] == "create"
    ]
    assert {"name" in attrs for attrs in creates} == {False, True}  # plain, then the probe


async def test_subject_access_review_carries_the_service_accounts_groups() -> None:
    cluster = FakeCluster()
    cluster.grant(SA_USER, correct_rules("custom-scheduler-ns", "my-custom-scheduler"))
    await check_permissions(context(cluster, sa_target()))
    review = cluster.reviews()[0]
    assert review["kind"] == "SubjectAccessReview"
    assert review["spec"]["user"] == SA_USER
    assert "system:serviceaccounts:custom-scheduler-ns" in review["spec"]["groups"]


async def test_correct_rbac_passes() -> None:
    cluster = FakeCluster(service_accounts={("custom-scheduler-ns", "custom-scheduler-sa")})
    cluster.grant(SA_USER, correct_rules("custom-scheduler-ns", "my-custom-scheduler"))
    result = await check_permissions(context(cluster, sa_target()))
    assert result.status is CheckStatus.OK, result.detail
    assert result.data["denied"] == []
    assert SA_USER in result.detail


async def test_own_credentials_use_self_subject_access_reviews() -> None:
    cluster = FakeCluster(me="alice")
    cluster.grant("alice", correct_rules("sched-ns", "my-scheduler"))
    result = await check_permissions(context(cluster))
    assert result.status is CheckStatus.OK
    assert "alice" in result.detail
    assert {r["kind"] for r in cluster.reviews()} == {"SelfSubjectAccessReview"}


async def test_missing_create_without_the_pitfall_rule() -> None:
    rules = [
        r
        for r in correct_rules("sched-ns", "my-scheduler")
        if r.names or "leases" not in r.resources
    ]
    cluster = FakeCluster(me="alice")
    cluster.grant("alice", rules)
    result = await check_permissions(context(cluster))
    assert result.status is CheckStatus.FAIL
    assert result.data["pitfall"] is False
    assert "no create permission on leases" in result.detail
    assert "separate rule without resourceNames" in result.fix


async def test_pitfall_is_a_warning_while_the_lease_exists() -> None:
    cluster = FakeCluster(me="alice")
    rules = [r for r in correct_rules("sched-ns", "my-scheduler") if "leases" not in r.resources]
    rules.append(
        Rule(("get", "create", "update"), ("leases",), ("coordination.k8s.io",), ("my-scheduler",))
    )
    cluster.grant("alice", rules)
    cluster.add(lease("sched-ns", "my-scheduler", names="my-scheduler"))
    result = await check_permissions(context(cluster))
    assert result.status is CheckStatus.WARN
    assert "works until the Lease is deleted" in result.detail


async def test_other_denials_fail_with_their_purpose() -> None:
    rules = [
        r for r in correct_rules("sched-ns", "my-scheduler") if r.resources != ("pods/binding",)
    ]
    cluster = FakeCluster(me="alice")
    cluster.grant("alice", rules)
    result = await check_permissions(context(cluster))
    assert result.status is CheckStatus.FAIL
    assert "create pods/binding (binding pods)" in result.detail


async def test_missing_metrics_auth_permissions_only_warn() -> None:
    cluster = FakeCluster(me="alice")
    cluster.grant("alice", correct_rules("sched-ns", "my-scheduler", metrics_auth=False))
    result = await check_permissions(context(cluster))
    assert result.status is CheckStatus.WARN
    assert "tokenreviews" in result.detail


async def test_no_lease_permissions_needed_without_leader_election() -> None:
    needs = scheduler_needs(target(leader_elect=False))
    assert all(n.resource != "leases" for n in needs)


async def test_missing_service_account_warns() -> None:
    cluster = FakeCluster()
    cluster.grant(SA_USER, correct_rules("custom-scheduler-ns", "my-custom-scheduler"))
    result = await check_permissions(context(cluster, sa_target()))
    assert result.status is CheckStatus.WARN
    assert "does not exist" in result.detail


async def test_when_reviews_are_forbidden_it_says_why() -> None:
    cluster = FakeCluster()
    cluster.errors["/apis/authorization.k8s.io/v1/subjectaccessreviews"] = Forbidden(
        403, "Forbidden", "cannot create subjectaccessreviews"
    )
    result = await check_permissions(context(cluster, sa_target()))
    assert result.status is CheckStatus.WARN
    assert "cannot review the permissions" in result.detail
