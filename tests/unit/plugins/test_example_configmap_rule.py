"""examples/configmap_rule: a cluster-aware plugin reading a ConfigMap through its lister."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

from kubesched.framework import Registry, load_plugin_modules
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin

EXAMPLE_DIR = Path(__file__).resolve().parents[3] / "examples" / "configmap_rule"
ZONE = "topology.kubernetes.io/zone"


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(EXAMPLE_DIR))
    return importlib.import_module("team_zones")


def _rule(zones: str) -> ApiObject:
    meta = {"name": "zones-ml", "namespace": "ns", "labels": {"kubesched.io/rule": "team-zones"}}
    return ApiObject.from_json({"metadata": meta, "data": {"zones": zones}})


def test_the_configmap_decides_which_zones_fit(example: ModuleType) -> None:
    nodes = [make_node().name(f"n-{z}").label(ZONE, z).model() for z in ("a", "b", "c")]
    handle = FakeHandle(nodes=nodes, listers=ClusterListers(example.TeamZones.resources))
    plugin = example.TeamZones(args={}, handle=handle)
    pod = make_pod().name("p").namespace("ns").label("team", "ml").model()
    refused = run_filter_plugin(plugin, pod, handle.list_node_infos())
    assert {s.message for s in refused.values()} == {"no zone rule for team ml"}
    handle.listers.add(example.CONFIGMAPS, _rule("a,c"))
    fits = run_filter_plugin(plugin, pod, handle.list_node_infos())
    assert {name for name, s in fits.items() if s.is_success()} == {"n-a", "n-c"}
    assert fits["n-b"].message == "node(s) outside team ml's zones"


@pytest.mark.parametrize(
    ("folder", "module", "plugin"),
    [
        ("configmap_rule", "team_zones", "TeamZones"),
        ("prefer_label", "prefer_label", "PreferNodeLabel"),
    ],
)
def test_every_example_loads_with_plugin_module(
    monkeypatch: pytest.MonkeyPatch, folder: str, module: str, plugin: str
) -> None:
    """`--plugin-module <example>` works as docs/writing-plugins.md says (its `register()`)."""
    monkeypatch.syspath_prepend(str(EXAMPLE_DIR.parent / folder))
    registry = Registry()
    load_plugin_modules(registry, [module])
    assert plugin in registry.names()
