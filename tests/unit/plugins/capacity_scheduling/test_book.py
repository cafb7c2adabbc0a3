"""The live quotas kept from ElasticQuota and pod events, Reserve and Unreserve, with the
inputs and outcomes of scheduler-plugins' own tests (TestAddElasticQuota ... TestDeletePod,
TestReserve, TestUnreserve in pkg/capacityscheduling/capacity_scheduling_test.go)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from kubesched.framework.listers import IndexedStore
from kubesched.model import ApiObject, Pod, Resource
from kubesched.plugins.capacity_scheduling.core import QuotaBook
from kubesched.plugins.capacity_scheduling.quota import QuotaInfo
from kubesched.testing import make_pod

MID, HIGH = 100, 1000


def eq(
    namespace: str, name: str, *, max_: tuple[int, int] | None, min_: tuple[int, int] | None
) -> ApiObject:
    """An ElasticQuota; (millicores, memory) per bound, None leaves it out."""
    spec: dict[str, Any] = {}
    if max_ is not None:
        spec["max"] = {"cpu": f"{max_[0]}m", "memory": str(max_[1])}
    if min_ is not None:
        spec["min"] = {"cpu": f"{min_[0]}m", "memory": str(min_[1])}
    return ApiObject.from_json({"metadata": {"namespace": namespace, "name": name}, "spec": spec})


def pod(
    name: str,
    namespace: str,
    *,
    memory: int,
    cpu: int = 0,
    priority: int = MID,
    phase: str = "Running",
) -> Pod:
    builder = make_pod().name(name).uid(name).namespace(namespace).node("node-a")
    builder = builder.req(memory=str(memory), cpu=f"{cpu}m").priority(priority)
    return builder.phase(phase).model()


def book_with(*quotas: ApiObject) -> QuotaBook:
    store = IndexedStore[ApiObject]()
    book = QuotaBook(store)
    store.subscribe(book.quota_changed)
    for quota in quotas:
        store.on_add(quota)
    return book


def res(cpu: int, memory: int) -> Resource:
    return Resource(milli_cpu=cpu, memory=memory)


def test_add_elastic_quota() -> None:
    book = book_with(eq("ns1", "t1-eq1", max_=(100, 1000), min_=(10, 100)))
    info = book.infos["ns1"]
    assert (info.max, info.min, info.used, set(info.pods)) == (
        res(100, 1000),
        res(10, 100),
        Resource(),
        set(),
    )


def test_add_elastic_quota_without_max_or_min() -> None:
    book = book_with(
        eq("ns1", "a", max_=None, min_=(10, 100)),
        eq("ns2", "b", max_=(100, 1000), min_=None),
        eq("ns3", "c", max_=None, min_=None),
    )
    unbounded = QuotaInfo.of("x").max
    assert (book.infos["ns1"].max, book.infos["ns1"].min) == (unbounded, res(10, 100))
    assert (book.infos["ns2"].max, book.infos["ns2"].min) == (res(100, 1000), Resource())
    assert (book.infos["ns3"].max, book.infos["ns3"].min) == (unbounded, Resource())


def test_a_namespace_keeps_its_first_quota() -> None:
    book = book_with(
        eq("ns1", "a", max_=(100, 1000), min_=(10, 100)), eq("ns1", "b", max_=(1, 1), min_=(1, 1))
    )
    assert book.infos["ns1"].max == res(100, 1000)


def test_update_elastic_quota_keeps_what_is_used() -> None:
    old = eq("ns1", "t1-eq1", max_=(100, 1000), min_=(10, 100))
    book = book_with(old)
    book.pod_changed(None, pod("t1-p1", "ns1", memory=50, cpu=10))
    book.quota_changed(old, eq("ns1", "t1-eq1", max_=(300, 1000), min_=(10, 100)))
    info = book.infos["ns1"]
    assert (info.max, info.used, set(info.pods)) == (res(300, 1000), res(10, 50), {"t1-p1"})


def test_delete_elastic_quota() -> None:
    quota = eq("ns1", "t1-eq1", max_=(300, 1000), min_=(10, 100))
    book = book_with(quota)
    book.quota_changed(quota, None)
    assert book.infos == {}


def test_add_pod() -> None:
    book = book_with(eq("ns1", "t1-eq1", max_=(100, 1000), min_=(10, 100)))
    for name in ("t1-p1", "t1-p2", "t1-p3"):
        book.pod_changed(None, pod(name, "ns1", memory=50, cpu=10))
    info = book.infos["ns1"]
    assert (info.used, set(info.pods)) == (res(30, 150), {"t1-p1", "t1-p2", "t1-p3"})


def test_a_bound_pod_finds_a_quota_the_book_has_not_heard_of() -> None:
    store = IndexedStore[ApiObject]()
    store.on_add(eq("ns1", "t1-eq1", max_=(100, 1000), min_=(10, 100)))
    book = QuotaBook(store)
    book.pod_changed(None, pod("t1-p1", "ns1", memory=50, cpu=10))
    assert book.infos["ns1"].used == res(10, 50)


def test_pending_pods_count_once_bound() -> None:
    book = book_with(eq("ns1", "q", max_=(100, 1000), min_=(10, 100)))
    pending = make_pod().name("p").uid("p").namespace("ns1").req(memory="50").model()
    book.pod_changed(None, pending)
    assert book.infos["ns1"].used == Resource()
    book.pod_changed(pending, pending.on_node("node-a"))
    assert book.infos["ns1"].used.memory == 50


def test_update_pod_from_succeeded_to_running_changes_nothing() -> None:
    book = book_with(eq("ns1", "t1-eq1", max_=(100, 1000), min_=(10, 100)))
    old = pod("t1-p1", "ns1", memory=100, cpu=30, phase="Succeeded")
    book.pod_changed(None, old)
    book.pod_changed(old, pod("t1-p1", "ns1", memory=100, cpu=30, priority=HIGH))
    info = book.infos["ns1"]
    assert (info.used, set(info.pods)) == (res(30, 100), {"t1-p1"})


def test_update_pod_from_pending_to_failed_stops_counting_it() -> None:
    book = book_with(eq("ns1", "t1-eq1", max_=(100, 1000), min_=(10, 100)))
    old = pod("t1-p2", "ns1", memory=100, cpu=30, phase="Pending")
    book.pod_changed(None, old)
    book.pod_changed(old, pod("t1-p2", "ns1", memory=100, cpu=30, priority=HIGH, phase="Failed"))
    info = book.infos["ns1"]
    assert (info.used, set(info.pods)) == (Resource(), set())


def test_delete_pods() -> None:
    book = book_with(eq("ns1", "t1-eq1", max_=(100, 1000), min_=(10, 100)))
    p1 = pod("t1-p1", "ns1", memory=100, cpu=30)
    p2 = pod("t1-p2", "ns1", memory=100, cpu=30, priority=HIGH)
    book.pod_changed(None, p1)
    book.pod_changed(None, p2)
    book.pod_changed(p1, None)
    assert (book.infos["ns1"].used, set(book.infos["ns1"].pods)) == (res(30, 100), {"t1-p2"})
    book.pod_changed(p2, None)
    assert (book.infos["ns1"].used, set(book.infos["ns1"].pods)) == (Resource(), set())


def test_reserve_counts_pods_of_namespaces_with_a_quota() -> None:
    book = book_with()
    book.infos["ns1"] = QuotaInfo("ns1", min=res(0, 1000), max=res(0, 2000), used=res(0, 300))
    book.reserve(pod("t1-p1", "ns1", memory=50))
    book.reserve(pod("t1-p2", "ns2", memory=50))
    assert (book.infos["ns1"].used.memory, set(book.infos["ns1"].pods)) == (350, {"t1-p1"})
    assert "ns2" not in book.infos


def test_unreserve_uncounts_only_pods_it_counted() -> None:
    book = book_with()
    book.infos["ns1"] = QuotaInfo(
        "ns1",
        min=res(0, 1000),
        max=res(0, 2000),
        used=res(0, 300),
        pods={"t1-p3": res(0, 50), "t1-p4": res(0, 250)},
    )
    book.unreserve(pod("t1-p1", "ns1", memory=50))
    book.unreserve(pod("t1-p2", "ns2", memory=50))
    assert (book.infos["ns1"].used.memory, set(book.infos["ns1"].pods)) == (300, {"t1-p3", "t1-p4"})
    book.unreserve(pod("t1-p3", "ns1", memory=50))
    assert (book.infos["ns1"].used.memory, set(book.infos["ns1"].pods)) == (250, {"t1-p4"})


def test_a_quota_whose_min_exceeds_its_max_is_kept_and_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        book = book_with(eq("ns1", "wrong", max_=(100, 1000), min_=(200, 100)))
    assert book.infos["ns1"].min == res(200, 100)
    [record] = caplog.records
    assert "ElasticQuota min exceeds its max" in record.getMessage()
    assert record.__dict__["kv"] == {"elasticQuota": "ns1/wrong", "resources": "cpu"}
