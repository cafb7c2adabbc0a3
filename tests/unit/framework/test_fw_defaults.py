from __future__ import annotations

import pytest

from kubesched.apis.config import PluginRef, PluginSet
from kubesched.apis.defaults import DEFAULT_MULTI_POINT, default_plugins, merge_plugin_set

DEFAULTS = PluginSet(enabled=(PluginRef("A", 3), PluginRef("B"), PluginRef("C", 1)))


def names(plugin_set: PluginSet) -> list[tuple[str, int | None]]:
    return [(ref.name, ref.weight) for ref in plugin_set.enabled]


@pytest.mark.parametrize(
    ("custom", "expected"),
    [
        pytest.param(PluginSet(), [("A", 3), ("B", None), ("C", 1)], id="defaults-only"),
        pytest.param(PluginSet(disabled=(PluginRef("B"),)), [("A", 3), ("C", 1)], id="disable-one"),
        pytest.param(PluginSet(disabled=(PluginRef("*"),)), [], id="disable-all"),
        pytest.param(
            PluginSet(enabled=(PluginRef("X"),), disabled=(PluginRef("*"),)),
            [("X", None)],
            id="replace-all",
        ),
        pytest.param(
            PluginSet(enabled=(PluginRef("C", 5),)),
            [("A", 3), ("B", None), ("C", 5)],
            id="reconfigure-in-place",
        ),
        pytest.param(
            PluginSet(enabled=(PluginRef("Y"), PluginRef("A", 7), PluginRef("X"))),
            [("A", 7), ("B", None), ("C", 1), ("Y", None), ("X", None)],
            id="custom-appended-in-order",
        ),
    ],
)
def test_merge_plugin_set_like_upstream(
    custom: PluginSet, expected: list[tuple[str, int | None]]
) -> None:
    assert names(merge_plugin_set(DEFAULTS, custom)) == expected


def test_disabled_names_are_kept_for_multipoint_expansion() -> None:
    merged = merge_plugin_set(PluginSet(), PluginSet(disabled=(PluginRef("*"),)))
    assert [ref.name for ref in merged.disabled] == ["*"]


def test_default_weights_follow_upstream() -> None:
    weights = {ref.name: ref.weight for ref in DEFAULT_MULTI_POINT if ref.weight}
    assert weights == {
        "TaintToleration": 3,
        "NodeAffinity": 2,
        "NodeResourcesFit": 1,
        "PodTopologySpread": 2,
        "InterPodAffinity": 2,
        "DynamicResources": 2,
        "NodeResourcesBalancedAllocation": 1,
        "ImageLocality": 1,
    }


def test_defaults_are_limited_to_available_plugins() -> None:
    plugins = default_plugins(frozenset({"PrioritySort", "DefaultBinder"}))
    assert names(plugins["multiPoint"]) == [("PrioritySort", None), ("DefaultBinder", None)]
