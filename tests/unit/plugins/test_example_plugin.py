"""Tests of examples/prefer_label: the plugin alone, enabled in a profile by name, and its
`sign_pod`, which keeps OpportunisticBatching on for its profile."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import CycleState, NodeInfo, SignPlugin, load_plugin_modules
from kubesched.plugins import in_tree_registry
from kubesched.runtime import FrameworkError, build_framework, schedule_pod
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin

EXAMPLE_DIR = Path(__file__).resolve().parents[3] / "examples" / "prefer_label"
KEY = "node-role.example.com/batch"


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(EXAMPLE_DIR))
    return importlib.import_module("prefer_label")


def nodes() -> list[NodeInfo]:
    return [
        NodeInfo(node=make_node().name("batch").label(KEY, "true").model()),
        NodeInfo(node=make_node().name("other").label(KEY, "false").model()),
        NodeInfo(node=make_node().name("plain").model()),
    ]


@pytest.mark.parametrize(
    ("args", "scores"),
    [
        ({"key": KEY}, {"batch": 100, "other": 100, "plain": 0}),
        ({"key": KEY, "values": ["true"]}, {"batch": 100, "other": 0, "plain": 0}),
    ],
)
def test_score(example: ModuleType, args: dict[str, Any], scores: dict[str, int]) -> None:
    plugin = example.PreferNodeLabel(args=args, handle=FakeHandle())
    assert run_score_plugin(plugin, make_pod().model(), nodes()) == scores


def test_required_filters(example: ModuleType) -> None:
    plugin = example.PreferNodeLabel(
        args={"key": KEY, "values": ["true"], "required": True}, handle=FakeHandle()
    )
    statuses = run_filter_plugin(plugin, make_pod().model(), nodes())
    assert statuses["batch"].is_success()
    assert statuses["plain"].message == f"node(s) didn't have label {KEY}"


@pytest.mark.parametrize("args", [{}, {"key": ""}, {"key": KEY, "colour": "red"}])
def test_bad_args(example: ModuleType, args: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="PreferNodeLabel args"):
        example.PreferNodeLabel(args=args, handle=FakeHandle())


def profile(args: dict[str, Any]) -> Profile:
    return Profile(
        scheduler_name="my-custom-scheduler",
        plugins={"multiPoint": PluginSet(enabled=(PluginRef("PreferNodeLabel", 5),))},
        plugin_config={"PreferNodeLabel": args},
    )


def test_enabled_by_plugin_module_in_a_profile(example: ModuleType) -> None:
    registry = in_tree_registry()
    load_plugin_modules(registry, ["prefer_label"])
    handle = FakeHandle(nodes=[info.node for info in nodes()])
    fw = build_framework(
        profile=profile({"key": KEY, "values": ["true"]}), registry=registry, handle=handle
    )
    assert fw.list_plugins()["score"][-1] == "PreferNodeLabel:5"
    result = schedule_pod(fw, CycleState(), make_pod().model(), handle.list_node_infos())
    assert result.suggested_host == "batch"
    with pytest.raises(FrameworkError, match=r"initializing plugin 'PreferNodeLabel'.*`key`"):
        build_framework(profile=profile({}), registry=registry, handle=handle)


def test_it_signs_every_pod_alike(example: ModuleType) -> None:
    """Its Filter and Score read nothing of the pod, so its signature is empty."""
    plugin = example.PreferNodeLabel(args={"key": KEY}, handle=FakeHandle())
    assert isinstance(plugin, SignPlugin)
    other = make_pod().name("other").label("team", "a").req(cpu="1").model()
    assert plugin.sign_pod(make_pod().model()) == plugin.sign_pod(other) == ()


SIGNING_PLUGINS = (
    PluginRef("PrioritySort"),
    PluginRef("NodeResourcesFit", 1),
    PluginRef("TaintToleration", 3),
    PluginRef("DefaultBinder"),
    PluginRef("PreferNodeLabel", 5),
)
"""A profile whose PreFilter, Filter, PreScore and Score plugins all have `sign_pod`."""


def _batched_pods(plugin_class: type) -> int:
    """Three like pods in consecutive cycles of a batching profile with `plugin_class`: how
    many were placed on the node the batch hinted (without filtering and scoring all nodes)."""
    registry = in_tree_registry()
    registry.register_class(plugin_class)
    plugins = PluginSet(enabled=SIGNING_PLUGINS, disabled=(PluginRef("*"),))
    profile = Profile(
        scheduler_name="my-custom-scheduler",
        plugins={"multiPoint": plugins},
        plugin_config={"PreferNodeLabel": {"key": KEY}},
    )
    node = make_node().label(KEY, "true").capacity(cpu="4", memory="8Gi", pods="10")
    handle = FakeHandle(nodes=[node.name(name).model() for name in ("a", "b", "c")])
    fw = build_framework(
        profile=profile, registry=registry, handle=handle, opportunistic_batching=True
    )
    assert fw.batch is not None
    for cycle in (1, 2, 3):
        pod = make_pod().name(f"p-{cycle}").req(cpu="1").model()
        schedule_pod(fw, CycleState(), pod, handle.list_node_infos(), cycle=cycle)
    return fw.batch.batched_pods


def test_its_signature_keeps_batching_on(example: ModuleType) -> None:
    """Upstream's rule: a profile batches only if each of its PreFilter, Filter, PreScore and
    Score plugins signs pods. With the example's `sign_pod` the 2nd and 3rd pods take the
    batch's hint; the same plugin without it turns batching off for the whole profile."""
    assert _batched_pods(example.PreferNodeLabel) == 2
    kept = {
        name: value
        for name, value in vars(example.PreferNodeLabel).items()
        if name not in {"sign_pod", "__dict__", "__weakref__"}
    }
    assert _batched_pods(type("PreferNodeLabel", (), kept)) == 0
