"""The gated set grouped by gate: an event is offered only to the gated pods whose gating
plugin may be ungated by it (one question a gate, not one a pod)."""

from __future__ import annotations

from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.queue import QueuedPodInfo, QueueingStrategy, SchedulingQueue
from kubesched.queue.gated import GatedSet
from kubesched.queue.reasons import ReasonCounts
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock, gates, priority_sort

POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
POD_UPDATE = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.UPDATE)


def test_the_gated_set_keeps_each_pod_under_its_current_gate() -> None:
    gated = GatedSet()
    qpi = QueuedPodInfo(pod=make_pod().name("p").uid("p").model(), timestamp=0.0)
    qpi.gating_plugin = "SchedulingGates"
    gated.add(qpi)
    qpi.gating_plugin = "Other"
    gated.add(qpi)
    assert len(gated) == 1
    assert [q.uid for q in gated.hearing(None, lambda _s, gate, _e: gate == "Other")] == ["p"]
    assert list(gated.hearing(None, lambda _s, gate, _e: gate == "SchedulingGates")) == []
    assert gated.pop("p") is qpi
    assert (len(gated), "p" in gated, gated.pop("p")) == (0, False, None)


def test_an_event_no_gate_hears_asks_no_gated_pod(clock: FakeClock) -> None:
    asked: list[str] = []

    def strategy(qpi: QueuedPodInfo, event: object, old: object, new: object) -> QueueingStrategy:
        asked.append(qpi.pod.name)
        return QueueingStrategy.AFTER_BACKOFF

    def hears(scheduler: str, gate: str | None, event: object) -> bool:
        return event == POD_UPDATE and gate == "SchedulingGates"

    queue = SchedulingQueue(
        less=priority_sort,
        pre_enqueue=gates,
        requeue_strategy=strategy,
        clock=clock,
        gate_hears=hears,
    )
    for i in range(100):
        queue.add(make_pod().name(f"g{i}").scheduling_gate("wait").model())
    assert queue.pending_counts()["gated"] == 100
    queue.move_all_to_active_or_backoff(POD_ADD)
    assert asked == []
    queue.move_all_to_active_or_backoff(POD_UPDATE)
    assert sorted(asked) == sorted(f"g{i}" for i in range(100))


def test_a_pod_held_again_by_its_gate_keeps_its_place_and_its_counts() -> None:
    reasons = ReasonCounts()
    gated = GatedSet(reasons)
    first, second = (
        QueuedPodInfo(pod=make_pod().name(n).uid(n).model(), timestamp=0.0) for n in "ab"
    )
    for qpi in (first, second):
        qpi.gating_plugin = "DefaultPreemption"
        qpi.unschedulable_plugins.add("NodeResourcesFit")
        gated.add(qpi)
    gated.add(first)  # PreEnqueue held it again on an event its gate hears
    assert [q.uid for q in gated.values()] == ["a", "b"]
    assert dict(reasons.counts) == {
        ("DefaultPreemption", "default-scheduler"): 2,
        ("NodeResourcesFit", "default-scheduler"): 2,
    }
    first.unschedulable_plugins.add("NodePorts")  # its plugins changed: counted anew
    gated.add(first)
    assert reasons.counts[("NodePorts", "default-scheduler")] == 1
    assert gated.pop("a") is first
    assert dict(reasons.counts) == {
        ("DefaultPreemption", "default-scheduler"): 1,
        ("NodeResourcesFit", "default-scheduler"): 1,
    }
