"""Pending pods grouped by a schedulerName that no live scheduler serves."""

from __future__ import annotations

from kubesched.doctor import CheckStatus
from kubesched.doctor.pending import check_pending
from tests.unit.doctor.doctor_fakes import FakeCluster, context, lease, pod


def cluster_with_schedulers() -> FakeCluster:
    cluster = FakeCluster()
    cluster.add(lease("kube-system", "kube-scheduler"))  # live kube-scheduler
    cluster.add(lease("a", "live", names="my-scheduler"))
    cluster.add(lease("b", "dead", names="dead-scheduler", renewed_ago=120))
    return cluster


async def test_pods_for_live_schedulers_are_fine() -> None:
    cluster = cluster_with_schedulers()
    cluster.pods = [
        pod("ns", "p1", "my-scheduler"),
        pod("ns", "p2"),
        pod("ns", "p3", "default-scheduler"),
    ]
    result = await check_pending(context(cluster))
    assert result.status is CheckStatus.OK
    assert "3 unscheduled pending pods" in result.detail


async def test_pods_without_a_live_scheduler_are_listed_by_name() -> None:
    cluster = cluster_with_schedulers()
    cluster.pods = [
        pod("ns", "orphan-1", "unknown"),
        pod("ns", "orphan-2", "unknown"),
        pod("other", "waits", "dead-scheduler"),
        pod("ns", "fine", "my-scheduler"),
        pod("ns", "bound", "unknown", node="n1"),
    ]
    result = await check_pending(context(cluster))
    assert result.status is CheckStatus.FAIL
    assert result.data["withoutScheduler"] == {
        "dead-scheduler": ["other/waits"],
        "unknown": ["ns/orphan-1", "ns/orphan-2"],
    }
    assert "3 pods will stay Pending" in result.detail
    assert "unknown (2: ns/orphan-1, ns/orphan-2)" in result.detail
    assert "kubesched --scheduler-name=unknown" in result.fix


async def test_default_scheduler_pods_wait_when_kube_scheduler_is_gone() -> None:
    cluster = FakeCluster()
    cluster.add(lease("kube-system", "kube-scheduler", renewed_ago=60))
    cluster.pods = [pod("ns", "plain")]
    result = await check_pending(context(cluster))
    assert result.status is CheckStatus.FAIL
    assert result.data["withoutScheduler"] == {"default-scheduler": ["ns/plain"]}
    assert "start the default kube-scheduler" in result.fix


async def test_our_own_name_unserved_says_start_this_kubesched() -> None:
    cluster = FakeCluster()
    cluster.pods = [pod("ns", "mine", "my-scheduler")]
    result = await check_pending(context(cluster))
    assert "start this kubesched" in result.fix


async def test_it_asks_only_for_unscheduled_pending_pods() -> None:
    cluster = FakeCluster()
    await check_pending(context(cluster))
    params = next(p for path, p in cluster.gets if path == "/api/v1/pods")
    assert params["fieldSelector"] == "status.phase=Pending,spec.nodeName="
    assert params["limit"] == "500"
