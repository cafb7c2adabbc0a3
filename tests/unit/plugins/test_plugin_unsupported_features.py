from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import Code, NodeInfo
from kubesched.model import Pod
from kubesched.plugins import UnsupportedFeatures
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin

PLUGIN = UnsupportedFeatures(args={}, handle=FakeHandle())
TERM = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {
                "affinity": {
                    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}
                }
            },
            "podAntiAffinity",
        ),
        (
            {"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}},
            None,
        ),
        (
            {
                "affinity": {
                    "podAffinity": {
                        "preferredDuringSchedulingIgnoredDuringExecution": [
                            {"weight": 1, "podAffinityTerm": TERM}
                        ]
                    }
                }
            },
            "podAffinity",
        ),
        (
            {
                "affinity": {
                    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}
                }
            },
            "podAffinity",
        ),
        (
            {
                "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone"}],
                "affinity": {
                    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}
                },
            },
            "topologySpreadConstraints and podAntiAffinity",
        ),
        ({}, None),
    ],
)
def test_pods_using_unsupported_features_are_rejected(
    spec: dict[str, Any], message: str | None
) -> None:
    obj = make_pod().obj()
    obj["spec"].update(spec)
    statuses = run_filter_plugin(
        PLUGIN, Pod.from_json(obj), [NodeInfo(node=make_node().name("n1").model())]
    )
    if message is None:
        assert statuses["n1"].is_success()
    else:
        assert (statuses["n1"].code, statuses["n1"].message) == (
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            f"pod uses {message}, which kubesched does not support yet",
        )


def cluster() -> list[NodeInfo]:
    nodes = {
        name: NodeInfo(node=make_node().name(name).label("zone", zone).model())
        for name, zone in (("a1", "a"), ("a2", "a"), ("b1", "b"))
    }
    guard = make_pod().name("guard").namespace("shop").node("a1")
    guard.affinity({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}})
    nodes["a1"].add_pod(guard.model())
    return list(nodes.values())


@pytest.mark.parametrize(
    ("namespace", "labels", "fits"),
    [
        ("shop", {"app": "web"}, {"b1"}),  # zone a is off limits
        ("shop", {"app": "db"}, {"a1", "a2", "b1"}),
        ("other", {"app": "web"}, {"a1", "a2", "b1"}),  # the term covers the guard's namespace only
    ],
)
def test_existing_pods_required_anti_affinity(
    namespace: str, labels: dict[str, str], fits: set[str]
) -> None:
    builder = make_pod().namespace(namespace)
    for key, value in labels.items():
        builder.label(key, value)
    statuses = run_filter_plugin(PLUGIN, builder.model(), cluster())
    assert {name for name, status in statuses.items() if status.is_success()} == fits
    for name, status in statuses.items():
        if name not in fits:
            assert (status.code, status.message) == (
                Code.UNSCHEDULABLE,
                "node(s) didn't satisfy existing pods anti-affinity rules",
            )
