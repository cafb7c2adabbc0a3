"""ElasticQuota arithmetic, with the inputs and verdicts of scheduler-plugins' own tests
(pkg/capacityscheduling/elasticquota_test.go), and what a pod counts against its quota."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kubesched.model import Resource
from kubesched.plugins.capacity_scheduling.quota import (
    UPPER_BOUND_OF_MAX,
    QuotaInfo,
    QuotaInfos,
    min_over_max,
    pod_request,
)
from kubesched.testing import make_pod

GPU = "nvidia.com/gpu"


def res(cpu: int = 0, memory: int = 0, *, gpu: int | None = None, storage: int = 0) -> Resource:
    """A vector in scheduler units (cpu in millicores)."""
    scalar = {} if gpu is None else {GPU: gpu}
    return Resource(milli_cpu=cpu, memory=memory, ephemeral_storage=storage, scalar=scalar)


@dataclass
class Case:
    name: str
    used: Resource
    limit: Resource | None
    request: Resource
    expected: bool


OVER_MIN_WITH = [
    Case("sum bigger than min", res(4000, 200, gpu=5), res(3000, 100, gpu=5), res(1500, 100), True),
    Case(
        "sum not bigger than min", res(300, 100, gpu=5), res(4000, 200, gpu=5), res(100, 50), False
    ),
    Case("no min guarantees nothing", res(3900, 100, gpu=5), None, res(100, 100), True),
    Case(
        "a gpu request against a min without gpu",
        res(10, 10),
        res(3000, 100),
        res(10, 10, gpu=5),
        True,
    ),
    Case(
        "ephemeral storage",
        res(10, 10, storage=10),
        res(3000, 100, storage=100),
        res(10, 10, storage=10),
        False,
    ),
]


@pytest.mark.parametrize("case", OVER_MIN_WITH, ids=[c.name for c in OVER_MIN_WITH])
def test_used_over_min_with(case: Case) -> None:
    info = QuotaInfo("ns1", min=case.limit or Resource(), used=case.used)
    assert info.used_over_min_with(case.request) is case.expected


OVER_MAX_WITH = [
    Case("sum bigger than max", res(4000, 200, gpu=5), res(4000, 200, gpu=5), res(100, 100), True),
    Case(
        "sum not bigger than max",
        res(3900, 100, gpu=5),
        res(4000, 200, gpu=5),
        res(100, 100),
        False,
    ),
    Case("no max limits nothing", res(3900, 100, gpu=5), None, res(100, 100), False),
    Case(
        "a gpu request against a max without gpu",
        res(10, 10),
        res(3000, 100),
        res(10, 10, gpu=5),
        False,
    ),
    Case(
        "ephemeral storage",
        res(10, 10, storage=10),
        res(3000, 100, storage=100),
        res(10, 10, storage=100),
        True,
    ),
]


@pytest.mark.parametrize("case", OVER_MAX_WITH, ids=[c.name for c in OVER_MAX_WITH])
def test_used_over_max_with(case: Case) -> None:
    info = QuotaInfo.of("ns1") if case.limit is None else QuotaInfo("ns1", max=case.limit)
    info.used = case.used
    assert info.used_over_max_with(case.request) is case.expected


OVER_MIN = [
    Case("used bigger than min", res(4000, 200, gpu=5), res(3000, 100, gpu=5), res(), True),
    Case("used not bigger than min", res(300, 100, gpu=5), res(4000, 200, gpu=5), res(), False),
    Case("no min", res(300, 100), None, res(), True),
    Case("used gpu, min without gpu", res(300, 100, gpu=5), res(4000, 200), res(), True),
    Case("ephemeral storage", res(10, 10, storage=1000), res(3000, 100, storage=100), res(), True),
]


@pytest.mark.parametrize("case", OVER_MIN, ids=[c.name for c in OVER_MIN])
def test_used_over_min(case: Case) -> None:
    info = QuotaInfo("ns1", min=case.limit or Resource(), used=case.used)
    assert info.used_over_min() is case.expected


def test_a_quota_without_min_or_max_gets_the_bounds() -> None:
    info = QuotaInfo.of("ns1", min=None, max=None)
    assert info.min == Resource()
    assert info.max == Resource(UPPER_BOUND_OF_MAX, UPPER_BOUND_OF_MAX, UPPER_BOUND_OF_MAX)
    named = QuotaInfo.of("ns1", min={"cpu": "4"}, max={"cpu": "6", GPU: "2"})
    assert named.min == res(4000)
    assert named.max == res(6000, gpu=2)


def test_a_max_that_leaves_memory_out_refuses_any_memory() -> None:
    info = QuotaInfo.of("ns1", max={"cpu": "6"})
    assert info.used_over_max_with(res(1000, 1))
    assert not info.used_over_max_with(res(6000))


def test_pods_are_counted_once_and_uncounted_once() -> None:
    info = QuotaInfo.of("ns1", min={"memory": "1000"}, max={"memory": "2000"})
    pod = make_pod().name("t1-p1").namespace("ns1").req(memory="50").model()
    info.add_pod(pod)
    info.add_pod(pod)
    assert info.used.memory == 50
    assert set(info.pods) == {pod.uid}
    info.remove_pod(pod)
    info.remove_pod(pod)
    assert info.used.memory == 0
    assert set(info.pods) == set()


def test_aggregated_use_against_the_sum_of_mins() -> None:
    infos = QuotaInfos(
        ns1=QuotaInfo("ns1", min=res(memory=1000), used=res(memory=1800)),
        ns2=QuotaInfo("ns2", min=res(memory=1000), used=res(memory=200)),
    )
    assert not infos.aggregated_used_over_min_with(res())
    assert infos.aggregated_used_over_min_with(res(memory=1))


def test_clone_is_independent() -> None:
    infos = QuotaInfos(ns1=QuotaInfo.of("ns1", min={"cpu": "1"}))
    copy = infos.clone()
    copy["ns1"].add_pod(make_pod().name("p").namespace("ns1").req(cpu="1").model())
    assert infos["ns1"].used == Resource()
    assert set(infos["ns1"].pods) == set()


def test_pod_request_takes_init_containers_as_a_floor_and_adds_overhead() -> None:
    pod = (
        make_pod()
        .name("p")
        .req(cpu="2", memory="1G")
        .container("c2", requests={"cpu": "1", "memory": "1G"})
        .init_container("ic1", requests={"cpu": "2", "memory": "1G"})
        .init_container("ic2", requests={"cpu": "2", "memory": "3G"})
        .overhead(cpu="100m")
        .model()
    )
    assert pod_request(pod) == res(3100, 3_000_000_000)


def test_min_over_max_names_what_a_quota_guarantees_beyond_its_limit() -> None:
    assert min_over_max(QuotaInfo.of("ns", min={"cpu": "4"}, max={"cpu": "6"})) == []
    assert min_over_max(QuotaInfo.of("ns", min={"cpu": "8"}, max={"cpu": "6"})) == ["cpu"]
    leaves_memory_out = QuotaInfo.of("ns", min={"cpu": "1", "memory": "1Gi"}, max={"cpu": "6"})
    assert min_over_max(leaves_memory_out) == ["memory"]
    assert min_over_max(QuotaInfo.of("ns", min={GPU: "2"}, max=None)) == []


def test_a_clone_and_its_original_change_apart_whichever_changes_first() -> None:
    original = QuotaInfo.of("ns1", min={"cpu": "4"})
    first = make_pod().name("a").namespace("ns1").req(cpu="1").model()
    second = make_pod().name("b").namespace("ns1").req(cpu="1").model()
    original.add_pod(first)
    copy = original.clone()
    original.add_pod(second)
    assert (set(copy.pods), copy.used.milli_cpu) == ({first.uid}, 1000)
    again = copy.clone()
    copy.remove_pod(first)
    assert (set(again.pods), again.used.milli_cpu) == ({first.uid}, 1000)
    assert (set(original.pods), original.used.milli_cpu) == ({first.uid, second.uid}, 2000)
