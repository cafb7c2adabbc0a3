"""InterPodAffinity's registrations and queueing hints: upstream's plugin_test.go tables
(Test_isSchedulableAfterAssignedPodChange, Test_isSchedulableAfterTargetPodUpdateLabel,
Test_isSchedulableAfterNodeChange, v1.37.2) and a few facts of upstream's code."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    EventResource,
    QueueingHint,
)
from kubesched.model import Node, Pod
from kubesched.plugins import InterPodAffinity
from kubesched.testing import FakeHandle, make_pod
from kubesched.testing.builders import PodBuilder

QUEUE = QueueingHint.QUEUE
SKIP = QueueingHint.QUEUE_SKIP
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def plugin(namespaces: dict[str, dict[str, str]] | None = None) -> InterPodAffinity:
    return InterPodAffinity(args={}, handle=FakeHandle(namespaces=namespaces))


def selector_term(topology_key: str, selector: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"labelSelector": selector, "topologyKey": topology_key, **extra}


def in_term(key: str, topology_key: str, values: list[str]) -> dict[str, Any]:
    """st `PodAffinityIn` / `PodAntiAffinityIn`."""
    expression = {"key": key, "operator": "In", "values": values}
    return selector_term(topology_key, {"matchExpressions": [expression]})


def exists_term(key: str, topology_key: str) -> dict[str, Any]:
    """st `PodAffinityExists`."""
    return selector_term(topology_key, {"matchExpressions": [{"key": key, "operator": "Exists"}]})


def with_terms(
    builder: PodBuilder,
    affinity: tuple[dict[str, Any], ...] = (),
    anti: tuple[dict[str, Any], ...] = (),
) -> PodBuilder:
    spec: dict[str, Any] = {}
    if affinity:
        spec["podAffinity"] = {REQUIRED: list(affinity)}
    if anti:
        spec["podAntiAffinity"] = {REQUIRED: list(anti)}
    return builder.affinity(spec)


def p(
    *labels: tuple[str, str],
    affinity: tuple[dict[str, Any], ...] = (),
    anti: tuple[dict[str, Any], ...] = (),
) -> Pod:
    """The pending pod `p`."""
    builder = make_pod().name("p").uid("p")
    for key, value in labels:
        builder.label(key, value)
    return with_terms(builder, affinity, anti).model()


def other(
    *labels: tuple[str, str],
    node: str = "fake-node",
    nominated: str = "",
    anti: tuple[dict[str, Any], ...] = (),
    namespace: str = "default",
) -> Pod:
    """An existing pod `other` (on `fake-node` unless `node=""`)."""
    builder = make_pod().name("other").uid("other").namespace(namespace)
    for key, value in labels:
        builder.label(key, value)
    if node:
        builder.node(node)
    if nominated:
        builder.nominated_node(nominated)
    return with_terms(builder, anti=anti).model()


SCAN = in_term("service", "region", ["securityscan", "value2"])
SCAN_ONLY = in_term("service", "region", ["securityscan"])
WEB = in_term("app", "region", ["web"])

ASSIGNED_POD_CASES: list[tuple[str, Pod, Pod | None, Pod | None, QueueingHint]] = [
    # (name, pod, old, new, hint)
    (
        "add a pod which matches the pod affinity",
        p(affinity=(SCAN,)),
        None,
        other(("service", "securityscan")),
        QUEUE,
    ),
    (
        "add an un-scheduled pod",
        p(affinity=(SCAN,)),
        None,
        other(("service", "securityscan"), node=""),
        SKIP,
    ),
    (
        "add a pod which doesn't match the pod affinity",
        p(affinity=(SCAN,)),
        None,
        other(("aaa", "a")),
        SKIP,
    ),
    (
        "update a pod from non-match to match pod affinity",
        p(affinity=(SCAN,)),
        other(("aaa", "a")),
        other(("service", "securityscan")),
        QUEUE,
    ),
    (
        "the updating pod matches target pod's affinity both before and after label changes",
        p(affinity=(SCAN,)),
        other(("service", "value2")),
        other(("service", "securityscan")),
        SKIP,
    ),
    (
        "update an un-scheduled pod",
        p(affinity=(SCAN,)),
        other(("aaa", "a"), node=""),
        other(("service", "securityscan"), node=""),
        SKIP,
    ),
    (
        "update a pod from match to non-match the pod affinity",
        p(affinity=(SCAN,)),
        other(("service", "securityscan")),
        other(("aaa", "a")),
        SKIP,
    ),
    (
        "update a pod from match to non-match pod's affinity - multiple terms case",
        p(affinity=(exists_term("aaa", "hostname"), exists_term("bbb", "hostname"))),
        other(("aaa", "a")),
        other(("service", "securityscan")),
        SKIP,
    ),
    (
        "update a pod from non-match to match pod's affinity - multiple terms case",
        p(affinity=(exists_term("aaa", "hostname"), exists_term("bbb", "hostname"))),
        other(("aaa", "a")),
        other(("aaa", ""), ("bbb", "")),
        QUEUE,
    ),
    (
        (
            "modify pod label to change it from satisfying pod anti-affinity to not satisfying"
            " anti-affinity"
        ),
        p(anti=(SCAN,)),
        other(("service", "securityscan")),
        other(("service", "aaaa")),
        QUEUE,
    ),
    (
        (
            "modify pod label to change it from not satisfying pod anti-affinity to satisfying"
            " anti-affinity"
        ),
        p(anti=(SCAN,)),
        other(("service", "bbb")),
        other(("service", "securityscan")),
        SKIP,
    ),
    (
        "delete a pod which doesn't match pod's anti-affinity",
        p(anti=(SCAN,)),
        other(("aaa", "a")),
        None,
        SKIP,
    ),
    (
        "delete a pod which matches pod's anti-affinity",
        p(anti=(SCAN,)),
        other(("service", "securityscan")),
        None,
        QUEUE,
    ),
    (
        "delete a pod with anti-affinity that matches pending pod",
        p(("service", "securityscan")),
        other(anti=(SCAN,)),
        None,
        QUEUE,
    ),
    (
        "delete a pod with anti-affinity that doesn't match pending pod",
        p(("service", "foo")),
        other(anti=(SCAN,)),
        None,
        SKIP,
    ),
    (
        (
            "delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity"
            " that doesn't match pending pod"
        ),
        p(("service", "foo"), anti=(SCAN,)),
        other(("service", "foo"), anti=(SCAN,)),
        None,
        SKIP,
    ),
    (
        "delete a nominated pod which doesn't match pod's anti-affinity",
        p(anti=(SCAN,)),
        other(("aaa", "a"), node="", nominated="fake-node"),
        None,
        SKIP,
    ),
    (
        "delete a nominated pod which matches pod's anti-affinity",
        p(anti=(SCAN,)),
        other(("service", "securityscan"), node="", nominated="fake-node"),
        None,
        QUEUE,
    ),
    (
        (
            "modify pod label to change it from matching only one of target pod's anti-affinity"
            " terms to matching none"
        ),
        p(anti=(SCAN_ONLY, WEB)),
        other(("service", "securityscan"), ("app", "bar")),
        other(("service", "foo"), ("app", "bar")),
        QUEUE,
    ),
    (
        "modify pod label but it still matches one of target pod's anti-affinity terms",
        p(anti=(SCAN_ONLY, WEB)),
        other(("service", "securityscan"), ("app", "bar")),
        other(("service", "foo"), ("app", "web")),
        SKIP,
    ),
    (
        "delete a pod which matches only one of target pod's anti-affinity terms",
        p(anti=(SCAN_ONLY, WEB)),
        other(("service", "securityscan")),
        None,
        QUEUE,
    ),
    (
        "delete a pod with anti-affinity that matches pending pod on only one term",
        p(("service", "securityscan")),
        other(anti=(SCAN_ONLY, WEB)),
        None,
        QUEUE,
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


def test_is_schedulable_after_target_pod_update_label() -> None:
    pod = make_pod().name("p").uid("p").label("foo", "baz").model()
    assert plugin().is_schedulable_after_target_pod_update_label(pod, pod, pod) == QUEUE


def node(*labels: tuple[str, str]) -> Node:
    return Node(name="node-a", labels=dict(labels))


ZONE_AFFINITY = p(affinity=(in_term("service", "zone", ["securityscan", "value2"]),))
ANOTHER = selector_term("zone", {"matchLabels": {"another": "label"}})
ZONE_ANTI = p(anti=(ANOTHER,))

NODE_CASES: list[tuple[str, Pod, Node | None, Node, QueueingHint]] = [
    # affinity
    (
        "add a new node with matched pod affinity topologyKey",
        ZONE_AFFINITY,
        None,
        node(("zone", "zone1")),
        QUEUE,
    ),
    (
        "add a new node without matched topologyKey",
        p(affinity=(SCAN,)),
        None,
        node(("zone", "zone1")),
        SKIP,
    ),
    (
        "update node label but not topologyKey",
        ZONE_AFFINITY,
        node(("aaa", "a")),
        node(("aaa", "b")),
        SKIP,
    ),
    (
        "update node label that isn't related to the pod affinity",
        ZONE_AFFINITY,
        node(("zone", "zone1")),
        node(("zone", "zone1"), ("unrelated-label", "unrelated")),
        SKIP,
    ),
    (
        "update node with different affinity topologyKey value",
        ZONE_AFFINITY,
        node(("zone", "zone1")),
        node(("zone", "zone2")),
        QUEUE,
    ),
    (
        "update node to have the affinity topology label",
        ZONE_AFFINITY,
        node(("aaa", "a")),
        node(("zone", "zone1")),
        QUEUE,
    ),
    # anti-affinity
    (
        "add a new node with matched pod anti-affinity topologyKey",
        ZONE_ANTI,
        None,
        node(("zone", "zone1")),
        QUEUE,
    ),
    (
        "add a new node without matched pod anti-affinity topologyKey",
        ZONE_ANTI,
        None,
        node(),
        QUEUE,
    ),
    (
        "update node label that isn't related to the pod anti-affinity",
        ZONE_ANTI,
        node(("zone", "zone1")),
        node(("zone", "zone1"), ("unrelated-label", "unrelated")),
        SKIP,
    ),
    (
        "update node with different anti-affinity topologyKey value",
        ZONE_ANTI,
        node(("zone", "zone1")),
        node(("zone", "zone2")),
        QUEUE,
    ),
    (
        "update node to have the anti-affinity topology label",
        ZONE_ANTI,
        node(("aaa", "a")),
        node(("zone", "zone1")),
        SKIP,
    ),
    (
        "update node label not to have anti-affinity topology label",
        ZONE_ANTI,
        node(("zone", "zone1")),
        node(("aaa", "a")),
        QUEUE,
    ),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "hint"),
    [case[1:] for case in NODE_CASES],
    ids=[case[0] for case in NODE_CASES],
)
def test_is_schedulable_after_node_change(
    pod: Pod, old: Node | None, new: Node, hint: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_node_change(pod, old, new) == hint


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
            ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_LABEL),
            pl.is_schedulable_after_target_pod_update_label,
        ),
        (
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
            pl.is_schedulable_after_node_change,
        ),
    ]


# Facts of upstream's code beyond its tables.


def test_namespace_selector_is_matched_against_no_labels() -> None:
    """Upstream's hint calls `AffinityTerm.Matches(pod, nil)` on terms whose
    `namespaceSelector` is not resolved: `{}` selects every namespace, `team: a` none (even
    a namespace labelled so), `team NotIn (b)` every one."""
    namespaces = {"ns-a": {"team": "a"}}
    added = other(("service", "securityscan"), namespace="ns-a")

    def term(namespace_selector: dict[str, Any]) -> dict[str, Any]:
        return {**SCAN, "namespaceSelector": namespace_selector}

    labelled = p(affinity=(term({"matchLabels": {"team": "a"}}),))
    everything = p(affinity=(term({}),))
    not_in = {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["b"]}]}
    pl = plugin(namespaces)
    assert pl.is_schedulable_after_assigned_pod_change(labelled, None, added) == SKIP
    assert pl.is_schedulable_after_assigned_pod_change(everything, None, added) == QUEUE
    assert pl.is_schedulable_after_assigned_pod_change(
        p(affinity=(term(not_in),)), None, added
    ) == (QUEUE)
    # A listed namespace is matched by name.
    listed = p(affinity=({**SCAN, "namespaces": ["ns-a"]},))
    assert pl.is_schedulable_after_assigned_pod_change(listed, None, added) == QUEUE


def test_terms_default_to_the_owners_namespace() -> None:
    elsewhere = other(("service", "securityscan"), namespace="other-ns")
    assert plugin().is_schedulable_after_assigned_pod_change(
        p(affinity=(SCAN,)), None, elsewhere
    ) == (SKIP)


def test_a_pod_without_terms_is_helped_only_by_a_deleted_pod_whose_anti_affinity_selects_it() -> (
    None
):
    pending = p(("service", "securityscan"))
    assigned = other(("service", "securityscan"))
    pl = plugin()
    assert pl.is_schedulable_after_assigned_pod_change(pending, None, assigned) == SKIP
    assert pl.is_schedulable_after_assigned_pod_change(pending, assigned, None) == SKIP
    assert pl.is_schedulable_after_node_change(pending, None, node(("zone", "a"))) == SKIP


def test_wrong_objects_and_invalid_selectors_raise() -> None:
    """Upstream returns an error (the queue then requeues the pod)."""
    pl = plugin()
    pod = p(affinity=(SCAN,))
    with pytest.raises(TypeError):
        pl.is_schedulable_after_assigned_pod_change(pod, None, node())
    with pytest.raises(TypeError):
        pl.is_schedulable_after_node_change(pod, None, other())
    bad = {"matchExpressions": [{"key": "k", "operator": "In", "values": []}]}
    invalid = p(anti=(selector_term("zone", bad),))
    with pytest.raises(ValueError):
        pl.is_schedulable_after_assigned_pod_change(invalid, None, other())
    # Only the required terms are parsed: an invalid preferred term does not matter.
    preferred = (
        make_pod()
        .name("p")
        .affinity(
            {
                "podAffinity": {REQUIRED: [SCAN]},
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "podAffinityTerm": selector_term("zone", bad)}
                    ]
                },
            }
        )
    )
    added = other(("service", "securityscan"))
    assert pl.is_schedulable_after_assigned_pod_change(preferred.model(), None, added) == QUEUE


def test_terms_are_compiled_once_per_pod_object() -> None:
    pl = plugin()
    pod = p(affinity=(SCAN,))
    added = other(("service", "securityscan"))
    assert pl.is_schedulable_after_assigned_pod_change(pod, None, added) == QUEUE
    cached = pl._hint_terms.of(pod, "podAffinity")
    assert pl._hint_terms.of(pod, "podAffinity") is cached
    relabelled = p(affinity=(in_term("service", "region", ["other"]),))
    assert pl.is_schedulable_after_assigned_pod_change(relabelled, None, added) == SKIP
