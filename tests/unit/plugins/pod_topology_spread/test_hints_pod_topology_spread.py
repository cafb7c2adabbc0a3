"""PodTopologySpread's registrations and queueing hints: upstream's plugin_test.go tables
(Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterAssignedPodChange,
Test_isSchedulableAfterTargetPodChange, v1.37.2; the plugin with `defaultingType: List` and
no default constraints, as there) and a few facts of upstream's code."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import REPLICA_SETS, ActionType, ClusterEvent, EventResource, QueueingHint
from kubesched.model import Node, Pod
from kubesched.model.node import Taint
from kubesched.plugins import PodTopologySpread
from kubesched.testing import FakeHandle, make_pod
from kubesched.testing.builders import PodBuilder

QUEUE = QueueingHint.QUEUE
SKIP = QueueingHint.QUEUE_SKIP
LIST = {"defaultingType": "List"}


def plugin(
    args: dict[str, Any] | None = None, replica_sets: tuple[dict[str, Any], ...] = ()
) -> PodTopologySpread:
    handle = FakeHandle(objects=[(REPLICA_SETS, rs) for rs in replica_sets])
    return PodTopologySpread(args=LIST if args is None else args, handle=handle)


def exists(key: str) -> dict[str, Any]:
    """upstream's `fooSelector` / `barSelector`."""
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


def spread(builder: PodBuilder, key: str, selector: str, **fields: Any) -> PodBuilder:
    """st `SpreadConstraint(1, key, DoNotSchedule, <selector Exists>, ...)`."""
    return builder.spread_constraint(1, key, labelSelector=exists(selector), **fields)


def pod(*labels: str, name: str = "p") -> PodBuilder:
    builder = make_pod().name(name).uid(name)
    for key in labels:
        builder.label(key, "")
    return builder


def zone_and_node() -> Pod:
    return spread(spread(pod(), "zone", "foo"), "node", "foo").model()


ZONE = spread(pod(), "zone", "foo").model()


def node(*labels: tuple[str, str], taints: tuple[Taint, ...] = ()) -> Node:
    return Node(name="node-a", labels=dict(labels), taints=taints)


def taint(key: str) -> tuple[Taint, ...]:
    return (Taint(key, "bbb", "NoSchedule"),)


