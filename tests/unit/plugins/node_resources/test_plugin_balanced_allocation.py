from __future__ import annotations

import pytest

from kubesched.framework import NodeInfo
from kubesched.plugins import NodeResourcesBalancedAllocation
from kubesched.testing import FakeHandle, make_node, make_pod, run_score_plugin


def node(
    name: str, *, cpu: str = "10", memory: str = "20000", used: dict[str, str] | None = None
) -> NodeInfo:
    info = NodeInfo(node=make_node().name(name).capacity(cpu=cpu, memory=memory).model())
    if used is not None:
        info.add_pod(make_pod().node(name).req(**used).model())
    return info


PLUGIN = NodeResourcesBalancedAllocation(args={}, handle=FakeHandle())


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        pytest.param(node("n1"), 97, id="fractions-0.3-0.25"),
        pytest.param(node("n1", used={"cpu": "3", "memory": "5000"}), 95, id="fractions-0.6-0.5"),
        pytest.param(node("n1", cpu="3", memory="5000"), 100, id="both-full"),
        pytest.param(node("n1", used={"cpu": "9"}), 62, id="overcommitted-cpu-capped-at-1"),
    ],
)
def test_score(info: NodeInfo, expected: int) -> None:
    pod = make_pod().req(cpu="3", memory="5000").model()
    assert run_score_plugin(PLUGIN, pod, [info]) == {"n1": expected}


def test_best_effort_pods_are_skipped() -> None:
    assert run_score_plugin(PLUGIN, make_pod().model(), [node("n1")]) == {}


def test_three_resources_use_the_standard_deviation() -> None:
    plugin = NodeResourcesBalancedAllocation(
        args={"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "example.com/gpu"}]},
        handle=FakeHandle(),
    )
    info = NodeInfo(
        node=make_node()
        .name("n1")
        .capacity(cpu="10", memory="10000")
        .capacity_named({"example.com/gpu": "4"})
        .model()
    )
    pod = make_pod().req(cpu="5", memory="2000").req_named({"example.com/gpu": "1"}).model()
    # fractions 0.5, 0.2, 0.25: mean 0.3167, std 0.1312 -> 86
    assert run_score_plugin(plugin, pod, [info]) == {"n1": 86}
