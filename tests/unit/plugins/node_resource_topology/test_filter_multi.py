"""Filter on pods of several containers and init containers, as scheduler-plugins' own
`TestNodeResourceTopologyMultiContainerPodScope` and `...ContainerScope` (same host, same
pods, same verdicts)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import CycleState
from tests.unit.plugins.node_resource_topology.nrt import (
    node_for,
    nrt,
    plugin_over,
    pod,
    zone_named,
)

NIC, HP = "vendor/nic1", "hugepages-2Mi"


def _host(policy: str) -> dict[str, Any]:
    """host0: node-0 with 30 cpus, 60Gi, 384Mi of 2Mi pages, 16 nics available; node-1 with
    32, 64Gi, 512Mi, 32."""
    return nrt(
        "host0",
        [
            zone_named(0, {"cpu": "30", "memory": "60Gi", HP: "384Mi", NIC: "16"}),
            zone_named(1, {"cpu": "32", "memory": "64Gi", HP: "512Mi", NIC: "32"}),
        ],
        policy=policy,
    )


def _verdict(policy: str, containers: list[dict[str, str]], init: list[dict[str, str]]) -> str:
    obj = _host(policy)
    status = plugin_over([obj]).filter(CycleState(), pod(*containers, init=init), node_for(obj))
    return "" if status is None else status.message


POD_SCOPE = [
    (
        "fits one zone only",
        [("2", "2Gi", "", ""), ("4", "8Gi", "", ""), ("26", "32Gi", "512Mi", "26")],
        "",
    ),
    (
        "cpus",
        [("2", "2Gi", "", ""), ("8", "8Gi", "", ""), ("26", "26Gi", "52Mi", "26")],
        "cannot align pod",
    ),
    (
        "memory",
        [("2", "4Gi", "", ""), ("4", "16Gi", "", ""), ("26", "52Gi", "52Mi", "26")],
        "cannot align pod",
    ),
    (
        "hugepages",
        [("2", "2Gi", "", ""), ("4", "8Gi", "", ""), ("26", "32Gi", "3328Mi", "26")],
        "cannot align pod",
    ),
    (
        "devices",
        [("2", "2Gi", "", ""), ("4", "8Gi", "", ""), ("26", "26Gi", "52Mi", "52")],
        "cannot align pod",
    ),
]


def _containers(spec: list[tuple[str, str, str, str]]) -> list[dict[str, str]]:
    out = []
    for cpu, memory, hugepages, nics in spec:
        resources = {"cpu": cpu, "memory": memory}
        resources.update({HP: hugepages} if hugepages else {})
        resources.update({NIC: nics} if nics else {})
        out.append(resources)
    return out


@pytest.mark.parametrize(
    ("spec", "expected"), [c[1:] for c in POD_SCOPE], ids=[c[0] for c in POD_SCOPE]
)
def test_pod_scope(spec: list[tuple[str, str, str, str]], expected: str) -> None:
    assert _verdict("SingleNUMANodePodLevel", _containers(spec), []) == expected


def _cm(*pairs: tuple[str, str], **extra: str) -> list[dict[str, str]]:
    return [{"cpu": cpu, "memory": memory, **extra} for cpu, memory in pairs]


CONTAINER_SCOPE = [
    ("[1] one container fits", [], _cm(("2", "4G")), ""),
    ("[2] cpu over", [], _cm(("40", "4G")), "cannot align container"),
    ("[2] memory over", [], _cm(("2", "100G")), "cannot align container"),
    ("[2] both over", [], _cm(("40", "100G")), "cannot align container"),
    ("[4] spread across zones", [], _cm(("20", "40G"), ("20", "40G")), ""),
    (
        "[4] devices and hugepages spread",
        [],
        [
            {"cpu": "2", "memory": "6G", HP: "500Mi", NIC: "16"},
            {"cpu": "2", "memory": "6G", HP: "50Mi", NIC: "8"},
        ],
        "",
    ),
    (
        "[7] init cpu over",
        _cm(("40", "40G")),
        _cm(("1", "4G"), ("1", "4G")),
        "cannot align init container",
    ),
    (
        "[7] init memory over",
        _cm(("4", "70G")),
        _cm(("1", "4G"), ("1", "4G")),
        "cannot align init container",
    ),
    ("[11] init fits, spread", _cm(("4", "10G")), _cm(("20", "40G"), ("20", "40G")), ""),
    (
        "[17] inits fit, spread",
        _cm(*[("4", "10G")] * 3),
        _cm(("20", "40G"), ("20", "40G"), ("6", "10G")),
        "",
    ),
    (
        "[24] third container over",
        _cm(("30", "10G"), ("30", "10G")),
        _cm(("20", "40G"), ("20", "40G"), ("20", "6G")),
        "cannot align container",
    ),
    (
        "[27] container over",
        _cm(("30", "10G"), ("30", "10G")),
        _cm(("35", "40G")),
        "cannot align container",
    ),
    ("[28] fit", _cm(("30", "10G"), ("30", "10G")), _cm(("20", "40G"), ("20", "40G")), ""),
    (
        "[29] inits over together, not alone (cpu)",
        _cm(*[("30", "10G")] * 3),
        _cm(("20", "40G"), ("20", "40G"), ("2", "6G")),
        "",
    ),
    (
        "[29] inits over together, not alone (memory)",
        _cm(*[("3", "50G")] * 3),
        _cm(("20", "40G"), ("20", "40G"), ("2", "6G")),
        "",
    ),
    (
        "[32] first init over (cpu)",
        _cm(("40", "50G"), ("3", "50G"), ("3", "50G")),
        _cm(("20", "40G"), ("2", "6G")),
        "cannot align init container",
    ),
    (
        "[32] second init over (cpu)",
        _cm(("20", "50G"), ("40", "50G"), ("3", "50G")),
        _cm(("20", "40G"), ("2", "6G")),
        "cannot align init container",
    ),
]


@pytest.mark.parametrize(
    ("init", "containers", "expected"),
    [c[1:] for c in CONTAINER_SCOPE],
    ids=[c[0] for c in CONTAINER_SCOPE],
)
def test_container_scope(
    init: list[dict[str, str]], containers: list[dict[str, str]], expected: str
) -> None:
    assert _verdict("SingleNUMANodeContainerLevel", containers, init) == expected
