from __future__ import annotations

import pytest

from kubesched.framework import Code, CycleState, NodeInfo
from kubesched.plugins import NodePorts
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin

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
