"""`schedule_pod(placement=)`, a pod-group member's cycle within one topology placement
(upstream's `AssumePlacement`): PreFilter still sees every node, but only the placement's
nodes are filtered and counted, a nominated node outside it is passed over (not an error),
and a PreFilter result is cut down to it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.model import Pod
from kubesched.runtime import FitError, NoNodesAvailableError, schedule_pod
from kubesched.testing import make_pod
from tests.unit.runtime.fw_fakes import FakeFilter, FakePreFilter
from tests.unit.runtime.test_runtime_schedule import make_framework

NAMES = ["n0", "n1", "n2", "n3"]


class _CountingPreFilter:
    name = "Counting"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def pre_filter(self, _state: CycleState, _pod: Pod, nodes: Sequence[NodeInfo]) -> None:
        self.seen = [info.name for info in nodes]


def test_pre_filter_sees_every_node_and_filter_only_the_placement() -> None:
    calls: list[str] = []
    counting = _CountingPreFilter()
    fw, infos = make_framework(NAMES, pre_filter=[counting], filter=[FakeFilter("F", calls=calls)])
    result = schedule_pod(fw, CycleState(), make_pod().model(), infos, placement=infos[2:])
    assert counting.seen == NAMES
    assert result.suggested_host in {"n2", "n3"}
    assert {call.split(":")[1] for call in calls} <= {"n2", "n3"}


def test_the_fit_error_counts_the_placements_nodes() -> None:
    reject = {name: Status(Code.UNSCHEDULABLE, "no room") for name in NAMES}
    fw, infos = make_framework(NAMES, filter=[FakeFilter("F", reject=reject)])
    with pytest.raises(FitError) as raised:
        schedule_pod(fw, CycleState(), make_pod().model(), infos, placement=infos[1:3])
    assert str(raised.value).startswith("0/2 nodes are available: 2 no room.")


def test_an_empty_placement_has_no_nodes() -> None:
    fw, infos = make_framework(NAMES)
    with pytest.raises(NoNodesAvailableError):
        schedule_pod(fw, CycleState(), make_pod().model(), infos, placement=[])


def test_a_nominated_node_outside_the_placement_is_passed_over() -> None:
    calls: list[str] = []
    fw, infos = make_framework(NAMES, filter=[FakeFilter("F", calls=calls)])
    pod = make_pod().nominated_node("n0").model()
    result = schedule_pod(fw, CycleState(), pod, infos, placement=infos[3:])
    assert result.suggested_host == "n3"
    assert "F:n0" not in calls


def test_a_pre_filter_result_is_cut_down_to_the_placement() -> None:
    fw, infos = make_framework(NAMES, pre_filter=[FakePreFilter("NodeAffinity", {"n0", "n2"})])
    result = schedule_pod(fw, CycleState(), make_pod().model(), infos, placement=infos[1:])
    assert result.suggested_host == "n2"
