"""NodeResourcesFit and BalancedAllocation with pods resized in place (v1.37.2): the node
counts its pods by the larger of spec and status resources (`PodInfo.CalculateResource`),
the Filter reads the pod's spec alone (`computePodResourceRequest`), BalancedAllocation the
pod's status-aware requests, Fit's score its spec's containers."""

from __future__ import annotations

from typing import Any

from kubesched.framework import Code, NodeInfo
from kubesched.model import Pod
from kubesched.plugins import NodeResourcesBalancedAllocation, NodeResourcesFit
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin
from tests.unit.model.resize_status import resize_pending, status

FIT = NodeResourcesFit(args={}, handle=FakeHandle())
BALANCED = NodeResourcesBalancedAllocation(args={}, handle=FakeHandle())


def resized(
    spec_cpu: str, *, allocated: str, actuated: str | None = None, reason: str = ""
) -> dict[str, Any]:
    obj = make_pod().node("n1").req(cpu=spec_cpu, memory="1Gi").obj()
    status(
        obj,
        "pause",
        allocated={"cpu": allocated, "memory": "1Gi"},
        actuated={"cpu": actuated or allocated, "memory": "1Gi"},
    )
    return resize_pending(obj, reason) if reason else obj


def node_with(*pods: dict[str, Any], cpu: str = "4") -> NodeInfo:
    info = NodeInfo(node=make_node().name("n1").capacity(cpu=cpu, memory="8Gi").model())
    for obj in pods:
        info.add_pod(Pod.from_json(obj))
    return info


def fit_code(pending: Pod, info: NodeInfo) -> tuple[Code, tuple[str, ...]]:
    result = run_filter_plugin(FIT, pending, [info])["n1"]
    return result.code, tuple(result.reasons)


PENDING_2_CPU = make_pod().req(cpu="2").model()


def test_a_downsize_the_node_has_not_admitted_still_holds_the_old_size() -> None:
    info = node_with(resized("1", allocated="3"))
    assert info.requested.milli_cpu == 3000
    assert fit_code(PENDING_2_CPU, info) == (Code.UNSCHEDULABLE, ("Insufficient cpu",))


def test_an_upsize_in_progress_holds_the_new_size() -> None:
    info = node_with(resized("3", allocated="1"))
    assert fit_code(PENDING_2_CPU, info) == (Code.UNSCHEDULABLE, ("Insufficient cpu",))


def test_an_infeasible_upsize_holds_only_what_the_node_admitted() -> None:
    info = node_with(resized("3", allocated="1", reason="Infeasible"))
    assert info.requested.milli_cpu == 1000
    assert fit_code(PENDING_2_CPU, info) == (Code.SUCCESS, ())


def test_a_deferred_upsize_holds_the_new_size() -> None:
    info = node_with(resized("3", allocated="1", reason="Deferred"))
    assert fit_code(PENDING_2_CPU, info) == (Code.UNSCHEDULABLE, ("Insufficient cpu",))


def test_removing_a_resized_pod_frees_what_it_held() -> None:
    obj = resized("1", allocated="3")
    info = node_with(obj)
    info.remove_pod(obj["metadata"]["uid"])
    assert info.requested.milli_cpu == 0
    assert info.non_zero_requested.milli_cpu == 0


def test_the_filter_reads_the_pending_pods_spec_not_its_status() -> None:
    """A pod being scheduled is filtered by its spec (upstream's PreFilter passes no
    `UseStatusResources`), whatever status resources it carries."""
    obj = make_pod().req(cpu="1").obj()
    status(obj, "pause", allocated={"cpu": "3"})
    obj["status"]["phase"] = "Pending"
    pending = Pod.from_json(obj)
    assert pending.requests.milli_cpu == 3000
    assert fit_code(pending, node_with(cpu="2")) == (Code.SUCCESS, ())


def test_scores_count_the_node_by_status_and_the_pod_as_upstream() -> None:
    """The node holds the resized pod's 3 cpu (its spec says 1): both scores see 3."""
    info = node_with(resized("1", allocated="3"), cpu="8")
    pending = make_pod().req(cpu="1", memory="3Gi").model()
    # LeastAllocated: cpu (8 - 3 - 1) / 8 -> 50, memory (8 - 1 - 3) / 8 -> 50: 50
    # (by the spec, cpu (8 - 1 - 1) / 8 -> 75 and 62 in all)
    assert run_score_plugin(FIT, pending, [info]) == {"n1": 50}
    # with the pod cpu 4/8, memory 4/8: balance 100; without 3/8 and 1/8: std 0.125 -> 87.5;
    # 50 + (50 + 100 - 87.5) / 2 = 81 (by the spec: 87.5 with, 100 without -> 68)
    assert run_score_plugin(BALANCED, pending, [info]) == {"n1": 81}
