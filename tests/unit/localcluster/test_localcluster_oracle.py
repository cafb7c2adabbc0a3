"""The e2e oracle's arithmetic (it must be right for every e2e test that relies on it)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import oracle


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("100m", "0.1"),
        ("1Gi", str(2**30)),
        ("2e3", "2000"),
        ("1.5", "1.5"),
        ("64Mi", str(64 * 2**20)),
        ("1k", "1000"),
    ],
)
def test_quantities(text: str, value: str) -> None:
    assert oracle.quantity(text) == Decimal(value)


def test_pod_requests_follow_init_and_sidecar_rules() -> None:
    pod = (
        make_pod()
        .req(cpu="1")
        .init_container("sidecar", requests={"cpu": "500m"}, sidecar=True)
        .init_container("setup", requests={"cpu": "2"})
        .overhead(cpu="100m")
        .obj()
    )

    # max(1 + 0.5 sidecar, 2 init + 0.5 sidecar started before it) + 0.1 overhead
    assert oracle.pod_requests(pod)["cpu"] == Decimal("2.6")
    assert oracle.pod_requests(pod)["pods"] == 1


def test_overcommit_is_reported_and_terminal_pods_are_ignored() -> None:
    node = make_node().name("n").capacity(cpu="2", pods="2").obj()
    fits = make_pod().name("a").node("n").req(cpu="1").obj()
    done = make_pod().name("b").node("n").req(cpu="4").phase("Succeeded").obj()
    too_much = make_pod().name("c").node("n").req(cpu="1500m").obj()

    assert oracle.overcommitted_nodes([node], [fits, done]) == []
    problems = oracle.overcommitted_nodes([node], [fits, done, too_much])
    assert len(problems) == 1
    assert problems[0].startswith("node n: cpu 2.5 > allocatable 2")


def test_extended_resources_missing_on_the_node_have_no_room() -> None:
    node = make_node().name("n").obj()
    pod = make_pod().name("g").node("n").req_named({"example.com/gpu": "1"}).obj()

    assert "example.com/gpu" in oracle.overcommitted_nodes([node], [pod])[0]


def test_extended_resources_a_device_class_serves_take_no_room() -> None:
    node = make_node().name("n").obj()
    pod = make_pod().name("g").node("n").req_named({"example.com/gpu": "1"}).obj()
    pod["status"]["extendedResourceClaimStatus"] = {
        "resourceClaimName": "g-extended-resources-x7k2p",
        "requestMappings": [
            {"containerName": "c", "resourceName": "example.com/gpu", "requestName": "r0"}
        ],
    }

    assert oracle.overcommitted_nodes([node], [pod]) == []
