"""Lease collision, Lease holder and default-scheduler checks."""

from __future__ import annotations

import pytest

from kubesched.doctor import CheckStatus
from kubesched.doctor.collision import check_collision
from kubesched.doctor.default_scheduler import check_default_scheduler
from kubesched.doctor.holder import check_holder
from tests.unit.doctor.doctor_fakes import FakeCluster, context, lease, target

KUBE_SCHEDULER = lease("kube-system", "kube-scheduler", holder="master_1234")


# -- collision ---------------------------------------------------------------------------
async def test_kubesched_on_the_default_schedulers_lease_collides() -> None:
    cluster = FakeCluster()
    cluster.add(KUBE_SCHEDULER)
    tgt = target("my-custom-scheduler", namespace="kube-system", lease_name="kube-scheduler")
    result = await check_collision(context(cluster, tgt))
    assert result.status is CheckStatus.FAIL
    assert "kube-system/kube-scheduler belongs to the default scheduler" in result.detail
    assert "attempting to acquire leader lease kube-system/kube-scheduler" in result.detail
    assert "--leader-elect-resource-name=my-custom-scheduler" in result.fix


async def test_replacing_a_live_kube_scheduler_collides() -> None:
    cluster = FakeCluster()
    cluster.add(KUBE_SCHEDULER)
    tgt = target("default-scheduler", namespace="kube-system", lease_name="kube-scheduler")
    result = await check_collision(context(cluster, tgt))
    assert result.status is CheckStatus.FAIL
    assert "live default kube-scheduler" in result.detail
    assert "stop the default scheduler first" in result.fix


async def test_replacing_a_stopped_kube_scheduler_is_fine() -> None:
    cluster = FakeCluster()
    cluster.add(lease("kube-system", "kube-scheduler", renewed_ago=600))
    tgt = target("default-scheduler", namespace="kube-system", lease_name="kube-scheduler")
    assert (await check_collision(context(cluster, tgt))).status is CheckStatus.OK


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (None, "not kubesched"),
        ("other-scheduler", "two deployments share one Lease"),
    ],
)
async def test_a_live_foreign_holder_collides(names: str | None, expected: str) -> None:
    cluster = FakeCluster()
    cluster.add(lease("sched-ns", "my-scheduler", holder="someone", names=names))
    result = await check_collision(context(cluster))
    assert result.status is CheckStatus.FAIL
    assert expected in result.detail


async def test_our_own_replica_holding_the_lease_is_fine() -> None:
    cluster = FakeCluster()
    cluster.add(lease("sched-ns", "my-scheduler", names="my-scheduler"))
    cluster.add(KUBE_SCHEDULER)
    result = await check_collision(context(cluster))
    assert result.status is CheckStatus.OK
    assert "sched-ns/my-scheduler is this scheduler's own Lease" in result.detail


async def test_a_stale_foreign_holder_does_not_collide() -> None:
    cluster = FakeCluster()
    cluster.add(lease("sched-ns", "my-scheduler", holder="old", renewed_ago=300))
    assert (await check_collision(context(cluster))).status is CheckStatus.OK


async def test_another_live_scheduler_serving_our_name_collides() -> None:
    cluster = FakeCluster()
    cluster.add(lease("elsewhere", "rival", holder="rival-1", names="my-scheduler,x"))
    result = await check_collision(context(cluster))
    assert result.status is CheckStatus.FAIL
    assert "my-scheduler by rival-1 (elsewhere/rival)" in result.detail


async def test_serving_default_scheduler_beside_a_live_kube_scheduler_collides() -> None:
    cluster = FakeCluster()
    cluster.add(KUBE_SCHEDULER)
    tgt = target("default-scheduler", namespace="sched-ns", lease_name="mine")
    result = await check_collision(context(cluster, tgt))
    assert result.status is CheckStatus.FAIL
    assert "kube-system/kube-scheduler" in result.detail


async def test_no_lease_without_leader_election() -> None:
    result = await check_collision(context(FakeCluster(), target(leader_elect=False)))
    assert result.status is CheckStatus.OK
    assert "leader election is off" in result.detail


# -- holder ------------------------------------------------------------------------------
async def test_live_holder() -> None:
    cluster = FakeCluster()
    cluster.add(lease("sched-ns", "my-scheduler", holder="r1", names="my-scheduler", transitions=3))
    result = await check_holder(context(cluster))
    assert result.status is CheckStatus.OK
    assert "held by r1, renewed 1.0s ago, expires in 14s, 3 transitions" in result.detail
    assert result.data["state"] == "live"


async def test_a_holder_that_is_not_this_scheduler_is_a_warning() -> None:
    cluster = FakeCluster()
    cluster.add(KUBE_SCHEDULER)
    tgt = target("my-custom-scheduler", namespace="kube-system", lease_name="kube-scheduler")
    result = await check_holder(context(cluster, tgt))
    assert result.status is CheckStatus.WARN
    assert "serves default-scheduler, not this scheduler" in result.detail


async def test_stale_holder() -> None:
    cluster = FakeCluster()
    cluster.add(lease("sched-ns", "my-scheduler", holder="gone", renewed_ago=300, names="x"))
    result = await check_holder(context(cluster))
    assert result.status is CheckStatus.WARN
    assert "is stale: held by gone, last renewed 5m0s ago" in result.detail
    assert result.data["state"] == "stale"
    assert result.data["expiresInSeconds"] == pytest.approx(-285)


async def test_released_lease() -> None:
    cluster = FakeCluster()
    cluster.add(lease("sched-ns", "my-scheduler", holder="", names="my-scheduler"))
    result = await check_holder(context(cluster))
    assert result.status is CheckStatus.WARN
    assert result.data["state"] == "released"


async def test_missing_lease() -> None:
    result = await check_holder(context(FakeCluster()))
    assert result.status is CheckStatus.WARN
    assert "does not exist" in result.detail
    assert "create leases` without resourceNames" in result.fix


# -- default scheduler -------------------------------------------------------------------
async def test_default_scheduler_alive() -> None:
    cluster = FakeCluster()
    cluster.add(KUBE_SCHEDULER)
    result = await check_default_scheduler(context(cluster))
    assert result.status is CheckStatus.OK
    assert "held by master_1234 (kube-scheduler)" in result.detail


async def test_default_scheduler_stale_or_missing() -> None:
    cluster = FakeCluster()
    assert (await check_default_scheduler(context(cluster))).status is CheckStatus.WARN
    cluster.add(lease("kube-system", "kube-scheduler", renewed_ago=100))
    result = await check_default_scheduler(context(cluster))
    assert result.status is CheckStatus.WARN
    assert "is stale" in result.detail