NODE_CASES: list[tuple[str, Pod, Node | None, Node | None, QueueingHint]] = [
    (
        "node updates label which matches topologyKey",
        ZONE,
        node(("zone", "zone1")),
        node(("zone", "zone2")),
        QUEUE,
    ),
    (
        "node that doesn't match topologySpreadConstraints updates non-related label",
        ZONE,
        node(("foo", "bar1")),
        node(("foo", "bar2")),
        SKIP,
    ),
    (
        "node that match topologySpreadConstraints adds non-related label",
        zone_and_node(),
        node(("zone", "zone1"), ("node", "node1"), ("foo", "bar")),
        node(("zone", "zone1"), ("node", "node1")),
        SKIP,
    ),
    ("create node with non-related labels", ZONE, None, node(("foo", "bar")), SKIP),
    ("create node with related labels", ZONE, None, node(("zone", "zone1")), QUEUE),
    ("delete node with non-related labels", ZONE, node(("foo", "bar")), None, SKIP),
    ("delete node with related labels", ZONE, node(("zone", "zone1")), None, QUEUE),
    (
        "add node with related labels that only match one of topologySpreadConstraints",
        zone_and_node(),
        None,
        node(("zone", "zone1")),
        SKIP,
    ),
    (
        "add node with related labels that match all topologySpreadConstraints",
        zone_and_node(),
        None,
        node(("zone", "zone1"), ("node", "node1")),
        QUEUE,
    ),
    (
        "update node with related labels that only match one of topologySpreadConstraints",
        zone_and_node(),
        node(("zone", "zone1")),
        node(("zone", "zone1")),
        SKIP,
    ),
    (
        "update node with related labels that match all topologySpreadConstraints",
        zone_and_node(),
        node(("zone", "zone1"), ("node", "node1")),
        node(("zone", "zone1"), ("node", "node2")),
        QUEUE,
    ),
    (
        "update node with different taints that match all topologySpreadConstraints",
        zone_and_node(),
        node(("zone", "zone1"), ("node", "node1"), taints=taint("aaa")),
        node(("zone", "zone1"), ("node", "node1"), taints=taint("ccc")),
        QUEUE,
    ),
    (
        "update node with different taints that only match one of topologySpreadConstraints",
        zone_and_node(),
        node(("node", "node1"), taints=taint("aaa")),
        node(("node", "node1"), taints=taint("ccc")),
        SKIP,
    ),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "hint"),
    [case[1:] for case in NODE_CASES],
    ids=[case[0] for case in NODE_CASES],
)
def test_is_schedulable_after_node_change(
    pod: Pod, old: Node | None, new: Node | None, hint: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_node_change(pod, old, new) == hint


def foo_pending() -> Pod:
    return spread(pod("foo"), "zone", "foo").model()


def foo_bar_pending() -> Pod:
    return spread(spread(pod("foo"), "zone", "foo"), "node", "bar").model()


def p2(
    *labels: tuple[str, str], node: str = "fake-node", nominated: str = "", namespace: str = ""
) -> Pod:
    builder = make_pod().name("p2").uid("p2")
    if namespace:
        builder.namespace(namespace)
    for key, value in labels:
        builder.label(key, value)
    if node:
        builder.node(node)
    if nominated:
        builder.nominated_node(nominated)
    return builder.model()


ASSIGNED_POD_CASES: list[tuple[str, Pod, Pod | None, Pod | None, QueueingHint]] = [
    (
        "add pod with labels match topologySpreadConstraints selector",
        foo_pending(),
        None,
        p2(("foo", "")),
        QUEUE,
    ),
    ("add un-scheduled pod", foo_pending(), None, p2(("foo", ""), node=""), SKIP),
    (
        "update un-scheduled pod",
        foo_pending(),
        p2(("bar", ""), node=""),
        p2(("foo", ""), node=""),
        SKIP,
    ),
    ("delete un-scheduled pod", foo_pending(), p2(("foo", ""), node=""), None, SKIP),
    (
        "add pod with different namespace",
        foo_pending(),
        None,
        p2(("foo", ""), namespace="fake-namespace"),
        SKIP,
    ),
    (
        "add pod with labels don't match topologySpreadConstraints selector",
        foo_pending(),
        None,
        p2(("bar", "")),
        SKIP,
    ),
    (
        "delete pod with labels that match topologySpreadConstraints selector",
        foo_pending(),
        p2(("foo", "")),
        None,
        QUEUE,
    ),
    (
        "delete nominated pod with labels that don't match topologySpreadConstraints selector",
        foo_pending(),
        p2(("bar", ""), node="", nominated="fake-node"),
        None,
        SKIP,
    ),
    (
        "delete nominated pod with labels that match topologySpreadConstraints selector",
        foo_pending(),
        p2(("foo", ""), node="", nominated="fake-node"),
        None,
        QUEUE,
    ),
    (
        "delete pod with labels that don't match topologySpreadConstraints selector",
        foo_pending(),
        p2(("bar", "")),
        None,
        SKIP,
    ),
    (
        "update pod's non-related label",
        foo_pending(),
        p2(("foo", ""), ("bar", "bar1")),
        p2(("foo", ""), ("bar", "bar2")),
        SKIP,
    ),
    (
        "add pod's label that matches topologySpreadConstraints selector",
        foo_pending(),
        p2(),
        p2(("foo", "")),
        QUEUE,
    ),
    (
        "delete pod label that matches topologySpreadConstraints selector",
        foo_pending(),
        p2(("foo", "")),
        p2(),
        QUEUE,
    ),
    (
        "change pod's label that matches topologySpreadConstraints selector",
        foo_pending(),
        p2(("foo", "foo1")),
        p2(("foo", "foo2")),
        SKIP,
    ),
    (
        "change pod's label that doesn't match topologySpreadConstraints selector",
        foo_pending(),
        p2(("foo", ""), ("bar", "bar1")),
        p2(("foo", ""), ("bar", "bar2")),
        SKIP,
    ),
    (
        (
            "add pod's label that matches topologySpreadConstraints selector with multi"
            " topologySpreadConstraints"
        ),
        foo_bar_pending(),
        p2(("foo", "")),
        p2(("foo", ""), ("bar", "bar2")),
        QUEUE,
    ),
    (
        (
            "change pod's label that doesn't match topologySpreadConstraints selector with multi"
            " topologySpreadConstraints"
        ),
        foo_bar_pending(),
        p2(("foo", "")),
        p2(("foo", ""), ("baz", "")),
        SKIP,
    ),
    (
        (
            "change pod's label that match topologySpreadConstraints selector with multi"
            " topologySpreadConstraints"
        ),
        foo_bar_pending(),
        p2(("foo", ""), ("bar", "")),
        p2(("foo", ""), ("bar", "bar2")),
        SKIP,
    ),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "hint"),
    [case[1:] for case in ASSIGNED_POD_CASES],
    ids=[case[0] for case in ASSIGNED_POD_CASES],
)
def test_is_schedulable_after_assigned_pod_change(
    pod: Pod, old: Pod | None, new: Pod | None, hint: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_assigned_pod_change(pod, old, new) == hint


def target(taints_policy: str) -> Pod:
    builder = spread(pod("foo"), "zone", "foo", nodeTaintsPolicy=taints_policy)
    return spread(builder, "node", "bar").model()


TARGET_POD_CASES: list[tuple[str, Pod, Pod, Pod, QueueingHint]] = [
    (
        (
            "the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and"
            " has got a new toleration"
        ),
        target("Honor"),
        pod("foo").model(),
        pod("foo").toleration("node.kubernetes.io/unschedulable", operator="Exists").model(),
        QUEUE,
    ),
    (
        (
            "the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor"
            " and has got a new toleration"
        ),
        target("Ignore"),
        pod("foo").model(),
        pod("foo").toleration("node.kubernetes.io/unschedulable", operator="Exists").model(),
        SKIP,
    ),
    (
        (
            "the unschedulable Pod has topologySpreadConstraint and has got a new label matching"
            " the selector of the constraint"
        ),
        target("Ignore"),
        pod().model(),
        pod("foo").model(),
        QUEUE,
    ),
    (
        "the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
        target("Ignore"),
        pod().model(),
        pod("unrelated").model(),
        SKIP,
    ),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "hint"),
    [case[1:] for case in TARGET_POD_CASES],
    ids=[case[0] for case in TARGET_POD_CASES],
)
def test_is_schedulable_after_target_pod_change(
    pod: Pod, old: Pod, new: Pod, hint: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_target_pod_change(pod, old, new) == hint


def test_events_to_register_are_upstreams() -> None:
    pl = plugin()
    registered = [(r.event, r.hint) for r in pl.events_to_register()]
    assert registered == [
        (
            ClusterEvent(
                EventResource.ASSIGNED_POD,
                ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
            ),
            pl.is_schedulable_after_assigned_pod_change,
        ),
        (
            ClusterEvent(
                EventResource.TARGET_POD,
                ActionType.UPDATE_POD_TOLERATION | ActionType.UPDATE_POD_LABEL,
            ),
            pl.is_schedulable_after_target_pod_change,
        ),
        (
            ClusterEvent(
                EventResource.NODE,
                ActionType.ADD
                | ActionType.DELETE
                | ActionType.UPDATE_NODE_LABEL
                | ActionType.UPDATE_NODE_TAINT,
            ),
            pl.is_schedulable_after_node_change,
        ),
    ]


# Facts of upstream's code beyond its tables.


def test_only_do_not_schedule_constraints_count() -> None:
    """`getConstraints` reads the DoNotSchedule constraints: without any (here only a
    ScheduleAnyway one), every node "matches" and no pod is selected."""
    soft = pod("foo").spread_constraint(1, "zone", "ScheduleAnyway", labelSelector=exists("foo"))
    pending = soft.model()
    pl = plugin()
    assert pl.is_schedulable_after_node_change(pending, None, node()) == QUEUE
    assert pl.is_schedulable_after_node_change(pending, node(), None) == QUEUE
    assert pl.is_schedulable_after_node_change(pending, node(), node(("zone", "a"))) == SKIP
    assert pl.is_schedulable_after_assigned_pod_change(pending, None, p2(("foo", ""))) == SKIP


WEB_RS = {
    "metadata": {"namespace": "default", "name": "web"},
    "spec": {"selector": {"matchLabels": {"app": "web"}}},
}
HARD_DEFAULTS = {
    "defaultingType": "List",
    "defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
    ],
}


