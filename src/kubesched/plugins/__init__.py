"""kube-scheduler's default plugins, one folder each; they import only the framework and the
object model and reach the cluster only through the Handle.

`in_tree_registry()` returns a Registry with all of them; add your own with
`--plugin-module` or the `kubesched.plugins` entry-point group (docs/writing-plugins.md).
"""

from kubesched.framework import Registry
from kubesched.plugins.default_binder import DefaultBinder
from kubesched.plugins.default_preemption import DefaultPreemption
from kubesched.plugins.dynamic_resources import DynamicResources
from kubesched.plugins.image_locality import ImageLocality
from kubesched.plugins.inter_pod_affinity import InterPodAffinity
from kubesched.plugins.node_affinity import NodeAffinity
from kubesched.plugins.node_declared_features import NodeDeclaredFeatures
from kubesched.plugins.node_name import NodeName
from kubesched.plugins.node_ports import NodePorts
from kubesched.plugins.node_resources import NodeResourcesBalancedAllocation, NodeResourcesFit
from kubesched.plugins.node_unschedulable import NodeUnschedulable
from kubesched.plugins.node_volume_limits import NodeVolumeLimits
from kubesched.plugins.pod_topology_spread import PodTopologySpread
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.plugins.scheduling_gates import SchedulingGates
from kubesched.plugins.taint_toleration import TaintToleration
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
    NodeDeclaredFeatures,
)


def in_tree_registry() -> Registry:
    """A new registry holding every in-tree plugin (callers may add more to it)."""
    registry = Registry()
    for plugin_class in IN_TREE_PLUGINS:
        registry.register_class(plugin_class)
    return registry


__all__ = [
    "IN_TREE_PLUGINS",
    "DefaultBinder",
    "DefaultPreemption",
    "DynamicResources",
    "ImageLocality",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeDeclaredFeatures",
    "NodeName",
    "NodePorts",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "NodeUnschedulable",
    "NodeVolumeLimits",
    "PodTopologySpread",
    "PrioritySort",
    "SchedulingGates",
    "TaintToleration",
    "VolumeBinding",
    "VolumeRestrictions",
    "VolumeZone",
    "in_tree_registry",
]
