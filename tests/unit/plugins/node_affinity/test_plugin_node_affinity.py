from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import Code, CycleState, NodeInfo
from kubesched.plugins import NodeAffinity
from kubesched.plugins.helper.args import ArgsError
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin

NODES = [
    NodeInfo(node=make_node().name("n1").label("zone", "a").label("cores", "8").model()),
    NodeInfo(
        node=make_node().name("n2").label("zone", "b").label("cores", "32").label("gpu", "").model()
    ),
    NodeInfo(node=make_node().name("n3").model()),
]


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
        }
    }


def fitting(pod: Any, plugin: NodeAffinity | None = None) -> set[str]:
    plugin = plugin or NodeAffinity(args={}, handle=FakeHandle())
    return {
        name
        for name, status in run_filter_plugin(plugin, pod, NODES).items()
        if status.is_success()
    }


@pytest.mark.parametrize(
    ("affinity", "expected"),
    [
        pytest.param(
            required({"matchExpressions": [expr("zone", "In", "a", "c")]}), {"n1"}, id="in"
        ),
        pytest.param(
            required({"matchExpressions": [expr("zone", "NotIn", "a")]}), {"n2", "n3"}, id="not-in"
        ),
        pytest.param(required({"matchExpressions": [expr("gpu", "Exists")]}), {"n2"}, id="exists"),
        pytest.param(
            required({"matchExpressions": [expr("gpu", "DoesNotExist")]}),
            {"n1", "n3"},
            id="does-not-exist",
        ),
        pytest.param(required({"matchExpressions": [expr("cores", "Gt", "16")]}), {"n2"}, id="gt"),
        pytest.param(required({"matchExpressions": [expr("cores", "Lt", "16")]}), {"n1"}, id="lt"),
        pytest.param(
            required({"matchExpressions": [expr("cores", "Gt", "x")]}), set(), id="gt-not-a-number"
        ),
        pytest.param(
            required({"matchExpressions": [expr("zone", "In")]}), set(), id="in-without-values"
        ),
        pytest.param(
            required({"matchExpressions": [expr("zone", "Near", "a")]}), set(), id="bad-operator"
        ),
        pytest.param(
            required({"matchExpressions": [expr("zone", "In", "b"), expr("gpu", "DoesNotExist")]}),
            set(),
            id="expressions-anded",
        ),
        pytest.param(
            required(
                {"matchExpressions": [expr("zone", "In", "a")]},
                {"matchExpressions": [expr("gpu", "Exists")]},
            ),
            {"n1", "n2"},
            id="terms-ored",
        ),
        pytest.param(required({}), set(), id="empty-term-matches-nothing"),
        pytest.param(required(), set(), id="no-terms-matches-nothing"),
        pytest.param(
            required({"matchFields": [expr("metadata.name", "NotIn", "n1")]}),
            {"n2", "n3"},
            id="field-not-in",
        ),
    ],
)
def test_required_affinity(affinity: dict[str, Any], expected: set[str]) -> None:
    assert fitting(make_pod().affinity(affinity).model()) == expected


def test_node_selector_and_affinity_both_apply() -> None:
    assert fitting(make_pod().node_selector(zone="b").model()) == {"n2"}
    pod = (
        make_pod()
        .node_selector(zone="a")
        .affinity(required({"matchExpressions": [expr("gpu", "Exists")]}))
    )
    assert fitting(pod.model()) == set()
    assert fitting(make_pod().model()) == {"n1", "n2", "n3"}


def test_rejection_message() -> None:
    plugin = NodeAffinity(args={}, handle=FakeHandle())
    status = run_filter_plugin(plugin, make_pod().node_selector(zone="z").model(), NODES)["n1"]
    assert (status.code, status.message) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "node(s) didn't match Pod's node affinity/selector",
    )


def test_pre_filter_narrows_to_named_nodes_and_detects_conflicts() -> None:
    plugin = NodeAffinity(args={}, handle=FakeHandle())
    by_name = (
        make_pod().affinity(required({"matchFields": [expr("metadata.name", "In", "n2")]})).model()
    )
    assert plugin.pre_filter(CycleState(), by_name, NODES) == {"n2"}
    mixed = required(
        {"matchFields": [expr("metadata.name", "In", "n2")]},
        {"matchExpressions": [expr("zone", "In", "a")]},
    )
    assert plugin.pre_filter(CycleState(), make_pod().affinity(mixed).model(), NODES) is None
    conflict = required(
        {"matchFields": [expr("metadata.name", "In", "n1"), expr("metadata.name", "In", "n2")]},
    )
    status = plugin.pre_filter(CycleState(), make_pod().affinity(conflict).model(), NODES)
    assert status is not None
    assert not isinstance(status, frozenset)
    assert (status.code, status.message) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "pod affinity terms conflict",
    )


def test_added_affinity_is_enforced_with_its_own_message() -> None:
    args = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": required(
                {"matchExpressions": [expr("zone", "Exists")]}
            )["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        }
    }
    plugin = NodeAffinity(args=args, handle=FakeHandle())
    statuses = run_filter_plugin(plugin, make_pod().model(), NODES)
    assert statuses["n3"].message == "node(s) didn't match scheduler-enforced node affinity"
    assert fitting(make_pod().model(), plugin) == {"n1", "n2"}


def test_preferred_terms_score_normalized() -> None:
    pod = (
        make_pod()
        .preferred_node_affinity(2, "zone", "In", ["a", "b"])
        .preferred_node_affinity(3, "gpu", "Exists", [])
        .model()
    )
    plugin = NodeAffinity(args={}, handle=FakeHandle())
    assert run_score_plugin(plugin, pod, NODES) == {"n1": 40, "n2": 100, "n3": 0}
    assert run_score_plugin(plugin, make_pod().model(), NODES) == {}  # PreScore skips


def test_added_preferred_terms_count_for_every_pod() -> None:
    args = {
        "addedAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "preference": {"matchExpressions": [expr("zone", "In", "b")]}}
            ]
        }
    }
    plugin = NodeAffinity(args=args, handle=FakeHandle())
    assert run_score_plugin(plugin, make_pod().model(), NODES) == {"n1": 0, "n2": 100, "n3": 0}


@pytest.mark.parametrize(
    "args",
    [
        {"addedAffinity": {"bogus": {}}},
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [expr("a", "Gt", "x")]}]
                }
            }
        },
        {"other": 1},
    ],
)
def test_invalid_args(args: dict[str, Any]) -> None:
    with pytest.raises(ArgsError):
        NodeAffinity(args=args, handle=FakeHandle())
