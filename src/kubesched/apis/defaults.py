"""The default plugin set and its merge with a profile's plugins, as upstream's v1 defaulting
(upstream `pkg/scheduler/apis/config/v1/default_plugins.go`).

Upstream enables every default plugin through `multiPoint` (with score weights). A profile's
per-extension-point `enabled`/`disabled` lists are merged into the defaults of the same
extension point (`mergePluginSet`):

* `disabled: [{name: "*"}]` drops every default of that extension point;
* a disabled name drops that default;
* an enabled name that is also a default replaces it in place (new weight, same position);
* other enabled names are appended after the defaults, in the user's order.

The disabled names are kept: when multiPoint is expanded, a plugin disabled at an extension
point (or `*`) is not inserted there (see `builder`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.apis import names
from kubesched.apis.config import EXTENSION_POINTS, MULTI_POINT, WILDCARD, PluginRef, PluginSet

# Upstream's v1 default list: all of v1.37's. DynamicResources refuses pods with resource
# claims (their allocation is not implemented; see plugins/dynamic_resources).
DEFAULT_MULTI_POINT: tuple[PluginRef, ...] = (
    PluginRef(names.SCHEDULING_GATES),
    PluginRef(names.PRIORITY_SORT),
    PluginRef(names.NODE_NAME),
    PluginRef(names.NODE_UNSCHEDULABLE),
    PluginRef(names.TAINT_TOLERATION, 3),
    PluginRef(names.NODE_AFFINITY, 2),
    PluginRef(names.NODE_PORTS),
    PluginRef(names.NODE_RESOURCES_FIT, 1),
    PluginRef(names.VOLUME_RESTRICTIONS),
    PluginRef(names.NODE_VOLUME_LIMITS),
    PluginRef(names.VOLUME_BINDING),
    PluginRef(names.VOLUME_ZONE),
    PluginRef(names.POD_TOPOLOGY_SPREAD, 2),
    PluginRef(names.INTER_POD_AFFINITY, 2),
    PluginRef(names.DYNAMIC_RESOURCES, 2),
    PluginRef(names.DEFAULT_PREEMPTION),
    PluginRef(names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    PluginRef(names.IMAGE_LOCALITY, 1),
    PluginRef(names.DEFAULT_BINDER),
    PluginRef(names.NODE_DECLARED_FEATURES),
)


_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
DEFAULT_PLUGIN_ARGS: Mapping[str, Mapping[str, Any]] = {
    names.DEFAULT_PREEMPTION: {"minCandidateNodesAbsolute": 100, "minCandidateNodesPercentage": 10},
    names.DYNAMIC_RESOURCES: {"bindingTimeout": "10m0s", "filterTimeout": "10s"},
    names.INTER_POD_AFFINITY: {
        "hardPodAffinityWeight": 1,
        "ignorePreferredTermsOfExistingPods": False,
    },
    names.NODE_AFFINITY: {},
    names.NODE_RESOURCES_BALANCED_ALLOCATION: {"resources": _RESOURCES},
    names.NODE_RESOURCES_FIT: {
        "scoringStrategy": {"resources": _RESOURCES, "type": "LeastAllocated"}
    },
    names.POD_TOPOLOGY_SPREAD: {"defaultingType": "System"},
    names.VOLUME_BINDING: {
        "bindTimeoutSeconds": 600,
        "shape": [{"score": 10, "utilization": 0}, {"score": 0, "utilization": 100}],
    },
}
"""Upstream's v1 defaults of the args of the default plugins kubesched has, as kube-scheduler
writes them with `--write-config-to` (without their apiVersion and kind): the `to_v1()` of
each plugin's default typed args (`kubesched.plugins.plugin_args.default_plugin_args()`,
which this layer cannot import; tests/unit/plugins/test_plugin_args.py keeps them equal)."""


GENERIC_WORKLOAD_MULTI_POINT: tuple[PluginRef, ...] = (PluginRef(names.GANG_SCHEDULING),)
"""What the `GenericWorkload` feature gate appends to the default multiPoint (upstream
`applyGangScheduling`)."""


TOPOLOGY_AWARE_MULTI_POINT: tuple[PluginRef, ...] = (
    PluginRef(names.TOPOLOGY_PLACEMENT_GENERATOR),
    PluginRef(names.POD_GROUP_PODS_COUNT, 1),
)
"""What the `TopologyAwareWorkloadScheduling` feature gate appends to the default multiPoint,
after GangScheduling (upstream `applyTopologyAwareWorkloadScheduling`)."""


def default_plugins(
    available: frozenset[str] | None = None,
    *,
    generic_workload: bool = False,
    topology_aware: bool = False,
) -> dict[str, PluginSet]:
    """The default plugin sets; with `available`, defaults missing from it are left out;
    `generic_workload` (the feature gate) appends GangScheduling, `topology_aware` (the
    `TopologyAwareWorkloadScheduling` gate) TopologyPlacementGenerator and
    PodGroupPodsCount."""
    refs = DEFAULT_MULTI_POINT
    if generic_workload:
        refs = (*refs, *GENERIC_WORKLOAD_MULTI_POINT)
    if topology_aware:
        refs = (*refs, *TOPOLOGY_AWARE_MULTI_POINT)
    if available is not None:
        refs = tuple(ref for ref in refs if ref.name in available)
    return {MULTI_POINT: PluginSet(enabled=refs)}


def merge_plugins(
    defaults: Mapping[str, PluginSet], custom: Mapping[str, PluginSet]
) -> dict[str, PluginSet]:
    """Merge a profile's plugin sets into the defaults, extension point by extension point."""
    return {
        point: merge_plugin_set(defaults.get(point, PluginSet()), custom.get(point, PluginSet()))
        for point in EXTENSION_POINTS
    }


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """Upstream `mergePluginSet` (see the module docstring)."""
    user = tuple(PluginRef(ref.name, ref.weight) for ref in custom.enabled)
    disabled = tuple(PluginRef(ref.name) for ref in (*custom.disabled, *default.disabled))
    disabled_names = {ref.name for ref in disabled}
    custom_index = {ref.name: i for i, ref in enumerate(user)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if WILDCARD not in disabled_names:
        for ref in default.enabled:
            if ref.name in disabled_names:
                continue
            index = custom_index.get(ref.name)
            if index is not None:
                replaced.add(index)
                enabled.append(user[index])
            else:
                enabled.append(ref)
    enabled.extend(ref for i, ref in enumerate(user) if i not in replaced)
    return PluginSet(enabled=tuple(enabled), disabled=disabled)
