from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import Code, NodeInfo
from kubesched.plugins import NodeResourcesFit
from kubesched.plugins.helper.args import ArgsError
from kubesched.plugins.node_resources.fit_args import NodeResourcesFitArgs
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin

UNSCHED = Code.UNSCHEDULABLE
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def node(name: str = "n1", *, used: dict[str, str] | None = None, **capacity: str) -> NodeInfo:
    info = NodeInfo(node=make_node().name(name).capacity(**capacity).model())
    if used is not None:
        info.add_pod(make_pod().node(name).req(**used).model())
    return info


def plugin(args: dict[str, Any] | None = None) -> NodeResourcesFit:
    return NodeResourcesFit(args=args or {}, handle=FakeHandle())


@pytest.mark.parametrize(
    ("pod_req", "info", "code", "reasons"),
    [
        pytest.param({"cpu": "1"}, node(cpu="4"), Code.SUCCESS, (), id="fits"),
        pytest.param({}, node(cpu="4"), Code.SUCCESS, (), id="no-requests"),
        pytest.param(
            {"cpu": "1"},
            node(cpu="4", used={"cpu": "3500m"}),
            UNSCHED,
            ("Insufficient cpu",),
            id="cpu",
        ),
        pytest.param(
            {"cpu": "1", "memory": "2Gi"},
            node(cpu="1", memory="2Gi", used={"cpu": "1m", "memory": "1"}),
            UNSCHED,
            ("Insufficient cpu", "Insufficient memory"),
            id="cpu-and-memory",
        ),
        pytest.param(
            {"cpu": "5"}, node(cpu="4"), UNRESOLVABLE, ("Insufficient cpu",), id="larger-than-node"
        ),
        pytest.param(
            {"ephemeral_storage": "2Gi"},
            node(ephemeral_storage="1Gi"),
            UNRESOLVABLE,
            ("Insufficient ephemeral-storage",),
            id="ephemeral-storage",
        ),
        pytest.param({}, node(pods="1", used={}), UNSCHED, ("Too many pods",), id="too-many-pods"),
        pytest.param(
            {"cpu": "5"},
            node(cpu="4", pods="1", used={}),
            UNRESOLVABLE,
            ("Too many pods", "Insufficient cpu"),
            id="both",
        ),
    ],
)
def test_filter(
    pod_req: dict[str, str], info: NodeInfo, code: Code, reasons: tuple[str, ...]
) -> None:
    pod = make_pod().req(**pod_req).model()
    status = run_filter_plugin(plugin(), pod, [info])[info.name]
    assert (status.code, status.reasons) == (code, reasons)


GPU = {"example.com/gpu": "1"}


@pytest.mark.parametrize(
    ("args", "capacity", "code"),
    [
        pytest.param({}, {}, UNRESOLVABLE, id="missing-extended-resource"),
        pytest.param({}, {"example.com/gpu": "2"}, Code.SUCCESS, id="has-it"),
        pytest.param({"ignoredResources": ["example.com/gpu"]}, {}, Code.SUCCESS, id="ignored"),
        pytest.param(
            {"ignoredResourceGroups": ["example.com"]}, {}, Code.SUCCESS, id="ignored-group"
        ),
        pytest.param({"ignoredResourceGroups": ["other.io"]}, {}, UNRESOLVABLE, id="other-group"),
    ],
)
def test_extended_resources(args: dict[str, Any], capacity: dict[str, str], code: Code) -> None:
    info = NodeInfo(node=make_node().name("n1").capacity_named(capacity).model())
    status = run_filter_plugin(plugin(args), make_pod().req_named(GPU).model(), [info])["n1"]
    assert status.code is code
    if code is not Code.SUCCESS:
        assert status.reasons == ("Insufficient example.com/gpu",)


def test_extended_resource_in_use() -> None:
    info = NodeInfo(node=make_node().name("n1").capacity_named({"example.com/gpu": "1"}).model())
    info.add_pod(make_pod().node("n1").req_named(GPU).model())
    status = run_filter_plugin(plugin(), make_pod().req_named(GPU).model(), [info])["n1"]
    assert (status.code, status.reasons) == (UNSCHED, ("Insufficient example.com/gpu",))


