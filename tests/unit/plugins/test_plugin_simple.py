from __future__ import annotations

from dataclasses import dataclass

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EventResource,
    NodeInfo,
    QueueingHint,
)
from kubesched.model import Pod
from kubesched.plugins import NodeName, PrioritySort, SchedulingGates
from kubesched.plugins.helper.args import ArgsError
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin


def test_scheduling_gates_message() -> None:
    plugin = SchedulingGates(args={}, handle=FakeHandle())
    assert plugin.pre_enqueue(make_pod().model()) is None
    status = plugin.pre_enqueue(
        make_pod().scheduling_gate("example.com/a").scheduling_gate("b").model()
    )
    assert status is not None
    assert (status.code, status.message) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "waiting for scheduling gates: [example.com/a b]",
    )


def test_scheduling_gates_queues_when_the_gates_are_gone() -> None:
    """Upstream's `TestIsSchedulableAfterUpdateTargetPodSchedulingGatesEliminated`."""
    plugin = SchedulingGates(args={}, handle=FakeHandle())
    gated = make_pod().name("p").scheduling_gate("foo")
    hint = plugin.is_schedulable_after_update_target_pod_scheduling_gates_eliminated(
        gated.model(), gated.model(), make_pod().name("p").model()
    )
    assert hint is QueueingHint.QUEUE


def test_scheduling_gates_events_to_register() -> None:
    plugin = SchedulingGates(args={}, handle=FakeHandle())
    event = ClusterEvent(
        EventResource.TARGET_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    )
    assert plugin.events_to_register() == (
        ClusterEventWithHint(
            event, plugin.is_schedulable_after_update_target_pod_scheduling_gates_eliminated
        ),
    )


@dataclass
class Queued:
    pod: Pod
    timestamp: float


@pytest.mark.parametrize(
    ("first", "second", "less"),
    [
        ((10, 5.0), (0, 1.0), True),  # higher priority first
        ((0, 1.0), (10, 5.0), False),
        ((3, 1.0), (3, 2.0), True),  # same priority: earlier first
        ((3, 2.0), (3, 1.0), False),
        ((3, 1.0), (3, 1.0), False),
    ],
)
def test_priority_sort(first: tuple[int, float], second: tuple[int, float], less: bool) -> None:
    plugin = PrioritySort(args={}, handle=FakeHandle())
    a = Queued(make_pod().priority(first[0]).model(), first[1])
    b = Queued(make_pod().priority(second[0]).model(), second[1])
    assert plugin.less(a, b) is less


def test_node_name() -> None:
    nodes = [NodeInfo(node=make_node().name(n).model()) for n in ("n1", "n2")]
    plugin = NodeName(args={}, handle=FakeHandle())
    assert all(
        s.is_success() for s in run_filter_plugin(plugin, make_pod().model(), nodes).values()
    )
    statuses = run_filter_plugin(plugin, make_pod().node("n2").model(), nodes)
    assert statuses["n2"].is_success()
    assert (statuses["n1"].code, statuses["n1"].message) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "node(s) didn't match the requested node name",
    )


def test_node_name_events_to_register() -> None:
    """A node added, without a hint (upstream: every such event retries the pod)."""
    plugin = NodeName(args={}, handle=FakeHandle())
    assert plugin.events_to_register() == (
        ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
    )


def test_plugins_without_args_reject_args() -> None:
    with pytest.raises(ArgsError, match="plugin NodeName takes no args"):
        NodeName(args={"x": 1}, handle=FakeHandle())
