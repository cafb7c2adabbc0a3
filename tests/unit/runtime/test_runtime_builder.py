from __future__ import annotations

from typing import Any

import pytest

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.plugins import in_tree_registry
from kubesched.runtime import Framework, FrameworkError, build_framework, check_common_queue_sort
from kubesched.testing import FakeHandle

# kube-scheduler v1.37.2's own order (`kube-scheduler --write-config-to`): NodeName first.
DEFAULT_FILTERS = [
    "NodeName",
    "NodeUnschedulable",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
    "NodeDeclaredFeatures",
]


class Custom:
    """Filter + Score plugin for multiPoint expansion tests."""

    name = "Custom"

    def __init__(self, *, args: dict[str, Any], handle: Any) -> None:
        self.args = args

    def filter(self, *_: Any) -> None:
        return None

    def score(self, *_: Any) -> int:
        return 0


def build(
    plugins: dict[str, PluginSet] | None = None,
    plugin_config: dict[str, dict[str, Any]] | None = None,
    *,
    name: str = "my-scheduler",
) -> Framework:
    registry = in_tree_registry()
    registry.register_class(Custom)
    profile = Profile(scheduler_name=name, plugins=plugins or {}, plugin_config=plugin_config or {})
    return build_framework(profile=profile, registry=registry, handle=FakeHandle())


def enabled(*refs: str | tuple[str, int]) -> PluginSet:
    return PluginSet(
        enabled=tuple(PluginRef(r) if isinstance(r, str) else PluginRef(*r) for r in refs)
    )


def disabled(*names: str) -> PluginSet:
    return PluginSet(disabled=tuple(PluginRef(n) for n in names))


def test_default_profile_has_upstream_plugins_and_weights() -> None:
    fw = build()
    listed = fw.list_plugins()
    assert listed["queueSort"] == ["PrioritySort"]
    assert listed["preEnqueue"] == ["SchedulingGates", "DynamicResources", "DefaultPreemption"]
    assert listed["filter"] == DEFAULT_FILTERS
    assert listed["score"] == [
        "TaintToleration:3",
        "NodeAffinity:2",
        "NodeResourcesFit:1",
        "VolumeBinding:1",
        "PodTopologySpread:2",
        "InterPodAffinity:2",
        "DynamicResources:2",
        "NodeResourcesBalancedAllocation:1",
        "ImageLocality:1",
    ]
    assert listed["bind"] == ["DefaultBinder"]
    assert listed["postFilter"] == ["DynamicResources", "DefaultPreemption"]


def test_star_disables_every_default_at_one_point_only() -> None:
    fw = build({"score": disabled("*")})
    assert not fw.has_score_plugins
    assert fw.list_plugins()["filter"] == DEFAULT_FILTERS


def test_disabling_one_default_and_enabling_a_custom_plugin() -> None:
    fw = build(
        {"filter": PluginSet(enabled=(PluginRef("Custom"),), disabled=(PluginRef("NodePorts"),))}
    )
    filters = fw.list_plugins()["filter"]
    assert "NodePorts" not in filters
    assert filters[-1] == "Custom"
    assert "NodePorts" in fw.list_plugins()["preFilter"]  # still enabled at other points


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        pytest.param({"score": enabled(("NodeAffinity", 5))}, 5, id="score-point-overrides"),
        pytest.param({"multiPoint": enabled(("NodeAffinity", 7))}, 7, id="multipoint-reconfigured"),
        pytest.param({"score": enabled("NodeAffinity")}, 1, id="no-weight-means-1"),
    ],
)
def test_weights(plugins: dict[str, PluginSet], expected: int) -> None:
    assert build(plugins).score_weights["NodeAffinity"] == expected


def test_score_point_override_moves_plugin_first() -> None:
    fw = build({"score": enabled(("NodeAffinity", 5))})
    assert fw.list_plugins()["score"][0] == "NodeAffinity:5"


def test_custom_plugin_in_multipoint_expands_to_its_points() -> None:
    fw = build({"multiPoint": enabled(("Custom", 4))})
    listed = fw.list_plugins()
    assert listed["filter"][-1] == "Custom"
    assert listed["score"][-1] == "Custom:4"
    assert "Custom" not in listed.get("preFilter", [])


def test_unknown_plugin_error_names_profile_point_and_choices() -> None:
    with pytest.raises(FrameworkError) as info:
        build({"filter": enabled("NodeResoucesFit")}, name="batch")
    message = str(info.value)
    assert message.startswith(
        """profile 'batch': FilterPlugin "NodeResoucesFit" does not exist (enabled at filter)"""
    )
    choices = ", ".join(sorted([*in_tree_registry().names(), "Custom"]))
    assert f"available plugins: {choices}" in message