TWO_NODES = [node("n1", cpu="4", memory="10000"), node("n2", cpu="6", memory="10000")]
SHAPE = {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        pytest.param({"type": "LeastAllocated"}, {"n1": 77, "n2": 81}, id="least-allocated"),
        pytest.param({"type": "MostAllocated"}, {"n1": 22, "n2": 18}, id="most-allocated"),
        pytest.param(
            {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": SHAPE},
            {"n1": 23, "n2": 18},
            id="requested-to-capacity-ratio",
        ),
        pytest.param(
            {
                "type": "LeastAllocated",
                "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
            },
            {"n1": 76, "n2": 82},
            id="weighted",
        ),
    ],
)
def test_score_strategies(strategy: dict[str, Any], expected: dict[str, int]) -> None:
    pod = make_pod().req(cpu="1", memory="2000").model()
    scores = run_score_plugin(plugin({"scoringStrategy": strategy}), pod, TWO_NODES)
    assert scores == expected


def test_without_a_scoring_strategy_it_is_least_allocated_but_a_given_one_needs_its_type() -> None:
    pod = make_pod().req(cpu="1", memory="2000").model()
    assert run_score_plugin(plugin({}), pod, TWO_NODES) == {"n1": 77, "n2": 81}
    with pytest.raises(ArgsError, match=r'scoringStrategy.type: Unsupported value: "": supported'):
        NodeResourcesFitArgs.from_v1({"scoringStrategy": {"resources": [{"name": "cpu"}]}})


def test_score_uses_non_zero_requests_for_empty_pods() -> None:
    info = node(cpu="1", memory="1Gi")
    # 100m of 1 CPU -> 90; 200Mi of 1Gi -> 80.
    assert run_score_plugin(plugin(), make_pod().model(), [info]) == {"n1": 85}


def test_parity_case_fit_score_ignores_pod_level_resources() -> None:
    """Parity case `fit-score-pod-level-resources.yaml`: the score counts the containers'
    500m cpu and the 200Mi non-zero memory default, not the pod-level 3 cpu / 1Gi, while the
    Filter uses the pod-level 3 cpu (the 2-cpu node is rejected)."""
    pod = make_pod().pod_req(cpu="3", memory="1Gi").req(cpu="500m").model()
    n1, n2 = node("n1", cpu="4", memory="8Gi"), node("n2", cpu="8", memory="8Gi")
    # n1: cpu (4000-500)*100/4000 = 87, memory (8192-200)*100/8192 = 97 -> 92
    # n2: cpu (8000-500)*100/8000 = 93, memory 97 -> 95
    assert run_score_plugin(plugin(), pod, [n1, n2]) == {"n1": 92, "n2": 95}
    n3 = node("n3", cpu="2", memory="8Gi")
    status = run_filter_plugin(plugin(), pod, [n1, n3])["n3"]
    assert run_filter_plugin(plugin(), pod, [n1])["n1"].code == Code.SUCCESS
    assert status.code == UNRESOLVABLE
    assert status.reasons == ("Insufficient cpu",)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"bogus": 1}, 'unknown field "bogus"'),
        (
            {"scoringStrategy": {"type": "Bogus"}},
            (
                'Unsupported value: "Bogus": supported values: "LeastAllocated", "MostAllocated", '
                '"RequestedToCapacityRatio"'
            ),
        ),
        (
            {"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
            "requestedToCapacityRatio: Required value: must be specified when type is Requested",
        ),
        (
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shape": []},
                }
            },
            "shape: Required value: at least one point must be specified",
        ),
        (
            {"scoringStrategy": {"type": "MostAllocated", "requestedToCapacityRatio": {}}},
            "requestedToCapacityRatio: Forbidden: must be nil when type is not Requested",
        ),
        (
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {
                        "shape": [{"utilization": 50}, {"utilization": 10}]
                    },
                }
            },
            "sorted in increasing order",
        ),
        (
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [{"name": "cpu", "weight": 101}],
                }
            },
            r"weight: Invalid value: 101: resource weight of cpu not in valid range \(0, 100\]",
        ),
        (
            {"ignoredResourceGroups": ["a/b"]},
            r'ignoredResourceGroups\[0\]: Invalid value: "a/b": resource group name can\'t contain',
        ),
        ({"ignoredResources": ["bad name!"]}, r"ignoredResources\[0\]: Invalid value: .*name part"),
        ({"ignoredResources": "gpu"}, "expected a list"),
    ],
)
def test_invalid_args(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ArgsError, match=message):
        plugin(args)
