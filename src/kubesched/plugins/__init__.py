"""kube-scheduler's default plugins, one folder each; they import only the framework and the
object model and reach the cluster only through the Handle.

`in_tree_registry()` returns a Registry with all of them; add your own with
`--plugin-module` or the `kubesched.plugins` entry-point group (docs/writing-plugins.md).
"""

import contextlib
from collections.abc import Iterable

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.framework import (
    PluginRegistrationError,
    Registry,
    load_entry_points,
    load_plugin_modules,
)
from kubesched.framework.resources import ResourceSpec, cluster_resources, plugin_resources
from kubesched.plugins.capacity_scheduling import CapacityScheduling
from kubesched.plugins.coscheduling import Coscheduling
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.default_preemption import DefaultPreemption
from kubesched.plugins.dynamic_resources import DynamicResources
from kubesched.plugins.gang_scheduling import GangScheduling
from kubesched.plugins.image_locality import ImageLocality
from kubesched.plugins.inter_pod_affinity import InterPodAffinity
from kubesched.plugins.node_affinity import NodeAffinity
from kubesched.plugins.node_declared_features import NodeDeclaredFeatures
from kubesched.plugins.node_name import NodeName
from kubesched.plugins.node_ports import NodePorts
from kubesched.plugins.node_resource_topology import NodeResourceTopologyMatch
from kubesched.plugins.node_resources import NodeResourcesBalancedAllocation, NodeResourcesFit
from kubesched.plugins.node_unschedulable import NodeUnschedulable
from kubesched.plugins.node_volume_limits import NodeVolumeLimits
from kubesched.plugins.pod_topology_spread import PodTopologySpread
from kubesched.plugins.podgroup_pods_count import PodGroupPodsCount
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.plugins.scheduling_gates import SchedulingGates
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.plugins.topology_aware import TopologyPlacementGenerator
from kubesched.plugins.volume_binding import VolumeBinding
from kubesched.plugins.volume_restrictions import VolumeRestrictions
from kubesched.plugins.volume_zone import VolumeZone

IN_TREE_PLUGINS: tuple[type, ...] = (
    SchedulingGates,
    PrioritySort,
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
    DefaultPreemption,
    NodeResourcesBalancedAllocation,
    ImageLocality,
    DefaultBinder,
    Coscheduling,
    NodeDeclaredFeatures,
    GangScheduling,
    TopologyPlacementGenerator,
    PodGroupPodsCount,
    CapacityScheduling,
    NodeResourceTopologyMatch,
)
"""Every plugin kubesched ships; `Coscheduling` and `CapacityScheduling` are not in the
default profile (enable them in `profiles[].plugins`, docs/gang-scheduling.md and
plugins/capacity_scheduling/README.md); `GangScheduling` is, with the `GenericWorkload`
feature gate on."""


def in_tree_registry() -> Registry:
    """A new registry holding every in-tree plugin (callers may add more to it)."""
    registry = Registry()
    for plugin_class in IN_TREE_PLUGINS:
        registry.register_class(plugin_class)
    return registry


def config_registry(plugin_modules: Iterable[str] = ()) -> Registry:
    """In-tree plugins, then entry points, then `--plugin-module`s (what `run` loads)."""
    registry = in_tree_registry()
    load_entry_points(registry)
    load_plugin_modules(registry, plugin_modules)
    return registry


def config_resources(
    config: KubeSchedulerConfiguration, *, in_tree_only: bool = False
) -> list[ResourceSpec]:
    """The resources kubesched reads for `config` (for RBAC): what its profiles' enabled
    plugins declare, and native PodGroups under `GenericWorkload` (the server's informers,
    `kubesched.framework.resources.cluster_resources`). Plugin modules that cannot be
    imported here (they live in the scheduler's image) are skipped, for `doctor`; `manifests`
    refuses them before (`kubesched.config.plugin_check`). `in_tree_only`: kubesched's own
    plugins alone (what the Helm chart derives by itself)."""
    registry = in_tree_registry()
    if not in_tree_only:
        load_entry_points(registry)
        for module in config.plugin_modules:
            with contextlib.suppress(PluginRegistrationError):
                load_plugin_modules(registry, [module])
    return cluster_resources(config, registry)


def in_tree_resources() -> dict[str, tuple[ResourceSpec, ...]]:
    """Plugin name -> the resources it declares, for the in-tree plugins that declare some
    (the Helm chart grants them when a profile enables the plugin)."""
    registry = in_tree_registry()
    declared = {name: plugin_resources(registry.get(name)) for name in sorted(registry.names())}
    return {name: specs for name, specs in declared.items() if specs}


__all__ = [
    "IN_TREE_PLUGINS",
    "CapacityScheduling",
    "Coscheduling",
    "DefaultBinder",
    "DefaultPreemption",
    "DynamicResources",
    "GangScheduling",
    "ImageLocality",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeDeclaredFeatures",
    "NodeName",
    "NodePorts",
    "NodeResourceTopologyMatch",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "NodeUnschedulable",
    "NodeVolumeLimits",
    "PodGroupPodsCount",
    "PodTopologySpread",
    "PrioritySort",
    "SchedulingGates",
    "TaintToleration",
    "TopologyPlacementGenerator",
    "VolumeBinding",
    "VolumeRestrictions",
    "VolumeZone",
    "config_registry",
    "config_resources",
    "in_tree_registry",
    "in_tree_resources",
]
