"""runtime.queueing: upstream's isPodWorthRequeuing over one profile's registrations."""

from __future__ import annotations

from typing import Any

from kubesched.framework import (
    FORCE_ACTIVATE_EVENT,
    UNSCHEDULABLE_TIMEOUT_EVENT,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched.runtime.queueing import QueueingHints, Requeue
from kubesched.testing import make_pod

POD = make_pod().name("p").model()
NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
NODE_LABEL = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
NODE_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE)


def queue(_pod: Any, _old: Any, _new: Any) -> QueueingHint:
    return QueueingHint.QUEUE


def skip(_pod: Any, _old: Any, _new: Any) -> QueueingHint:
    return QueueingHint.QUEUE_SKIP


def broken(_pod: Any, _old: Any, _new: Any) -> QueueingHint:
    raise TypeError("unexpected object")


def strategy(
    hints: QueueingHints,
    event: ClusterEvent,
    rejectors: set[str],
    pending: frozenset[str] = frozenset(),
    new: Any = None,
) -> Requeue:
    return hints.strategy(
        pod=POD, rejectors=rejectors, pending=pending, event=event, old=None, new=new
    )


def test_only_the_rejectors_hints_are_asked() -> None:
    hints = QueueingHints(
        {
            "Yes": (ClusterEventWithHint(NODE_ADD, queue),),
            "No": (ClusterEventWithHint(NODE_ADD, skip),),
        }
    )
    assert strategy(hints, NODE_ADD, {"No"}) is Requeue.SKIP
    assert strategy(hints, NODE_ADD, {"Yes"}) is Requeue.AFTER_BACKOFF
    assert strategy(hints, NODE_ADD, {"No", "Yes"}) is Requeue.AFTER_BACKOFF
    assert strategy(hints, NODE_ADD, {"Other"}) is Requeue.SKIP
    assert strategy(hints, NODE_ADD, set()) is Requeue.AFTER_BACKOFF, "an error: no rejector"


def test_a_pending_plugin_that_says_queue_means_at_once() -> None:
    hints = QueueingHints(
        {
            "Waiting": (ClusterEventWithHint(NODE_ADD, queue),),
            "Fit": (ClusterEventWithHint(NODE_ADD, queue),),
        }
    )
    waiting = frozenset({"Waiting"})
    assert strategy(hints, NODE_ADD, {"Waiting", "Fit"}, waiting) is Requeue.IMMEDIATELY
    assert strategy(hints, NODE_ADD, {"Fit"}) is Requeue.AFTER_BACKOFF


def test_an_incoming_action_matches_only_as_specific_registrations() -> None:
    hints = QueueingHints({"Labels": (ClusterEventWithHint(NODE_LABEL),)})
    assert strategy(hints, NODE_LABEL, {"Labels"}) is Requeue.AFTER_BACKOFF
    assert strategy(hints, NODE_UPDATE, {"Labels"}) is Requeue.SKIP
    assert hints.interested(NODE_LABEL)
    assert not hints.interested(NODE_UPDATE)
    assert not hints.interested(NODE_ADD)


def test_pod_registrations_cover_the_three_pod_kinds() -> None:
    pod_delete = ClusterEvent(EventResource.POD, ActionType.DELETE)
    hints = QueueingHints({"Ports": (ClusterEventWithHint(pod_delete),)})
    for kind in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD):
        assert strategy(hints, ClusterEvent(kind, ActionType.DELETE), {"Ports"})
    assigned = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
    only_assigned = QueueingHints({"Ports": (ClusterEventWithHint(assigned),)})
    target = ClusterEvent(EventResource.TARGET_POD, ActionType.DELETE)
    assert strategy(only_assigned, target, {"Ports"}) is Requeue.SKIP


def test_wildcards_requeue_without_hints_and_force_activate_only_its_pod() -> None:
    hints = QueueingHints({"No": (ClusterEventWithHint(NODE_ADD, skip),)})
    assert strategy(hints, UNSCHEDULABLE_TIMEOUT_EVENT, {"No"}) is Requeue.AFTER_BACKOFF
    assert strategy(hints, FORCE_ACTIVATE_EVENT, {"No"}, new=POD) is Requeue.AFTER_BACKOFF
    other = make_pod().name("other").model()
    assert strategy(hints, FORCE_ACTIVATE_EVENT, {"No"}, new=other) is Requeue.SKIP


def test_a_broken_hint_queues_and_every_run_is_observed() -> None:
    seen: list[tuple[str, str, str]] = []
    hints = QueueingHints(
        {"Broken": (ClusterEventWithHint(NODE_ADD, broken),)},
        observe=lambda plugin, event, hint, _s: seen.append((plugin, event, hint)),
    )
    assert strategy(hints, NODE_ADD, {"Broken"}) is Requeue.AFTER_BACKOFF
    assert seen == [("Broken", "NodeAdd", "Error")]


def test_registered_by_says_which_plugin_registered_an_event() -> None:
    hints = QueueingHints({"Gate": (ClusterEventWithHint(NODE_LABEL),)})
    assert hints.registered_by("Gate", NODE_LABEL)
    assert not hints.registered_by("Gate", NODE_ADD)
    assert not hints.registered_by("Unknown", NODE_LABEL)
