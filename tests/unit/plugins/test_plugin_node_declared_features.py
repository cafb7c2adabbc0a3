"""NodeDeclaredFeatures: pods needing a node feature only fit nodes declaring it."""

from __future__ import annotations

from kubesched.framework import Code
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
