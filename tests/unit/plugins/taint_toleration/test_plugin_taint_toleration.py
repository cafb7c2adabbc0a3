from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import Code, NodeInfo
from kubesched.plugins import NodeUnschedulable, TaintToleration
from kubesched.testing import (
    FakeHandle,
    PodBuilder,
    make_node,
    make_pod,
    run_filter_plugin,
    run_score_plugin,
)


def node_with(*taints: tuple[str, str, str], name: str = "n1") -> NodeInfo:
    builder = make_node().name(name)
    for key, value, effect in taints:
        builder.taint(key, value, effect)
    return NodeInfo(node=builder.model())


def pod_with(*tolerations: dict[str, Any]) -> PodBuilder:
    builder = make_pod()
    for toleration in tolerations:
        builder.toleration(**toleration)
    return builder


REJECT = "node(s) had untolerated taint(s)"


@pytest.mark.parametrize(
    ("taints", "tolerations", "reason"),
    [
        pytest.param([], [], None, id="no-taints"),
        pytest.param([("dedicated", "gpu", "NoSchedule")], [], REJECT, id="untolerated"),
        pytest.param([("dedicated", "gpu", "NoExecute")], [], REJECT, id="no-execute"),
        pytest.param(
            [("dedicated", "gpu", "PreferNoSchedule")], [], None, id="prefer-is-not-filtered"
        ),
        pytest.param(
            [("dedicated", "gpu", "NoSchedule")],
            [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
            None,
            id="equal",
        ),
        pytest.param(
            [("dedicated", "gpu", "NoSchedule")],
            [{"key": "dedicated", "value": "cpu"}],
            REJECT,
            id="other-value",
        ),
        pytest.param(
            [("dedicated", "gpu", "NoSchedule")],
            [{"key": "dedicated", "operator": "Exists"}],
            None,
            id="exists",
        ),
        pytest.param(
            [("dedicated", "gpu", "NoSchedule")],
            [{"operator": "Exists"}],
            None,
            id="tolerate-everything",
        ),
        pytest.param(
            [("dedicated", "gpu", "NoSchedule")],
            [{"key": "dedicated", "value": "gpu", "effect": "NoExecute"}],
            REJECT,
            id="effect-mismatch",
        ),
        pytest.param(
            [("a", "1", "NoSchedule"), ("dedicated", "gpu", "NoSchedule")],
            [{"key": "a", "value": "1"}],
            REJECT,
            id="first-untolerated-reported",
        ),
    ],
)
def test_filter(
    taints: list[tuple[str, str, str]], tolerations: list[dict[str, Any]], reason: str | None
) -> None:
    plugin = TaintToleration(args={}, handle=FakeHandle())
    status = run_filter_plugin(plugin, pod_with(*tolerations).model(), [node_with(*taints)])["n1"]
    if reason is None:
        assert status.is_success()
    else:
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,))


def test_score_prefers_fewer_untolerated_prefer_no_schedule_taints() -> None:
    nodes = [
        node_with(name="clean"),
        node_with(("a", "1", "PreferNoSchedule"), name="one"),
        node_with(("a", "1", "PreferNoSchedule"), ("b", "2", "PreferNoSchedule"), name="two"),
        node_with(("c", "3", "NoSchedule"), name="hard"),  # only PreferNoSchedule counts
    ]
    plugin = TaintToleration(args={}, handle=FakeHandle())
    assert run_score_plugin(plugin, make_pod().model(), nodes) == {
        "clean": 100,
        "one": 50,
        "two": 0,
        "hard": 100,
    }
    tolerant = pod_with({"key": "b", "operator": "Exists", "effect": "PreferNoSchedule"}).model()
    assert run_score_plugin(plugin, tolerant, nodes) == {
        "clean": 100,
        "one": 0,
        "two": 0,
        "hard": 100,
    }


def test_all_nodes_clean_score_max() -> None:
    plugin = TaintToleration(args={}, handle=FakeHandle())
    assert run_score_plugin(plugin, make_pod().model(), [node_with()]) == {"n1": 100}


@pytest.mark.parametrize(
    ("unschedulable", "tolerations", "ok"),
    [
        (False, [], True),
        (True, [], False),
        (
            True,
            [
                {
                    "key": "node.kubernetes.io/unschedulable",
                    "operator": "Exists",
                    "effect": "NoSchedule",
                }
            ],
            True,
        ),
        (True, [{"operator": "Exists"}], True),
        (
            True,
            [
                {
                    "key": "node.kubernetes.io/unschedulable",
                    "operator": "Exists",
                    "effect": "NoExecute",
                }
            ],
            False,
        ),
    ],
)
def test_node_unschedulable(
    unschedulable: bool, tolerations: list[dict[str, Any]], ok: bool
) -> None:
    info = NodeInfo(node=make_node().name("n1").unschedulable(unschedulable).model())
    status = run_filter_plugin(
        NodeUnschedulable(args={}, handle=FakeHandle()), pod_with(*tolerations).model(), [info]
    )
    if ok:
        assert status["n1"].is_success()
    else:
        assert (status["n1"].code, status["n1"].message) == (
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "node(s) were unschedulable",
        )
