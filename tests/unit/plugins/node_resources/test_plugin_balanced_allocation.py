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
        # with the pod 0.3/0.25 -> 97, without 0/0 -> 100: 50 + (50 + 97 - 100) / 2
        pytest.param(node("n1"), 73, id="empty-node-fractions-0.3-0.25"),
        # with 0.6/0.5 -> 95, without 0.3/0.25 -> 97: 50 + (50 - 2) / 2
        pytest.param(node("n1", used={"cpu": "3", "memory": "5000"}), 74, id="fractions-0.6-0.5"),
        # with 1/1 -> 100, without 0/0 -> 100: 50 + 50 / 2
        pytest.param(node("n1", cpu="3", memory="5000"), 75, id="both-full"),
        # with 1 (capped)/0.25 -> 62, without 0.9/0 -> 55: 50 + (50 + 7) / 2
        pytest.param(node("n1", used={"cpu": "9"}), 78, id="overcommitted-cpu-capped-at-1"),
    ],
)
def test_score_is_the_change_in_balance(info: NodeInfo, expected: int) -> None:
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
    # with the pod: fractions 0.5, 0.2, 0.25: mean 0.3167, std 0.1312 -> 86; without: 100
    assert run_score_plugin(plugin, pod, [info]) == {"n1": 50 + (50 + 86 - 100) // 2}


def test_parity_case_balanced_allocation_delta() -> None:
    """Parity case `balanced-allocation-delta.yaml`: the balanced node loses to the
    unbalanced one the pod evens out (kube-scheduler v1.37.2: n1 68, n2 81)."""
    n1 = node("n1", cpu="4", memory="8Gi", used={"cpu": "2", "memory": "4Gi"})
    n2 = node("n2", cpu="4", memory="8Gi", used={"memory": "6Gi"})
    pod = make_pod().req(cpu="1").model()
    assert run_score_plugin(PLUGIN, pod, [n1, n2]) == {"n1": 68, "n2": 81}
