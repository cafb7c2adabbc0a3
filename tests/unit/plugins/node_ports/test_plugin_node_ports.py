from __future__ import annotations

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    NodeInfo,
    QueueingHint,
)
from kubesched.plugins import NodePorts
from kubesched.testing import FakeHandle, PodBuilder, make_node, make_pod, run_filter_plugin

Port = tuple[int, str, str]  # port, protocol, host IP ("" = all addresses)


def node_using(*ports: Port) -> NodeInfo:
    info = NodeInfo(node=make_node().name("n1").model())
    for port, protocol, ip in ports:
        info.add_pod(make_pod().node("n1").host_port(port, protocol=protocol, host_ip=ip).model())
    return info


@pytest.mark.parametrize(
    ("used", "wanted", "fits"),
    [
        pytest.param([], [(8080, "TCP", "")], True, id="free-node"),
        pytest.param([(8080, "TCP", "")], [], True, id="pod-without-ports"),
        pytest.param([(8080, "TCP", "")], [(8080, "TCP", "")], False, id="same-port"),
        pytest.param([(8080, "TCP", "")], [(8080, "UDP", "")], True, id="other-protocol"),
        pytest.param([(8080, "TCP", "")], [(8081, "TCP", "")], True, id="other-port"),
        pytest.param([(8080, "TCP", "10.0.0.1")], [(8080, "TCP", "10.0.0.2")], True, id="other-ip"),
        pytest.param([(8080, "TCP", "10.0.0.1")], [(8080, "TCP", "10.0.0.1")], False, id="same-ip"),
        pytest.param([(8080, "TCP", "10.0.0.1")], [(8080, "TCP", "")], False, id="wildcard-wanted"),
        pytest.param(
            [(8080, "TCP", "0.0.0.0")], [(8080, "TCP", "10.0.0.1")], False, id="wildcard-used"
        ),
        pytest.param(
            [(9090, "SCTP", "")],
            [(8080, "TCP", ""), (9090, "SCTP", "127.0.0.1")],
            False,
            id="second-port-conflicts",
        ),
    ],
)
def test_filter(used: list[Port], wanted: list[Port], fits: bool) -> None:
    builder = make_pod()
    for port, protocol, ip in wanted:
        builder.host_port(port, protocol=protocol, host_ip=ip)
    status = run_filter_plugin(
        NodePorts(args={}, handle=FakeHandle()), builder.model(), [node_using(*used)]
    )["n1"]
    if fits:
        assert status.is_success()
    else:
        assert (status.code, status.message) == (
            Code.UNSCHEDULABLE,
            "node(s) didn't have free ports for the requested pod ports",
        )


def test_pre_filter_skips_pods_without_host_ports() -> None:
    status = NodePorts(args={}, handle=FakeHandle()).pre_filter(
        CycleState(), make_pod().model(), []
    )
    assert status is not None
    assert status.is_skip()


# ---- upstream's TestEventsToRegister / Test_isSchedulableAfterAssignedPodDeleted -----------


def test_events_to_register_is_upstreams() -> None:
    plugin = NodePorts(args={}, handle=FakeHandle())
    deleted, node_added = plugin.events_to_register()
    assert isinstance(deleted, ClusterEventWithHint)
    assert deleted.event == ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
    assert deleted.hint == plugin.is_schedulable_after_assigned_pod_deleted
    assert node_added == ClusterEvent(EventResource.NODE, ActionType.ADD)


def test_assigned_pod_deleted_wrong_old_object() -> None:
    plugin = NodePorts(args={}, handle=FakeHandle())
    with pytest.raises(TypeError):
        plugin.is_schedulable_after_assigned_pod_deleted(
            make_pod().host_port(8080).model(), "not-a-pod", None
        )


@pytest.mark.parametrize(
    ("deleted", "expected"),
    [
        pytest.param(make_pod(), QueueingHint.QUEUE_SKIP, id="skip-queue-on-unscheduled"),
        pytest.param(
            make_pod().node("fake-node"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-non-hostport"
        ),
        pytest.param(
            make_pod().node("fake-node").host_port(8081),
            QueueingHint.QUEUE_SKIP,
            id="skip-queue-on-unrelated-hostport",
        ),
        pytest.param(
            make_pod().node("fake-node").host_port(8080),
            QueueingHint.QUEUE,
            id="queue-on-released-hostport",
        ),
        # Beyond upstream's table: a nominated pod's ports, and the host IPs' rules.
        pytest.param(
            make_pod().nominated_node("fake-node").host_port(8080),
            QueueingHint.QUEUE,
            id="queue-on-nominated-pod-released-hostport",
        ),
        pytest.param(
            make_pod().node("fake-node").host_port(8080, host_ip="10.0.0.1"),
            QueueingHint.QUEUE,
            id="queue-on-released-hostport-on-one-ip",
        ),
        pytest.param(
            make_pod().node("fake-node").host_port(8080, protocol="UDP"),
            QueueingHint.QUEUE_SKIP,
            id="skip-queue-on-released-port-of-another-protocol",
        ),
    ],
)
def test_assigned_pod_deleted(deleted: PodBuilder, expected: QueueingHint) -> None:
    plugin = NodePorts(args={}, handle=FakeHandle())
    pod = make_pod().host_port(8080).model()
    assert plugin.is_schedulable_after_assigned_pod_deleted(pod, deleted.model(), None) is expected


def test_assigned_pod_deleted_ip_specific_ports() -> None:
    """Ports on two different host IPs do not conflict: the deletion frees nothing."""
    plugin = NodePorts(args={}, handle=FakeHandle())
    pod = make_pod().host_port(8080, host_ip="10.0.0.2").model()
    deleted = make_pod().node("n1").host_port(8080, host_ip="10.0.0.1").model()
    hint = plugin.is_schedulable_after_assigned_pod_deleted(pod, deleted, None)
    assert hint is QueueingHint.QUEUE_SKIP