def test_default_constraints_select_by_the_pods_controller() -> None:
    """A pod without constraints gets the default ones, with its controller's selector, as
    PreFilter; the system defaults are ScheduleAnyway, so they never count here."""
    web = make_pod().name("web-1").uid("web-1").label("app", "web").owner("ReplicaSet", "web")
    pending = web.model()
    added = p2(("app", "web"))
    other = p2(("app", "db"))
    listed = plugin(HARD_DEFAULTS, (WEB_RS,))
    assert listed.is_schedulable_after_assigned_pod_change(pending, None, added) == QUEUE
    assert listed.is_schedulable_after_assigned_pod_change(pending, None, other) == SKIP
    assert listed.is_schedulable_after_node_change(pending, None, node()) == SKIP
    assert listed.is_schedulable_after_node_change(pending, None, node(("zone", "a"))) == QUEUE
    # Its ReplicaSet unknown: no default constraints.
    unknown = plugin(HARD_DEFAULTS)
    assert unknown.is_schedulable_after_assigned_pod_change(pending, None, added) == SKIP
    system = plugin({}, (WEB_RS,))
    assert system.is_schedulable_after_assigned_pod_change(pending, None, added) == SKIP
    assert system.is_schedulable_after_node_change(pending, None, node()) == QUEUE