@pytest.mark.parametrize(
    ("point", "upstream_type"),
    [
        ("queueSort", "QueueSortPlugin"),
        ("preEnqueue", "PreEnqueuePlugin"),
        ("preFilter", "PreFilterPlugin"),
        ("filter", "FilterPlugin"),
        ("postFilter", "PostFilterPlugin"),
        ("preScore", "PreScorePlugin"),
        ("score", "ScorePlugin"),
        ("reserve", "ReservePlugin"),
        ("permit", "PermitPlugin"),
        ("preBind", "PreBindPlugin"),
        ("bind", "BindPlugin"),
        ("postBind", "PostBindPlugin"),
    ],
)
def test_unknown_plugin_is_reported_with_kube_schedulers_text(
    point: str, upstream_type: str
) -> None:
    """framework.go's `%s %q does not exist`, named by the Go interface of the point."""
    with pytest.raises(FrameworkError, match=f': {upstream_type} "Nope" does not exist') as info:
        build({point: enabled("Nope")})
    assert f"(enabled at {point})" in str(info.value)


def test_unknown_multipoint_plugin_is_named_at_the_first_point_upstream_expands() -> None:
    with pytest.raises(FrameworkError, match='PreFilterPlugin "Nope" does not exist') as info:
        build({"multiPoint": enabled("Nope")})
    assert "(enabled at multiPoint)" in str(info.value)
    no_pre_filter = {"multiPoint": enabled("Nope"), "preFilter": disabled("*")}
    with pytest.raises(FrameworkError, match=': FilterPlugin "Nope" does not exist'):
        build(no_pre_filter)


def test_unknown_plugin_config_name_is_an_error() -> None:
    with pytest.raises(
        FrameworkError, match="pluginConfig names plugin 'Nope', which does not exist"
    ):
        build(plugin_config={"Nope": {}})


def test_plugin_config_reaches_the_factory_and_bad_args_are_reported() -> None:
    fw = build({"filter": enabled("Custom")}, {"Custom": {"x": 1}})
    assert fw.plugins.filter[-1].args == {"x": 1}  # type: ignore[attr-defined]
    with pytest.raises(FrameworkError, match=r"initializing plugin 'NodeResourcesFit'.*bogus"):
        build(plugin_config={"NodeResourcesFit": {"bogus": 1}})


@pytest.mark.parametrize(
    ("plugins", "message"),
    [
        pytest.param(
            {"bind": enabled("PrioritySort")}, "does not extend BindPlugin plugin", id="wrong-point"
        ),
        pytest.param(
            {"queueSort": disabled("*")}, "exactly one queueSort plugin", id="no-queue-sort"
        ),
        pytest.param({"bind": disabled("*")}, "at least one bind plugin", id="no-binder"),
        pytest.param(
            {"filter": enabled("Custom", "Custom")},
            'already registered as "FilterPlugin"',
            id="duplicate",
        ),
    ],
)
def test_invalid_profiles(plugins: dict[str, PluginSet], message: str) -> None:
    with pytest.raises(FrameworkError, match=message):
        build(plugins)


def test_percentage_of_nodes_to_score_profile_wins_over_global() -> None:
    registry = in_tree_registry()
    own = Profile(percentage_of_nodes_to_score=30)
    fw = build_framework(
        profile=own, registry=registry, handle=FakeHandle(), default_percentage_of_nodes_to_score=10
    )
    assert fw.percentage_of_nodes_to_score == 30
    fw = build_framework(
        profile=Profile(),
        registry=registry,
        handle=FakeHandle(),
        default_percentage_of_nodes_to_score=10,
    )
    assert fw.percentage_of_nodes_to_score == 10


def test_profiles_must_share_the_queue_sort_plugin() -> None:
    class OtherSort:
        name = "OtherSort"

        def __init__(self, *, args: Any, handle: Any) -> None:
            pass

        def less(self, *_: Any) -> bool:
            return False

    registry = in_tree_registry()
    registry.register_class(OtherSort)
    other = Profile(
        scheduler_name="b",
        plugins={
            "queueSort": PluginSet(enabled=(PluginRef("OtherSort"),), disabled=(PluginRef("*"),))
        },
    )
    first = build_framework(
        profile=Profile(scheduler_name="a"), registry=registry, handle=FakeHandle()
    )
    second = build_framework(profile=other, registry=registry, handle=FakeHandle())
    check_common_queue_sort([first, first])
    with pytest.raises(
        FrameworkError, match="profile 'a' uses PrioritySort, profile 'b' uses OtherSort"
    ):
        check_common_queue_sort([first, second])
