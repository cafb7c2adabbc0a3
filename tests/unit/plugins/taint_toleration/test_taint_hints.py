"""The queueing hints of TaintToleration and NodeUnschedulable, upstream's
`TestIsSchedulableAfterNodeChange`, `Test_isSchedulableAfterTargetPodTolerationChange` and
`TestIsSchedulableAfterPodTolerationChange` tables, and their registrations."""

from __future__ import annotations

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched.model import Node, Pod
from kubesched.plugins import NodeUnschedulable, TaintToleration
from kubesched.testing import FakeHandle, make_node, make_pod

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def tainted(*values: str) -> Node:
    """Node A with a `dedicated=<value>:NoSchedule` taint per value."""
    builder = make_node().name("nodeA")
    for value in values:
        builder.taint("dedicated", value, "NoSchedule")
    return builder.model()


def tolerating_user2() -> Pod:
    return make_pod().name("pod1").toleration("dedicated", "user2", effect="NoSchedule").model()


# ---- TaintToleration ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        pytest.param(None, tainted("user1"), SKIP, id="skip-queue-on-untoleratedtaint-node-added"),
        pytest.param(None, tainted("user2"), QUEUE, id="queue-on-toleratedtaint-node-added"),
        pytest.param(tainted("user1"), tainted("user1", "user3"), SKIP, id="skip-unrelated-change"),
        pytest.param(tainted("user1"), tainted("user2"), QUEUE, id="queue-on-taint-change"),
    ],
)
def test_taint_toleration_is_schedulable_after_node_change(
    old: Node | None, new: Node, hint: QueueingHint
) -> None:
    plugin = TaintToleration(args={}, handle=FakeHandle())
    assert plugin.is_schedulable_after_node_change(tolerating_user2(), old, new) is hint


def test_taint_toleration_skips_a_node_that_was_tolerated_already() -> None:
    plugin = TaintToleration(args={}, handle=FakeHandle())
    old, new = tainted("user2"), tainted()
    assert plugin.is_schedulable_after_node_change(tolerating_user2(), old, new) is SKIP


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-node", id="backoff-wrong-new-object"),
        pytest.param("not-a-node", tainted("user1"), id="backoff-wrong-old-object"),
    ],
)
def test_taint_toleration_wrong_object_is_an_error(old: object, new: object) -> None:
    plugin = TaintToleration(args={}, handle=FakeHandle())
    with pytest.raises(TypeError):
        plugin.is_schedulable_after_node_change(make_pod().model(), old, new)


def test_taint_toleration_queues_on_toleration_added() -> None:
    """Upstream's `queue-on-toleration-added`."""
    plugin = TaintToleration(args={}, handle=FakeHandle())
    pod = make_pod().name("pod-1").namespace("ns-1")
    new = make_pod().name("pod-1").namespace("ns-1").toleration("foo", effect="NoSchedule")
    hint = plugin.is_schedulable_after_target_pod_toleration_change(
        pod.model(), pod.model(), new.model()
    )
    assert hint is QUEUE


def test_taint_toleration_events_to_register() -> None:
    plugin = TaintToleration(args={}, handle=FakeHandle())
    assert plugin.events_to_register() == (
        ClusterEventWithHint(
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
            plugin.is_schedulable_after_node_change,
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_TOLERATION),
            plugin.is_schedulable_after_target_pod_toleration_change,
        ),
    )


# ---- NodeUnschedulable -------------------------------------------------------------------


def cordoned(value: bool, *, not_ready: bool = False) -> Node:
    builder = make_node().name("n").unschedulable(value)
    if not_ready:
        builder.taint("node.kubernetes.io/not-ready", "", "NoExecute")
    return builder.model()


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        pytest.param(None, cordoned(True), SKIP, id="skip-queue-on-unschedulable-node-added"),
        pytest.param(None, cordoned(False), QUEUE, id="queue-on-schedulable-node-added"),
        pytest.param(
            cordoned(True),
            cordoned(True, not_ready=True),
            SKIP,
            id="skip-unrelated-change-unschedulable-true",
        ),
        pytest.param(
            cordoned(False),
            cordoned(False, not_ready=True),
            SKIP,
            id="skip-unrelated-change-unschedulable-false",
        ),
        pytest.param(
            cordoned(True), cordoned(False), QUEUE, id="queue-on-unschedulable-field-change"
        ),
    ],
)
def test_node_unschedulable_is_schedulable_after_node_change(
    old: Node | None, new: Node, hint: QueueingHint
) -> None:
    plugin = NodeUnschedulable(args={}, handle=FakeHandle())
    assert plugin.is_schedulable_after_node_change(make_pod().model(), old, new) is hint


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-node", id="error-wrong-new-object"),
        pytest.param("not-a-node", cordoned(True), id="error-wrong-old-object"),
    ],
)
def test_node_unschedulable_wrong_node_is_an_error(old: object, new: object) -> None:
    plugin = NodeUnschedulable(args={}, handle=FakeHandle())
    with pytest.raises(TypeError):
        plugin.is_schedulable_after_node_change(make_pod().model(), old, new)


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        pytest.param(UNSCHEDULABLE_TAINT, QUEUE, id="queue-when-the-unsched-pod-gets-toleration"),
        pytest.param(
            "unrelated-key", SKIP, id="skip-when-the-unsched-pod-gets-unrelated-toleration"
        ),
    ],
)
def test_node_unschedulable_is_schedulable_after_target_pod_toleration_change(
    key: str, hint: QueueingHint
) -> None:
    plugin = NodeUnschedulable(args={}, handle=FakeHandle())
    pod = make_pod().uid("uid")
    new = make_pod().uid("uid").toleration(key, operator="Exists")
    got = plugin.is_schedulable_after_target_pod_toleration_change(
        pod.model(), pod.model(), new.model()
    )
    assert got is hint


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-pod", id="error-wrong-new-object"),
        pytest.param("not-a-pod", make_pod().model(), id="error-wrong-old-object"),
    ],
)
def test_node_unschedulable_wrong_pod_is_an_error(old: object, new: object) -> None:
    plugin = NodeUnschedulable(args={}, handle=FakeHandle())
    with pytest.raises(TypeError):
        plugin.is_schedulable_after_target_pod_toleration_change(make_pod().model(), old, new)


def test_node_unschedulable_events_to_register() -> None:
    plugin = NodeUnschedulable(args={}, handle=FakeHandle())
    assert plugin.events_to_register() == (
        ClusterEventWithHint(
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
            plugin.is_schedulable_after_node_change,
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_TOLERATION),
            plugin.is_schedulable_after_target_pod_toleration_change,
        ),
    )
