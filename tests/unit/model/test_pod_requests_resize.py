"""Requests of pods resized in place, as kube-scheduler v1.37.2 counts them
(k8s.io/component-helpers `resource.PodRequests` with `UseStatusResources` and, its gate being
Beta and on, `InPlacePodLevelResourcesVerticalScalingEnabled`; `PodInfo.CalculateResource`
for the non-zero requests)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.model import Pod
from kubesched.model.pod_requests import _PodView
from kubesched.testing import make_pod
from kubesched.testing.builders import PodBuilder
from tests.unit.model.resize_status import pod_status, resize_pending, status

MI = 2**20
GI = 2**30
DEFAULT_CPU, DEFAULT_MEMORY = 100, 200 * MI


def bound(cpu: str = "", memory: str = "") -> PodBuilder:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    builder = make_pod().node("n1")
    return builder.req(**requests) if requests else builder


def parse(obj: dict[str, Any]) -> Pod:
    return Pod.from_json(obj)


# -- the common case stays on the short path -----------------------------------------------


def test_a_status_that_repeats_the_spec_changes_nothing() -> None:
    obj = bound(cpu="1", memory="1Gi").obj()
    plain = parse(obj)
    status(obj, "pause", allocated={"cpu": "1", "memory": "1Gi"}, actuated={"cpu": "1"})
    reported = parse(obj)
    assert reported.requests == plain.requests
    assert reported.non_zero_requests == plain.non_zero_requests
    assert reported.spec_requests is None
    assert reported.container_non_zero_requests is None


@pytest.mark.parametrize(
    "build",
    [
        lambda: bound(cpu="1"),
        lambda: bound(memory="1Gi").container("b"),
        lambda: (
            bound(cpu="500m")
            .init_container("side", requests={"cpu": "250m"}, sidecar=True)
            .init_container("setup", requests={"cpu": "2", "memory": "64Mi"})
            .overhead(cpu="100m")
        ),
        lambda: bound().req_named({"example.com/gpu": "2"}).init_container("i"),
    ],
    ids=["one", "no-cpu", "init-sidecar-overhead", "extended"],
)
def test_the_full_formula_agrees_with_the_short_path(build: Any) -> None:
    """Without status resources, the named-list aggregation (`_PodView`) gives what the
    short path gives."""
    obj = build().obj()
    spec = obj["spec"]
    short = parse(obj)
    view = _PodView(spec, {}, spec["containers"], spec.get("initContainers") or [], False)
    full = view.requests()
    assert full.requests == short.requests
    assert full.non_zero == short.non_zero_requests
    assert full.fit_score is None
    assert full.spec is None


# -- resize in progress ----------------------------------------------------------------------


def test_upsize_in_progress_counts_the_spec() -> None:
    """Spec raised to 2 cpu; the node has admitted and applied 1: the larger, 2, counts."""
    pod = parse(
        status(bound(cpu="2").obj(), "pause", allocated={"cpu": "1"}, actuated={"cpu": "1"})
    )
    assert pod.requests.milli_cpu == 2000
    assert pod.spec_requests is None


def test_downsize_not_yet_allocated_counts_what_the_node_holds() -> None:
    """Spec lowered to 1 cpu; the node still holds 2: 2 counts on the node, while the Fit
    filter of the pod itself would read its spec."""
    obj = status(bound(cpu="1").obj(), "pause", allocated={"cpu": "2"}, actuated={"cpu": "2"})
    pod = parse(obj)
    assert pod.requests.milli_cpu == 2000
    assert pod.non_zero_requests.milli_cpu == 2000
    assert pod.spec_requests is not None
    assert pod.spec_requests.milli_cpu == 1000
    assert pod.fit_requests.milli_cpu == 1000
    assert pod.fit_score_requests.milli_cpu == 1000


def test_allocated_but_not_yet_actuated_counts_the_actuated() -> None:
    """Allocated down to 1 cpu, the cgroups still at 2 (`resources.requests`): 2 counts."""
    obj = status(bound(cpu="1").obj(), "pause", allocated={"cpu": "1"}, actuated={"cpu": "2"})
    assert parse(obj).requests.milli_cpu == 2000


def test_actuated_falls_back_to_allocated() -> None:
    obj = status(bound(memory="1Gi").obj(), "pause", allocated={"memory": "3Gi"})
    pod = parse(obj)
    assert pod.requests.memory == 3 * GI
    assert pod.non_zero_requests.milli_cpu == DEFAULT_CPU  # cpu still missing: the default


def test_per_resource_maximum() -> None:
    """cpu from the spec, memory from the status: the maximum is taken per resource."""
    obj = status(
        bound(cpu="2", memory="1Gi").obj(),
        "pause",
        allocated={"cpu": "1", "memory": "2Gi"},
        actuated={"cpu": "1", "memory": "2Gi"},
    )
    pod = parse(obj)
    assert (pod.requests.milli_cpu, pod.requests.memory) == (2000, 2 * GI)


def test_deferred_counts_like_in_progress() -> None:
    """A deferred resize (no room on the node yet) keeps the larger of spec and status:
    only the alpha InPlacePodVerticalScalingSchedulerPreemption treats it apart."""
    obj = status(bound(cpu="3").obj(), "pause", allocated={"cpu": "1"}, actuated={"cpu": "1"})
    pod = parse(resize_pending(obj, "Deferred"))
    assert pod.requests.milli_cpu == 3000


# -- infeasible ------------------------------------------------------------------------------


def test_infeasible_counts_what_the_node_holds_not_the_spec() -> None:
    obj = status(bound(cpu="3").obj(), "pause", allocated={"cpu": "1"}, actuated={"cpu": "1"})
    pod = parse(resize_pending(obj, "Infeasible"))
    assert pod.requests.milli_cpu == 1000
    assert pod.spec_requests is not None
    assert pod.spec_requests.milli_cpu == 3000


def test_infeasible_without_statuses_counts_nothing_but_the_defaults() -> None:
    """`containerAllocatedRequests` / `containerActuatedRequests` return nil for a container
    without status when the resize is infeasible: it requests nothing, and the non-zero
    defaults fill its cpu and memory."""
    obj = bound(cpu="2", memory="1Gi").obj()
    obj["status"]["phase"] = "Running"
    pod = parse(resize_pending(obj, "Infeasible"))
    assert (pod.requests.milli_cpu, pod.requests.memory) == (0, 0)
    assert (pod.non_zero_requests.milli_cpu, pod.non_zero_requests.memory) == (
        DEFAULT_CPU,
        DEFAULT_MEMORY,
    )
    assert pod.fit_requests.milli_cpu == 2000


def test_infeasible_still_takes_the_larger_of_actuated_and_allocated() -> None:
    obj = status(bound(cpu="4").obj(), "pause", allocated={"cpu": "1"}, actuated={"cpu": "2"})
    assert parse(resize_pending(obj, "Infeasible")).requests.milli_cpu == 2000


# -- init containers and sidecars ------------------------------------------------------------


def test_resized_sidecar_counts_in_the_sum_and_in_the_init_floor() -> None:
    """Containers: app 1 cpu; init: sidecar (spec 1, allocated 2), then setup 2 cpu.
    Spec: max(1 + 1, 2 + 1) = 3. Allocated and actuated: max(1 + 2, 2 + 2) = 4."""
    obj = (
        bound(cpu="1")
        .init_container("side", requests={"cpu": "1"}, sidecar=True)
        .init_container("setup", requests={"cpu": "2"})
        .obj()
    )
    assert parse(obj).requests.milli_cpu == 3000
    status(obj, "side", allocated={"cpu": "2"}, init=True)
    pod = parse(obj)
    assert pod.requests.milli_cpu == 4000
    assert pod.fit_requests.milli_cpu == 3000


def test_sidecar_upsize_in_progress_counts_the_spec() -> None:
    obj = bound(cpu="1").init_container("side", requests={"cpu": "3"}, sidecar=True).obj()
    status(obj, "side", allocated={"cpu": "1"}, actuated={"cpu": "1"}, init=True)
    status(obj, "pause", allocated={"cpu": "1"}, actuated={"cpu": "1"})
    assert parse(obj).requests.milli_cpu == 4000


def test_container_statuses_are_searched_before_init_container_statuses() -> None:
    """Upstream `findContainerStatus`: a name is looked up in containerStatuses first."""
    obj = bound(cpu="1").obj()
    status(obj, "pause", allocated={"cpu": "5"}, init=True)
    status(obj, "pause", allocated={"cpu": "2"})
    assert parse(obj).requests.milli_cpu == 2000


def test_empty_status_lists_are_nil() -> None:
    """kube-scheduler reads pods as protobuf: an empty list arrives as nil, so an empty
    `resources.requests` falls back to `allocatedResources`."""
    obj = status(bound(cpu="1").obj(), "pause", allocated={"cpu": "2"}, actuated={})
    assert parse(resize_pending(obj, "Infeasible")).requests.milli_cpu == 2000


# -- pod-level resources -----------------------------------------------------------------------


def test_pod_level_resize_in_progress() -> None:
    obj = bound(cpu="500m").pod_req(cpu="1", memory="1Gi").obj()
    pod_status(obj, allocated={"cpu": "2", "memory": "1Gi"}, actuated={"cpu": "2", "memory": "1Gi"})
    pod = parse(obj)
    assert (pod.requests.milli_cpu, pod.requests.memory) == (2000, GI)
    assert pod.fit_requests.milli_cpu == 1000
    assert pod.fit_score_requests.milli_cpu == 500  # the spec's containers


def test_pod_level_infeasible_drops_the_spec() -> None:
    obj = bound(cpu="500m").pod_req(cpu="4", memory="1Gi").obj()
    pod_status(obj, allocated={"cpu": "1", "memory": "1Gi"}, actuated={"cpu": "1", "memory": "1Gi"})
    pod = parse(resize_pending(obj, "Infeasible"))
    assert pod.requests.milli_cpu == 1000


def test_pod_level_status_replaces_the_container_statuses() -> None:
    """With `status.allocatedResources` and `status.resources.requests` both set, they are
    the allocated and actuated aggregates (the kubelet's, overhead included), and the
    overhead is added again, as upstream does."""
    obj = bound(cpu="1").overhead(cpu="100m").obj()
    status(obj, "pause", allocated={"cpu": "5"}, actuated={"cpu": "5"})
    pod_status(obj, allocated={"cpu": "1100m"}, actuated={"cpu": "2"})
    assert parse(obj).requests.milli_cpu == 2100


def test_pod_level_non_zero_defaults_only_what_the_pod_leaves_out() -> None:
    """With pod-level requests, the defaults fill cpu or memory only when neither the pod
    level nor any container names it (`getNonMissingContainerRequests`)."""
    named = make_pod().pod_req(cpu="1").req(memory="1Gi").container("b")
    pod = parse(named.obj())
    assert pod.non_zero_requests.memory == GI  # container b gets no default
    nothing = parse(make_pod().pod_req(cpu="1").container("b").obj())
    assert nothing.non_zero_requests.memory == 2 * DEFAULT_MEMORY  # both containers do
    assert nothing.non_zero_requests.milli_cpu == 1000


def test_pod_level_hugepages_alone_leaves_the_fit_score_to_the_containers() -> None:
    obj = make_pod().pod_req(**{"hugepages-2Mi": "4Mi"}).req(cpu="1").obj()
    pod = parse(obj)
    assert pod.requests.scalar == {"hugepages-2Mi": 4 * MI}
    assert pod.fit_score_requests.scalar == {}
    assert pod.fit_score_requests.milli_cpu == 1000


def test_the_copy_for_a_node_keeps_the_spec_requests() -> None:
    obj = status(bound(cpu="1").obj(), "pause", allocated={"cpu": "2"})
    pod = parse(obj)
    assert pod.on_node("n2").spec_requests == pod.spec_requests
