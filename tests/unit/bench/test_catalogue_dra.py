"""scheduler_perf's DRA test cases: upstream's parameters and objects, the direct
allocation of initClaims, the DRA checks, the null binder's wait for a pod's claims, and
the steady-state tracker."""

from __future__ import annotations

import asyncio
import itertools
import random
from typing import Any

import pytest

from kubesched.bench.catalogue import CASES, DRA_CATALOGUE, SIZES, catalogue_workload
from kubesched.bench.dra_checks import _double_allocations, _pod_problems
from kubesched.bench.dra_setup import UnsupportedClaim, allocate_claims
from kubesched.bench.dra_templates import CLASS, DRIVER, PCI_ROOT, SELECTOR
from kubesched.bench.nullbinder import claims_made
from kubesched.bench.steady import SteadyPods
from kubesched.bench.tracker import PodTracker
from kubesched.bench.workloads import Workload
from kubesched.model import Node, Pod

TEMPLATE = "SchedulingWithResourceClaimTemplate"
DRA_NAMES = [case.name for case in DRA_CATALOGUE]


def objects(workload: Workload, kind: str) -> list[dict[str, Any]]:
    assert workload.dra is not None
    return [body for _path, body in workload.dra.objects() if body["kind"] == kind]


@pytest.mark.parametrize(("name", "size"), list(itertools.product(DRA_NAMES, ("5", "500"))))
def test_every_dra_case_builds_slices_for_its_driver_nodes_and_pods_with_claims(
    name: str, size: str
) -> None:
    workload = catalogue_workload(name, size)
    assert workload.name == name
    assert workload.dra is not None
    nodes = [Node.from_json(workload.node(i)) for i in range(workload.nodes)]
    slices = objects(workload, "ResourceSlice")
    dra_nodes = {n.name for n in nodes if n.labels.get("node-with-dra") == "true"}
    assert {s["spec"]["nodeName"] for s in slices} == dra_nodes
    assert len(slices) == len(dra_nodes)
    (klass,) = objects(workload, "DeviceClass")
    assert klass["metadata"]["name"] == CLASS
    for _path, body in itertools.islice(workload.measured.pods("bench"), 20):
        pod = Pod.from_json(body)
        assert pod.claim_sources
        assert body["spec"]["schedulerName"] == "bench"


def test_upstream_parameters_of_the_500_node_variants() -> None:
    burst = catalogue_workload(TEMPLATE, "500")
    assert (burst.nodes, burst.pods, burst.steady) == (500, 2500, 0.0)
    assert burst.dra is not None
    assert burst.dra.allocate == "init"
    assert len(objects(burst, "ResourceClaim")) == 2500
    assert all(len(s["spec"]["devices"]) == 10 for s in objects(burst, "ResourceSlice"))
    for variant, init in (("empty", 0), ("half", 2500), ("full", 4990)):
        steady = catalogue_workload(f"{TEMPLATE}/{variant}", "500")
        assert (steady.nodes, steady.pods, steady.steady) == (500, 10, 10.0)
        assert len(objects(steady, "ResourceClaim")) == init
    shared = catalogue_workload("SchedulingWithResourceClaim", "500")
    assert (shared.nodes, shared.initial_pods, shared.pods) == (500, 2500, 2500)
    assert all(len(s["spec"]["devices"]) == 2 for s in objects(shared, "ResourceSlice"))
    claims = objects(shared, "ResourceClaim")
    assert [c["metadata"]["namespace"] for c in claims].count("test") == 500
    _, body = next(itertools.islice(shared.measured.pods("bench"), 7, None))
    assert body["spec"]["resourceClaims"][0]["resourceClaimName"] == "test-claim-1"


def test_template_variants_selector_and_match_attribute() -> None:
    (plain,) = objects(catalogue_workload(TEMPLATE, "500"), "ResourceClaimTemplate")
    assert plain["spec"]["spec"]["devices"] == {
        "requests": [{"name": "req-0", "exactly": {"deviceClassName": CLASS}}]
    }
    selector = objects(
        catalogue_workload(f"{TEMPLATE}/selector_empty", "500"), "ResourceClaimTemplate"
    )
    (request,) = selector[0]["spec"]["spec"]["devices"]["requests"]
    assert request["exactly"]["selectors"] == [{"cel": {"expression": SELECTOR}}]
    match = objects(catalogue_workload(f"{TEMPLATE}/match_empty", "500"), "ResourceClaimTemplate")
    devices = match[0]["spec"]["spec"]["devices"]
    assert [r["name"] for r in devices["requests"]] == [f"req-{i}" for i in range(5)]
    assert devices["constraints"] == [{"matchAttribute": PCI_ROOT}]


def test_fast_variants_have_a_node_without_the_driver_and_5000_is_noted() -> None:
    fast = catalogue_workload(TEMPLATE, "5")
    assert fast.nodes == 2
    assert "node-with-dra" not in fast.node(0)["metadata"]["labels"]
    assert fast.node(1)["metadata"]["name"] == "scheduler-perf-dra-0"
    assert "upstream has no 5000-node variant" in catalogue_workload(TEMPLATE, "5000").note
    assert CASES[TEMPLATE].sizes["5000"] == (5000, 2500, 2500)
    for name in DRA_NAMES:
        assert set(CASES[name].sizes) == set(SIZES)
        assert CASES[name].sizes["5000"][0] == 5000