def test_match_label_keys_narrow_the_selector() -> None:
    pending = (
        pod("foo")
        .label("rev", "1")
        .spread_constraint(1, "zone", labelSelector=exists("foo"), matchLabelKeys=["rev"])
        .model()
    )
    pl = plugin()
    assert pl.is_schedulable_after_assigned_pod_change(
        pending, None, p2(("foo", ""), ("rev", "1"))
    ) == (QUEUE)
    assert pl.is_schedulable_after_assigned_pod_change(
        pending, None, p2(("foo", ""), ("rev", "2"))
    ) == (SKIP)


def test_a_node_update_that_changes_only_unrelated_fields_is_skipped() -> None:
    pl = plugin()
    before = node(("zone", "a"))
    after = Node(name="node-a", labels={"zone": "a"}, unschedulable=True)
    assert pl.is_schedulable_after_node_change(ZONE, before, after) == SKIP


def test_wrong_objects_and_invalid_selectors_raise() -> None:
    pl = plugin()
    with pytest.raises(TypeError):
        pl.is_schedulable_after_node_change(ZONE, None, p2())
    with pytest.raises(TypeError):
        pl.is_schedulable_after_assigned_pod_change(ZONE, node(), None)
    with pytest.raises(TypeError):
        pl.is_schedulable_after_target_pod_change(ZONE, None, ZONE)
    bad = {"matchExpressions": [{"key": "foo", "operator": "In", "values": []}]}
    invalid = pod().spread_constraint(1, "zone", labelSelector=bad).model()
    with pytest.raises(ValueError):
        pl.is_schedulable_after_node_change(invalid, None, node())
