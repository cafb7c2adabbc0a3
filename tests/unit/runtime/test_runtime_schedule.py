from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.runtime import (
    FitError,
    Framework,
    NoNodesAvailableError,
    SchedulingError,
    num_feasible_nodes_to_find,
    schedule_pod,
)
from kubesched.runtime.framework import PluginLists
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod
from tests.unit.runtime.fw_fakes import FakeFilter, FakePreFilter, FakeScore


@pytest.mark.parametrize(
    ("num_nodes", "percentage", "expected"),
    [
        (0, None, 0),
        (50, None, 50),
        (99, 10, 99),
        (100, None, 100),  # 49 % of 100 < the 100-node minimum
        (500, None, 230),  # 46 %
        (1000, None, 420),  # 42 %
        (5000, None, 500),  # 10 %
        (6000, None, 300),  # 50 - 48 = 2 % -> floor 5 %
        (10000, None, 500),  # 5 %
        (1000, 0, 420),  # 0 means adaptive
        (1000, 30, 300),
        (1000, 5, 100),  # at least 100 nodes
        (1000, 100, 1000),
    ],
)
def test_num_feasible_nodes_to_find(num_nodes: int, percentage: int | None, expected: int) -> None:
    assert num_feasible_nodes_to_find(num_nodes, percentage) == expected


def make_framework(names: list[str], **lists: Any) -> tuple[Framework, list[NodeInfo]]:
    handle = FakeHandle(nodes=[make_node().name(n).model() for n in names])
    fw = Framework(
        profile_name="p",
        plugins=PluginLists(**lists),
        score_weights={pl.name: 1 for pl in lists.get("score", [])},
        percentage_of_nodes_to_score=None,
        handle=handle,
    )
    return fw, list(handle.list_node_infos())


def test_sampling_stops_early_and_rotates_the_start_index() -> None:
    names = [f"n{i:03d}" for i in range(200)]
    calls: list[str] = []
    score = FakeScore("S", dict.fromkeys(names, 1))
    fw, infos = make_framework(names, filter=[FakeFilter("F", calls=calls)], score=[score])
    pod = make_pod().model()
    result = schedule_pod(fw, CycleState(), pod, infos)
    assert result.feasible_nodes == 100  # 200 nodes: 48 % = 96 -> at least 100
    assert calls[0] == "F:n000"
    assert fw.next_start_node_index == 100
    calls.clear()
    schedule_pod(fw, CycleState(), pod, infos)
    assert calls[0] == "F:n100"
    assert fw.next_start_node_index == 0


def test_without_score_plugins_the_first_feasible_node_wins() -> None:
    calls: list[str] = []
    fw, infos = make_framework(["a", "b", "c"], filter=[FakeFilter("F", calls=calls)])
    result = schedule_pod(fw, CycleState(), make_pod().model(), infos)
    assert (result.suggested_host, result.evaluated_nodes, result.scores) == ("a", 1, None)
    assert calls == ["F:a"]


def test_fit_error_lists_rejections_and_unschedulable_plugins() -> None:
    reject = {
        "a": Status(Code.UNSCHEDULABLE, "Insufficient cpu"),
        "b": Status(Code.UNSCHEDULABLE, "Insufficient cpu"),
    }
    fw, infos = make_framework(["a", "b"], filter=[FakeFilter("Fit", reject=reject)])
    with pytest.raises(FitError) as info:
        schedule_pod(fw, CycleState(), make_pod().model(), infos)
    assert str(info.value) == "0/2 nodes are available: 2 Insufficient cpu."
    assert info.value.diagnosis.unschedulable_plugins == {"Fit"}


def test_pre_filter_result_restricts_nodes_and_explains_the_others() -> None:
    reject = {"b": Status(Code.UNSCHEDULABLE, "Too many pods")}
    fw, infos = make_framework(
        ["a", "b", "c"],
        pre_filter=[FakePreFilter("NodeAffinity", {"b", "gone"})],
        filter=[FakeFilter("F", reject=reject)],
    )
    with pytest.raises(FitError) as info:
        schedule_pod(fw, CycleState(), make_pod().model(), infos)
    assert str(info.value) == (
        "0/3 nodes are available: 1 Too many pods,"
        " 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )


def test_pre_filter_rejection_message() -> None:
    status = Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "pod uses podAffinity, which kubesched does not support yet",
    )
    fw, infos = make_framework(["a"], pre_filter=[FakePreFilter("UnsupportedFeatures", status)])
    with pytest.raises(
        FitError, match=r"^0/1 nodes are available: pod uses podAffinity, .* yet\.$"
    ) as info:
        schedule_pod(fw, CycleState(), make_pod().model(), infos)
    assert info.value.diagnosis.unschedulable_plugins == {"UnsupportedFeatures"}


def test_errors_and_empty_snapshot() -> None:
    fw, infos = make_framework(["a"], filter=[FakeFilter("Buggy", boom=frozenset({"a"}))])
    with pytest.raises(SchedulingError, match='plugin "Buggy" raised RuntimeError'):
        schedule_pod(fw, CycleState(), make_pod().model(), infos)
    with pytest.raises(NoNodesAvailableError, match="no nodes available to schedule pods"):
        schedule_pod(fw, CycleState(), make_pod().model(), [])


def test_nominated_node_is_tried_first() -> None:
    calls: list[str] = []
    fw, infos = make_framework(["a", "b", "c"], filter=[FakeFilter("F", calls=calls)])
    pod = make_pod().model()
    pod.nominated_node_name = "c"
    assert schedule_pod(fw, CycleState(), pod, infos).suggested_host == "c"
    assert calls == ["F:c"]


class FailsOnceOn:
    """Raises the first time it filters `node`."""

    name = "FailsOnce"

    def __init__(self, node: str) -> None:
        self.node = node
        self.failed = False

    def filter(self, _state: CycleState, _pod: Any, node_info: NodeInfo) -> Status | None:
        if node_info.name == self.node and not self.failed:
            self.failed = True
            raise RuntimeError("flaky")
        return None


def test_an_error_on_the_nominated_node_is_logged_and_every_node_filtered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fw, infos = make_framework(["a", "b"], filter=[FailsOnceOn("b")])
    pod = make_pod().model()
    pod.nominated_node_name = "b"
    # The full pass, as upstream after the error (without Score plugins one node is enough).
    assert schedule_pod(fw, CycleState(), pod, infos).suggested_host == "a"
    assert '"Evaluation failed on nominated node"' in caplog.text


def test_default_plugins_end_to_end() -> None:
    handle = FakeHandle(
        nodes=[
            make_node().name("small").capacity(cpu="1").model(),
            make_node().name("tainted").taint("dedicated", "gpu").model(),
            make_node().name("big").capacity(cpu="8").model(),
            make_node().name("busy").capacity(cpu="8").model(),
        ],
        pods=[make_pod().name("hog").node("busy").req(cpu="6").model()],
    )
    fw = build_test_framework(handle=handle)
    nodes = handle.list_node_infos()
    result = schedule_pod(fw, CycleState(), make_pod().req(cpu="500m").model(), nodes)
    assert result.suggested_host == "big"  # least allocated and balanced
    assert result.feasible_nodes == 3
    with pytest.raises(FitError) as info:
        schedule_pod(fw, CycleState(), make_pod().req(cpu="9").model(), nodes)
    # 9 cpu exceed every node's allocatable: no eviction helps (DefaultPreemption).
    assert str(info.value) == (
        "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu."
        " preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
