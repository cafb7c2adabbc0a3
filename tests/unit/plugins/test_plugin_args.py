"""The typed args of the in-tree plugins: every default plugin that takes args has its type,
whose defaults are what `--write-config-to` writes; `from_v1` and `to_v1` round-trip."""

from typing import Any

import pytest
import yaml

from kubesched.apis.defaults import DEFAULT_MULTI_POINT, DEFAULT_PLUGIN_ARGS
from kubesched.config import dump_config, load_config
from kubesched.plugins import IN_TREE_PLUGINS
from kubesched.plugins.helper.args import ArgsError
from kubesched.plugins.plugin_args import PLUGIN_ARGS, default_plugin_args
from kubesched.testing import FakeHandle

_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
KUBE_SCHEDULER_DEFAULTS = {
    "DefaultPreemption": {"minCandidateNodesAbsolute": 100, "minCandidateNodesPercentage": 10},
    "DynamicResources": {"bindingTimeout": "10m0s", "filterTimeout": "10s"},
    "InterPodAffinity": {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": False},
    "NodeAffinity": {},
    "NodeResourcesBalancedAllocation": {"resources": _RESOURCES},
    "NodeResourcesFit": {"scoringStrategy": {"resources": _RESOURCES, "type": "LeastAllocated"}},
    "PodTopologySpread": {"defaultingType": "System"},
    "VolumeBinding": {
        "bindTimeoutSeconds": 600,
        "shape": [{"score": 10, "utilization": 0}, {"score": 0, "utilization": 100}],
    },
}
"""kube-scheduler v1.37.2's `--write-config-to` pluginConfig args of its default profile."""


def _plugin_name(plugin: type) -> str:
    """The `name` class attribute every in-tree plugin class carries."""
    name = getattr(plugin, "name", None)
    assert isinstance(name, str), plugin
    return name


_BY_NAME = {_plugin_name(plugin): plugin for plugin in IN_TREE_PLUGINS}


@pytest.mark.parametrize("name", [ref.name for ref in DEFAULT_MULTI_POINT])
def test_every_default_plugin_with_args_has_its_type(name: str) -> None:
    if name in PLUGIN_ARGS:
        assert f"{name}Args" == PLUGIN_ARGS[name].KIND
        return
    with pytest.raises(ValueError, match="takes no args"):
        _BY_NAME[name](args={"any": 1}, handle=FakeHandle())


def test_the_defaults_written_are_the_types_defaults() -> None:
    derived = default_plugin_args()
    assert derived == KUBE_SCHEDULER_DEFAULTS
    assert derived == DEFAULT_PLUGIN_ARGS
    assert list(derived) == [ref.name for ref in DEFAULT_MULTI_POINT if ref.name in PLUGIN_ARGS]


def test_the_dump_writes_each_types_default_in_its_key_order() -> None:
    config = load_config([], environ={}).config
    (profile,) = yaml.safe_load(dump_config(config))["profiles"]
    written = {entry["name"]: entry["args"] for entry in profile["pluginConfig"]}
    for name, args_type in PLUGIN_ARGS.items():
        if name not in written:
            continue
        expected = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": args_type.KIND,
            **args_type.default().to_v1(),
        }
        assert written[name] == expected
        assert list(written[name]) == list(expected)  # sorted as kube-scheduler writes them


@pytest.mark.parametrize("name", sorted(PLUGIN_ARGS))
def test_no_args_decode_to_the_default(name: str) -> None:
    args_type = PLUGIN_ARGS[name]
    assert args_type.from_v1({}) == args_type.default()
    assert args_type.from_v1(args_type.default().to_v1()) == args_type.default()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (
            "NodeResourcesFit",
            {
                "ignoredResourceGroups": ["example.com"],
                "ignoredResources": ["foo.io/bar"],
                "scoringStrategy": {
                    "requestedToCapacityRatio": {
                        "shape": [{"score": 0, "utilization": 0}, {"score": 10, "utilization": 80}]
                    },
                    "resources": [{"name": "cpu", "weight": 3}],
                    "type": "RequestedToCapacityRatio",
                },
            },
        ),
        (
            "NodeResourcesBalancedAllocation",
            {
                "resources": [
                    {"name": "memory", "weight": 1},
                    {"name": "example.com/gpu", "weight": 1},
                ]
            },
        ),
        (
            "InterPodAffinity",
            {"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": True},
        ),
        (
            "NodeAffinity",
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "a", "operator": "Exists"}]}
                        ]
                    }
                }
            },
        ),
        (
            "PodTopologySpread",
            {
                "defaultConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
                ],
                "defaultingType": "List",
            },
        ),
        ("DefaultPreemption", {"minCandidateNodesAbsolute": 0, "minCandidateNodesPercentage": 5}),
        ("VolumeBinding", {"bindTimeoutSeconds": 30, "shape": [{"score": 3, "utilization": 50}]}),
        ("DynamicResources", {"bindingTimeout": "1m0s", "filterTimeout": "0s"}),
        (
            "Coscheduling",
            {
                "permitWaitingTimeSeconds": 5,
                "podGroupBackoffSeconds": 1,
                "podGroupRejectPercentage": 0,
            },
        ),
    ],
)
def test_from_v1_and_to_v1_round_trip(name: str, args: dict[str, Any]) -> None:
    assert PLUGIN_ARGS[name].from_v1(args).to_v1() == args


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            {"filterTimeout": "-1s"},
            'DynamicResourcesArgs.filterTimeout: Invalid value: "-1s": must be zero or positive',
        ),
        (
            {"bindingTimeout": "500ms"},
            (
                'DynamicResourcesArgs.bindingTimeout: Invalid value: "500ms": '
                "must be at least 1 second"
            ),
        ),
        ({"filterTimeout": 5}, "DynamicResourcesArgs.filterTimeout: expected a duration, got 5"),
        ({"timeout": "1s"}, 'DynamicResourcesArgs: unknown field "timeout"'),
    ],
)
def test_dynamic_resources_args_are_validated_as_upstream(args: dict[str, Any], error: str) -> None:
    with pytest.raises(ArgsError) as caught:
        PLUGIN_ARGS["DynamicResources"].from_v1(args)
    assert str(caught.value).startswith(error)
