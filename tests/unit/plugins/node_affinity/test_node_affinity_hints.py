"""NodeAffinity's queueing hint, upstream's `Test_isSchedulableAfterNodeChange` table, and
its registrations."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched.model import Node
from kubesched.plugins import NodeAffinity
from kubesched.testing import FakeHandle, make_node, make_pod

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
ENFORCED = {
    "addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}
            ]
        }
    }
}


def node(**labels: str) -> Node:
    builder = make_node().name("n")
    for key, value in labels.items():
        builder.label(key, value)
    return builder.model()


def bigger_node(**labels: str) -> Node:
    """A node that differs from `node(**labels)` in capacity only."""
    builder = make_node().name("n").capacity(cpu="64")
    for key, value in labels.items():
        builder.label(key, value)
    return builder.model()


@pytest.mark.parametrize(
    ("args", "old", "new", "hint"),
    [
        pytest.param({}, None, node(), SKIP, id="skip-queue-on-add"),
        pytest.param({}, None, node(foo="bar"), QUEUE, id="queue-on-add"),
        pytest.param({}, node(), bigger_node(), SKIP, id="skip-unrelated-changes"),
        pytest.param({}, node(), node(k="v"), SKIP, id="skip-unrelated-changes-on-labels"),
        pytest.param(
            {},
            node(foo="bar"),
            node(k="v"),
            SKIP,
            id="skip-labels-changes-on-node-from-suitable-to-unsuitable",
        ),
        pytest.param(
            {},
            node(),
            node(foo="bar"),
            QUEUE,
            id="queue-on-labels-change-makes-pod-schedulable",
        ),
        pytest.param(
            {},
            node(foo="bar"),
            bigger_node(foo="bar"),
            SKIP,
            id="skip-unrelated-change-that-keeps-pod-schedulable",
        ),
        pytest.param(
            ENFORCED, None, node(), SKIP, id="skip-queue-on-add-scheduler-enforced-node-affinity"
        ),
        pytest.param(
            ENFORCED,
            None,
            node(foo="bar"),
            QUEUE,
            id="queue-on-add-scheduler-enforced-node-affinity",
        ),
    ],
)
def test_is_schedulable_after_node_change(
    args: dict[str, Any], old: Node | None, new: Node, hint: QueueingHint
) -> None:
    plugin = NodeAffinity(args=args, handle=FakeHandle())
    pod = make_pod().required_node_affinity("foo", "In", ["bar"]).model()
    assert plugin.is_schedulable_after_node_change(pod, old, new) is hint


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-node", id="backoff-wrong-new-object"),
        pytest.param("not-a-node", node(), id="backoff-wrong-old-object"),
    ],
)
def test_a_wrong_object_is_an_error(old: object, new: object) -> None:
    plugin = NodeAffinity(args={}, handle=FakeHandle())
    pod = make_pod().required_node_affinity("foo", "In", ["bar"]).model()
    with pytest.raises(TypeError):
        plugin.is_schedulable_after_node_change(pod, old, new)


def test_a_node_selector_counts_as_required_affinity() -> None:
    plugin = NodeAffinity(args={}, handle=FakeHandle())
    pod = make_pod().node_selector(zone="a").model()
    assert plugin.is_schedulable_after_node_change(pod, node(), node(zone="a")) is QUEUE
    assert plugin.is_schedulable_after_node_change(pod, None, node(zone="b")) is SKIP


def test_an_invalid_term_that_leaves_the_node_unmatched_is_an_error() -> None:
    """Upstream's Match errs when no term matched and one did not parse: the hint queues."""
    plugin = NodeAffinity(args={}, handle=FakeHandle())
    pod = make_pod().required_node_affinity("cores", "Gt", ["many"]).model()
    with pytest.raises(ValueError):
        plugin.is_schedulable_after_node_change(pod, None, node(cores="8"))
    unmatched_selector = make_pod().node_selector(zone="a")
    pod = unmatched_selector.required_node_affinity("cores", "Gt", ["many"]).model()
    assert plugin.is_schedulable_after_node_change(pod, None, node(cores="8")) is SKIP


def test_events_to_register() -> None:
    plugin = NodeAffinity(args={}, handle=FakeHandle())
    assert plugin.events_to_register() == (
        ClusterEventWithHint(
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
            plugin.is_schedulable_after_node_change,
        ),
    )
