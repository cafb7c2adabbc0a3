"""NodeDeclaredFeatures: pods needing a node feature only fit nodes declaring it."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EventResource,
    QueueingHint,
)
from kubesched.model import Node, Pod
from kubesched.plugins import NodeDeclaredFeatures
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin


def node(name: str, *features: str) -> Node:
    obj = make_node().name(name).obj()
    obj["status"]["declaredFeatures"] = list(features)
    return Node.from_json(obj)


def test_a_pod_needing_a_feature_goes_to_nodes_declaring_it() -> None:
    obj = make_pod().name("p").obj()
    obj["spec"]["hostNetwork"] = True
    obj["spec"]["hostUsers"] = False
    pod = Pod.from_json(obj)
    assert pod.required_features == {"UserNamespacesHostNetworkSupport"}
    handle = FakeHandle(nodes=[node("old"), node("new", "UserNamespacesHostNetworkSupport")])
    got = run_filter_plugin(
        NodeDeclaredFeatures(args={}, handle=handle), pod, handle.list_node_infos()
    )
    assert got["new"].is_success()
    assert (got["old"].code, got["old"].message) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "node(s) didn't match Pod's required features",
    )


def test_bind_mount_options_and_restart_rules_are_inferred() -> None:
    obj = make_pod().name("p").obj()
    container = obj["spec"]["containers"][0]
    container["volumeMounts"] = [{"name": "v", "mountPath": "/v", "bindMountOptions": ["x"]}]
    container["restartPolicyRules"] = [{"action": "RestartAllContainers"}]
    assert Pod.from_json(obj).required_features == {
        "VolumeBindMountOptions",
        "RestartAllContainersOnContainerExits",
    }


def test_other_pods_skip_the_plugin() -> None:
    handle = FakeHandle(nodes=[node("old")])
    got = run_filter_plugin(
        NodeDeclaredFeatures(args={}, handle=handle),
        make_pod().name("p").model(),
        handle.list_node_infos(),
    )
    assert got["old"].is_success()


# ---- queueing hints (upstream's TestEnqueueExtensionsNodeUpdate,
# TestIsSchedulableAfterTargetPodUpdate and TestEventsToRegister) --------------------------

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        pytest.param(None, node("node-1", "FeatureA"), QUEUE, id="Node Add with feature"),
        pytest.param(
            node("node-1"), node("node-1", "FeatureA"), QUEUE, id="Node Update (Features Added)"
        ),
        pytest.param(
            node("node-1", "FeatureA"),
            node("node-1", "FeatureA"),
            SKIP,
            id="Node Update (Features Unchanged)",
        ),
    ],
)
def test_is_schedulable_after_node_change(old: Node | None, new: Node, hint: QueueingHint) -> None:
    plugin = NodeDeclaredFeatures(args={}, handle=FakeHandle())
    assert plugin.is_schedulable_after_node_change(make_pod().model(), old, new) is hint


def test_a_wrong_node_is_an_error() -> None:
    plugin = NodeDeclaredFeatures(args={}, handle=FakeHandle())
    with pytest.raises(TypeError):
        plugin.is_schedulable_after_node_change(make_pod().model(), None, "not-a-node")


def target(*, needs_feature: bool, label: str = "") -> Pod:
    """The target pod; `needs_feature`: it needs UserNamespacesHostNetworkSupport (upstream's
    table uses a mock feature instead)."""
    obj: dict[str, Any] = make_pod().name("test-pod").uid("123").obj()
    if needs_feature:
        obj["spec"]["hostNetwork"] = True
        obj["spec"]["hostUsers"] = False
    if label:
        obj["metadata"]["labels"] = {label: "bar"}
    return Pod.from_json(obj)


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        pytest.param(
            target(needs_feature=False),
            target(needs_feature=True, label="foo"),
            QUEUE,
            id="Pod Update adds requirement",
        ),
        pytest.param(
            target(needs_feature=True, label="foo"),
            target(needs_feature=False),
            QUEUE,
            id="Pod Update removes requirement",
        ),
        pytest.param(
            target(needs_feature=False),
            target(needs_feature=False),
            SKIP,
            id="Pod Update with no change in requirements",
        ),
        pytest.param(
            target(needs_feature=True),
            target(needs_feature=True, label="foo"),
            SKIP,
            id="pod update keeping its requirements",
        ),
    ],
)
def test_is_schedulable_after_target_pod_update(old: Pod, new: Pod, hint: QueueingHint) -> None:
    plugin = NodeDeclaredFeatures(args={}, handle=FakeHandle())
    assert (
        plugin.is_schedulable_after_target_pod_update(target(needs_feature=False), old, new) is hint
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, target(needs_feature=False), id="no old pod"),
        pytest.param(target(needs_feature=False), "not-a-pod", id="not a pod"),
    ],
)
def test_a_wrong_pod_is_an_error(old: object, new: object) -> None:
    plugin = NodeDeclaredFeatures(args={}, handle=FakeHandle())
    with pytest.raises(TypeError):
        plugin.is_schedulable_after_target_pod_update(target(needs_feature=False), old, new)


def test_events_to_register() -> None:
    """The plugin is always enabled: the NodeDeclaredFeatures gate is GA and locked on in
    v1.37 (upstream's `plugin enabled` case)."""
    plugin = NodeDeclaredFeatures(args={}, handle=FakeHandle())
    assert plugin.events_to_register() == (
        ClusterEventWithHint(
            ClusterEvent(
                EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE
            ),
            plugin.is_schedulable_after_node_change,
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE),
            plugin.is_schedulable_after_target_pod_update,
        ),
    )
