"""Tests of examples/prefer_label: the plugin alone, and enabled in a profile by name."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import CycleState, NodeInfo, load_plugin_modules
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
