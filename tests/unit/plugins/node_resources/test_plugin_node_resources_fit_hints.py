"""NodeResourcesFit's registrations and queueing hints: upstream v1.37.2's `fit_test.go`
tables (TestEventsToRegister, Test_isSchedulableAfter*, TestIsFit,
TestHaveAnyRequestedResourcesIncreased), ported case by case."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
)
from kubesched.model import ApiObject, Node, Pod, Resource
from kubesched.plugins import NodeResourcesFit
from kubesched.plugins.node_resources.fit import (
    any_requested_resource_increased,
    fits_empty_node,
)
from kubesched.testing import FakeHandle, make_pod

QUEUE = QueueingHint.QUEUE
SKIP = QueueingHint.QUEUE_SKIP
EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
EXT_DRA = "extended.resource.dra.io/something"
HUGEPAGES = "hugepages-2Mi"


def plugin() -> NodeResourcesFit:
    return NodeResourcesFit(args={}, handle=FakeHandle())


def pod(
    name: str = "pod1",
    *,
    req: dict[str, str] | None = None,
    pod_req: dict[str, str] | None = None,
    node: str = "",
    nominated: str = "",
    deferred_resize: bool = False,
) -> Pod:
    """`st.MakePod()` with `.Req`, `.PodLevelResourceRequests`, `.Node`,
    `.NominatedNodeName` and the PodResizePending=Deferred condition."""
    builder = make_pod().name(name)
    if req:
        builder.req_named(req)
    if pod_req:
        builder.pod_req(**pod_req)
    if node:
        builder.node(node)
    if nominated:
        builder.nominated_node(nominated)
    obj = builder.obj()
    if deferred_resize:
        obj["status"]["conditions"] = [
            {"type": "PodResizePending", "status": "True", "reason": "Deferred"}
        ]
    return Pod.from_json(obj)


def resource_pod(
    *, milli_cpu: int = 0, memory: int = 0, ephemeral: int = 0, scalar: dict[str, int] | None = None
) -> Pod:
    """Upstream's `newResourcePod(framework.Resource{...})`: one container requesting every
    field (zeros included)."""
    requests = {
        "cpu": f"{milli_cpu}m",
        "memory": str(memory),
        "pods": "0",
        "ephemeral-storage": str(ephemeral),
    }
    requests |= {name: str(quantity) for name, quantity in (scalar or {}).items()}
    return make_pod().req_named(requests).model()


def node(allocatable: dict[str, str]) -> Node:
    """`st.MakeNode().Capacity(...)`: capacity and allocatable, with 32 pods unless given."""
    return Node(name="node", allocatable=Resource.from_list({"pods": "32", **allocatable}))


def device_class(name: str = "", extended_resource_name: str | None = None) -> ApiObject:
    spec: dict[str, Any] = {}
    if extended_resource_name is not None:
        spec["extendedResourceName"] = extended_resource_name
    return ApiObject.from_json({"metadata": {"name": name}, "spec": spec})


# ---- TestEventsToRegister ------------------------------------------------------------------


def test_events_to_register_is_upstreams_with_the_default_gates() -> None:
    """Upstream's list with DRAExtendedResource and InPlacePodVerticalScaling on (both GA in
    v1.37.2) and InPlacePodVerticalScalingSchedulerPreemption off (alpha)."""
    fit = plugin()
    registrations = fit.events_to_register()
    assert [r.event for r in registrations] == [
        ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
        ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
        ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
        ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_DOWN),
        ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_SCALE_DOWN),
    ]
    assert [r.hint for r in registrations] == [
        fit.is_schedulable_after_assigned_pod_delete,
        fit.is_schedulable_after_node_change,
        fit.is_schedulable_after_device_class_event,
        fit.is_schedulable_after_assigned_pod_scale_down,
        fit.is_schedulable_after_target_pod_scale_down,
    ]


# ---- Test_isSchedulableAfterAssignedPodDelete ----------------------------------------------


def test_assigned_pod_delete_wrong_old_object() -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_assigned_pod_delete(pod(), "not-a-pod", None)


@pytest.mark.parametrize(
    ("target", "deleted", "expected"),
    [
        pytest.param(
            pod("pod1", req={"cpu": "1"}),
            pod("pod2", req={"cpu": "1"}, node="fake"),
            QUEUE,
            id="queue-on-other-pod-deleted",
        ),
        pytest.param(pod(), pod("other"), SKIP, id="skip-queue-on-unscheduled-pod-deleted"),
        pytest.param(
            pod("pod1", req={"cpu": "1"}),
            pod("pod2", req={"cpu": "2"}, nominated="fake"),
            QUEUE,
            id="queue-on-nominated-pod-deleted",
        ),
        # Queue with or without InPlacePodVerticalScalingSchedulerPreemption (off here).
        pytest.param(
            pod("pod1", node="node1", req={"cpu": "1"}, deferred_resize=True),
            pod("pod2", node="node1", req={"cpu": "1"}),
            QUEUE,
            id="queue-on-other-pod-deleted-same-node-when-deferred",
        ),
    ],
)
def test_assigned_pod_delete(target: Pod, deleted: Pod, expected: QueueingHint) -> None:
    assert plugin().is_schedulable_after_assigned_pod_delete(target, deleted, None) is expected


# ---- Test_isSchedulableAfterTargetPodScaleDown ---------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        pytest.param(
            pod("pod1", req={"cpu": "1"}), id="queue-on-target-pod-some-resource-scale-down"
        ),
        pytest.param(
            pod("pod1", pod_req={"cpu": "1"}),
            id="queue-on-target-pod-some-pod-level-resource-scale-down",
        ),
    ],
)
def test_target_pod_scale_down(target: Pod) -> None:
    assert plugin().is_schedulable_after_target_pod_scale_down(target, None, None) is QUEUE


# ---- Test_isSchedulableAfterAssignedPodScaleDown -------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param("not-a-pod", None, id="backoff-wrong-old-object"),
        pytest.param(None, "not-a-pod", id="backoff-wrong-new-object"),
    ],
)
def test_assigned_pod_scale_down_wrong_object(old: Any, new: Any) -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_assigned_pod_scale_down(pod(), old, new)


@pytest.mark.parametrize(
    ("target", "old", "new", "expected"),
    [
        pytest.param(
            pod("pod1", req={"cpu": "1"}),
            pod("pod2", req={"cpu": "2"}),
            pod("pod2", req={"cpu": "1"}),
            SKIP,
            id="skip-queue-on-other-unscheduled-pod",
        ),
        pytest.param(
            pod("pod1", req={"cpu": "1"}),
            pod("pod2", req={"memory": "2"}, node="fake"),
            pod("pod2", req={"memory": "1"}, node="fake"),
            SKIP,
            id="skip-queue-on-other-pod-unrelated-resource-scaled-down",
        ),
        pytest.param(
            pod("pod1", pod_req={"cpu": "1"}),
            pod("pod2", pod_req={"memory": "2"}, node="fake"),
            pod("pod2", pod_req={"memory": "1"}, node="fake"),
            SKIP,
            id="skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down",
        ),
        pytest.param(
            pod("pod1", req={"cpu": "1"}),
            pod("pod2", req={"cpu": "2"}, node="fake"),
            pod("pod2", req={"cpu": "1"}, node="fake"),
            QUEUE,
            id="queue-on-other-pod-some-resource-scale-down",
        ),
        pytest.param(
            pod("pod1", pod_req={"cpu": "1"}),
            pod("pod2", pod_req={"cpu": "2"}, node="fake"),
            pod("pod2", pod_req={"cpu": "1"}, node="fake"),
            QUEUE,
            id="queue-on-other-pod-some-pod-level-resource-scale-down",
        ),
        # Queue with or without InPlacePodVerticalScalingSchedulerPreemption (off here).
        pytest.param(
            pod("pod1", node="node1", req={"cpu": "1"}, deferred_resize=True),
            pod("pod2", node="node1", req={"cpu": "2"}),
            pod("pod2", node="node1", req={"cpu": "1"}),
            QUEUE,
            id="queue-on-other-pod-scaled-down-same-node-when-deferred",
        ),
    ],
)
def test_assigned_pod_scale_down(target: Pod, old: Pod, new: Pod, expected: QueueingHint) -> None:
    assert plugin().is_schedulable_after_assigned_pod_scale_down(target, old, new) is expected


# ---- Test_isSchedulableAfterNodeChange -----------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-node", id="backoff-wrong-new-object"),
        pytest.param("not-a-node", node({}), id="backoff-wrong-old-object"),
    ],
)
def test_node_change_wrong_object(old: Any, new: Any) -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_node_change(pod(), old, new)


@pytest.mark.parametrize(
    ("target", "old", "new", "expected"),
    [
        pytest.param(
            resource_pod(memory=2),
            None,
            node({"memory": "1"}),
            SKIP,
            id="skip-queue-on-node-add-without-sufficient-resources",
        ),
        pytest.param(
            resource_pod(scalar={EXT_A: 1}),
            None,
            node({EXT_B: "1"}),
            SKIP,
            id="skip-queue-on-node-add-without-required-resource-type",
        ),
        pytest.param(
            resource_pod(memory=2, scalar={EXT_A: 1}),
            None,
            node({"memory": "4", EXT_A: "2"}),
            QUEUE,
            id="queue-on-node-add-with-sufficient-resources",
        ),
        pytest.param(
            resource_pod(memory=2, scalar={EXT_A: 1}),
            node({"memory": "2", EXT_A: "2"}),
            node({"memory": "2", EXT_A: "1", EXT_B: "2"}),
            SKIP,
            id="skip-queue-on-node-unrelated-changes",
        ),
        pytest.param(
            resource_pod(memory=2, scalar={EXT_A: 1}),
            node({"memory": "2", EXT_A: "1"}),
            node({"memory": "2", EXT_A: "2"}),
            QUEUE,
            id="queue-on-pod-requested-resources-increase",
        ),
        pytest.param(
            resource_pod(memory=2, scalar={EXT_A: 1}),
            node({"memory": "4", EXT_A: "2"}),
            node({"memory": "1", EXT_A: "2"}),
            SKIP,
            id="skip-queue-on-node-changes-from-suitable-to-unsuitable",
        ),
        pytest.param(
            resource_pod(memory=2, scalar={EXT_A: 1}),
            node({"memory": "1", EXT_A: "2"}),
            node({"memory": "4", EXT_A: "2"}),
            QUEUE,
            id="queue-on-node-changes-from-unsuitable-to-suitable",
        ),
    ],
)
def test_node_change(target: Pod, old: Node | None, new: Node, expected: QueueingHint) -> None:
    assert plugin().is_schedulable_after_node_change(target, old, new) is expected


def test_node_change_ignores_the_ignored_resources_as_upstream() -> None:
    """Upstream's `isFit` passes no ignored resources: a node without an ignored extended
    resource the pod requests does not fit it for the hint (though the Filter would pass)."""
    fit = NodeResourcesFit(args={"ignoredResources": [EXT_A]}, handle=FakeHandle())
    target = resource_pod(memory=2, scalar={EXT_A: 1})
    assert fit.is_schedulable_after_node_change(target, None, node({"memory": "4"})) is SKIP


# ---- Test_isSchedulableAfterDeviceClassChange ----------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-class", id="backoff-wrong-new-object"),
        pytest.param("not-a-class", device_class(), id="backoff-wrong-old-object"),
    ],
)
def test_device_class_wrong_object(old: Any, new: Any) -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_device_class_event(pod(), old, new)


IMPLICIT_GPU_CLASS = {"deviceclass.resource.kubernetes.io/gpuclass": 1}


@pytest.mark.parametrize(
    ("target", "old", "new", "expected"),
    [
        pytest.param(
            resource_pod(memory=2),
            device_class(),
            device_class(),
            SKIP,
            id="skip-queue-on-class-nil-extended-resource-name-pointer",
        ),
        pytest.param(
            resource_pod(memory=2),
            device_class("", "example.com/gpu"),
            device_class("", "example.com/gpu"),
            SKIP,
            id="skip-queue-on-class-same-extended-resource-name-pointer",
        ),
        pytest.param(
            resource_pod(memory=2),
            device_class("", "example.com/gpu"),
            device_class("", "example.com/gpu"),
            SKIP,
            id="skip-queue-on-class-same-extended-resource-name",
        ),
        pytest.param(
            resource_pod(scalar=IMPLICIT_GPU_CLASS),
            None,
            device_class("gpuclass", "example.com/gpu"),
            QUEUE,
            id="queue-on-class-add-with-implicit-extended-resource-name",
        ),
        pytest.param(
            resource_pod(scalar=IMPLICIT_GPU_CLASS),
            None,
            device_class("myclass", "example.com/gpu"),
            SKIP,
            id="skip-on-class-add-with-implicit-extended-resource-name-not-matching",
        ),
        pytest.param(
            resource_pod(scalar={"example.com/othergpu": 1}),
            None,
            device_class("myclass", "example.com/gpu"),
            SKIP,
            id="skip-on-class-add-with-explicit-extended-resource-name-not-matching",
        ),
        pytest.param(
            resource_pod(scalar=IMPLICIT_GPU_CLASS),
            device_class("gpuclass"),
            device_class("gpuclass", "example.com/gpu"),
            SKIP,
            id="skip-on-class-update-with-implicit-extended-resource-name",
        ),
        pytest.param(
            resource_pod(scalar={"example.com/gpu": 1}),
            None,
            device_class("", "example.com/gpu"),
            QUEUE,
            id="queue-on-class-add-with-extended-resource-name",
        ),
        pytest.param(
            resource_pod(scalar={"example.com/gpu": 1}),
            device_class("", "example.com/gpu1"),
            device_class("", "example.com/gpu"),
            QUEUE,
            id="queue-on-class-update-with-extended-resource-name",
        ),
    ],
)
def test_device_class_event(
    target: Pod, old: ApiObject | None, new: ApiObject, expected: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_device_class_event(target, old, new) is expected


# ---- TestIsFit -----------------------------------------------------------------------------


def test_is_fit_nil_node() -> None:
    assert plugin().is_schedulable_after_node_change(pod(), None, None) is SKIP


@pytest.mark.parametrize(
    ("target", "allocatable", "expected"),
    [
        pytest.param(pod(req={"cpu": "2"}), {"cpu": "1"}, False, id="insufficient resource"),
        pytest.param(pod(req={"cpu": "1"}), {"cpu": "2"}, True, id="sufficient resource"),
        pytest.param(
            pod(pod_req={"cpu": "2"}), {"cpu": "1"}, False, id="insufficient pod-level resource"
        ),
        pytest.param(
            pod(pod_req={"cpu": "2"}), {"cpu": "2"}, True, id="sufficient pod-level resource"
        ),
        pytest.param(
            pod(pod_req={HUGEPAGES: "2Mi"}),
            {HUGEPAGES: "2Mi"},
            True,
            id="sufficient pod-level resource hugepages",
        ),
        pytest.param(
            pod(pod_req={HUGEPAGES: "4Mi"}),
            {HUGEPAGES: "2Mi"},
            False,
            id="insufficient pod-level resource hugepages",
        ),
    ],
)
def test_is_fit(target: Pod, allocatable: dict[str, str], expected: bool) -> None:
    assert fits_empty_node(target.requests, node(allocatable).allocatable) is expected


# ---- TestHaveAnyRequestedResourcesIncreased ------------------------------------------------

_SMALL = {"pods": "1", "cpu": "1", "memory": "1", "ephemeral-storage": "1", EXT_A: "1"}


@pytest.mark.parametrize(
    ("target", "original", "modified", "expected"),
    [
        pytest.param(
            resource_pod(),
            _SMALL,
            {"pods": "1", "cpu": "2", "memory": "2", "ephemeral-storage": "2", EXT_A: "2"},
            False,
            id="no-requested-resources",
        ),
        pytest.param(
            resource_pod(),
            _SMALL,
            {**_SMALL, "pods": "2"},
            True,
            id="no-requested-resources-pods-increased",
        ),
        # With a DeviceClass for EXT_DRA; the node has EXT_DRA itself, so DRA plays no part.
        pytest.param(
            resource_pod(milli_cpu=2, memory=2, ephemeral=2, scalar={EXT_DRA: 2}),
            {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_DRA: "4"},
            {"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_DRA: "1"},
            False,
            id="requested-resources-dra-in-node",
        ),
        pytest.param(
            resource_pod(milli_cpu=2, memory=2, ephemeral=2, scalar={EXT_A: 2}),
            {"cpu": "1", "memory": "2", "ephemeral-storage": "3"},
            {"cpu": "1", "memory": "2", "ephemeral-storage": "1"},
            False,
            id="scalar-resources-not-in-node",
        ),
        pytest.param(
            resource_pod(milli_cpu=2, memory=2, ephemeral=2, scalar={EXT_A: 2}),
            {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
            {"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_A: "1"},
            False,
            id="requested-resources-decreased",
        ),
        pytest.param(
            resource_pod(milli_cpu=2, memory=2, ephemeral=2, scalar={EXT_A: 2}),
            {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
            {"cpu": "3", "memory": "4", "ephemeral-storage": "3", EXT_A: "4"},
            True,
            id="requested-resources-increased",
        ),
        pytest.param(
            resource_pod(milli_cpu=2, memory=2),
            {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
            {"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_A: "1"},
            False,
            id="non-requested-resources-decreased",
        ),
        pytest.param(
            resource_pod(milli_cpu=2, memory=2),
            {"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"},
            {"cpu": "1", "memory": "2", "ephemeral-storage": "5", EXT_A: "6"},
            False,
            id="non-requested-resources-increased",
        ),
    ],
)
def test_have_any_requested_resources_increased(
    target: Pod, original: dict[str, str], modified: dict[str, str], expected: bool
) -> None:
    increased = any_requested_resource_increased(
        target.requests, node(original).allocatable, node(modified).allocatable
    )
    assert increased is expected