def claim(name: str, requests: int = 1) -> dict[str, Any]:
    reqs = [{"name": f"req-{i}", "exactly": {"deviceClassName": CLASS}} for i in range(requests)]
    return {
        "metadata": {"name": name, "namespace": "init"},
        "spec": {"devices": {"requests": reqs}},
    }


def test_direct_allocation_spreads_claims_over_free_devices_never_twice() -> None:
    workload = catalogue_workload(TEMPLATE, "5")
    slices = objects(workload, "ResourceSlice")
    allocated = list(
        allocate_claims([claim(f"c{i}") for i in range(10)], slices, rng=random.Random(1))
    )
    results = [c["status"]["allocation"]["devices"]["results"][0] for c in allocated]
    assert {r["device"] for r in results} == {f"basic-device-{i}" for i in range(10)}
    assert {r["driver"] for r in results} == {DRIVER}
    terms = allocated[0]["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"]
    assert terms[0]["matchFields"][0]["values"] == ["scheduler-perf-dra-0"]
    assert _double_allocations(allocated) == []
    with pytest.raises(UnsupportedClaim, match="no node has free devices"):
        list(allocate_claims([claim(f"c{i}") for i in range(11)], slices, rng=random.Random(1)))


def test_the_dra_checks_catch_a_device_twice_and_a_claim_not_reserved() -> None:
    slices = objects(catalogue_workload(TEMPLATE, "5"), "ResourceSlice")
    (first,) = allocate_claims([claim("a")], slices, rng=random.Random(1))
    (second,) = allocate_claims([claim("b")], slices, rng=random.Random(1))
    assert _double_allocations([first, second])[0].startswith("1 device(s) allocated twice")
    pod: dict[str, Any] = {
        "metadata": {"name": "p", "namespace": "init", "uid": "u1"},
        "spec": {
            "nodeName": "scheduler-perf-dra-0",
            "resourceClaims": [{"name": "r", "resourceClaimName": "a"}],
        },
    }
    assert _pod_problems(pod, {("init", "a"): first}) == [
        "pod init/p on scheduler-perf-dra-0: claim a"
    ]
    first["status"]["reservedFor"] = [{"resource": "pods", "name": "p", "uid": "u1"}]
    assert _pod_problems(pod, {("init", "a"): first}) == []
    pod["spec"]["nodeName"] = "elsewhere"
    assert _pod_problems(pod, {("init", "a"): first}) == [
        "pod init/p on elsewhere: claim a on another node"
    ]


def test_the_null_binder_waits_for_the_claims_of_a_pods_templates() -> None:
    workload = catalogue_workload(TEMPLATE, "5")
    _, body = next(workload.measured.pods("bench"))
    assert not claims_made(Pod.from_json(body))
    body["status"] = {"resourceClaimStatuses": [{"name": "resource", "resourceClaimName": "x"}]}
    assert claims_made(Pod.from_json(body))
    _, by_name = next(catalogue_workload("SchedulingWithResourceClaim", "5").measured.pods("b"))
    assert claims_made(Pod.from_json(by_name))


class ListingClient:
    async def get(self, path: str, **_kwargs: Any) -> dict[str, Any]:
        return {"metadata": {"resourceVersion": "7"}, "items": []}


def test_a_steady_state_tracker_expects_deletions_and_reports_each_bound_pod() -> None:
    heard: list[str] = []
    tracker = PodTracker(ListingClient(), "ns", steady=True, on_bound=heard.append)  # type: ignore[arg-type]
    bound = {"metadata": {"name": "p0"}, "spec": {"nodeName": "n1"}, "status": {}}
    tracker._apply("ADDED", {"metadata": {"name": "p0"}, "spec": {}, "status": {}}, 1.0)
    tracker._apply("MODIFIED", bound, 2.0)
    tracker._apply("DELETED", bound, 3.0)
    assert heard == ["p0"]
    assert tracker.violations == []
    assert tracker.bound == 1


class RecordingClient:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def post(self, path: str, body: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
        self.calls.append(("POST", body["metadata"]["name"]))
        return body

    async def delete(self, path: str, **_kwargs: Any) -> dict[str, Any]:
        self.calls.append(("DELETE", path.rsplit("/", 1)[-1]))
        return {}


async def test_steady_state_replaces_every_bound_pod_with_a_new_one() -> None:
    workload = catalogue_workload(f"{TEMPLATE}/empty", "5")
    client = RecordingClient()
    steady = SteadyPods(client, workload.measured, "bench")  # type: ignore[arg-type]
    task = asyncio.create_task(steady.run(concurrency=4))
    await asyncio.sleep(0.05)
    assert sorted(c for c in client.calls if c[0] == "POST") == sorted(
        ("POST", f"test-dra-{i}") for i in range(10)
    )
    steady.bound("test-dra-3")
    await asyncio.sleep(0.05)
    task.cancel()
    assert client.calls[-2:] == [("DELETE", "test-dra-3"), ("POST", "test-dra-10")]
