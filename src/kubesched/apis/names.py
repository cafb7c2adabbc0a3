"""The names of the in-tree plugins, spelled once (upstream's
`pkg/scheduler/framework/plugins/names`). Every module that names a plugin in code (the
defaults, the registry, the plugins themselves, the scheduler, explain, manifests) imports it
from here; a test checks that each plugin class's `name` is its entry."""

from __future__ import annotations

from typing import Final

PRIORITY_SORT: Final = "PrioritySort"
DEFAULT_BINDER: Final = "DefaultBinder"
DEFAULT_PREEMPTION: Final = "DefaultPreemption"
DYNAMIC_RESOURCES: Final = "DynamicResources"
GANG_SCHEDULING: Final = "GangScheduling"
IMAGE_LOCALITY: Final = "ImageLocality"
INTER_POD_AFFINITY: Final = "InterPodAffinity"
NODE_AFFINITY: Final = "NodeAffinity"
NODE_DECLARED_FEATURES: Final = "NodeDeclaredFeatures"
NODE_NAME: Final = "NodeName"
NODE_PORTS: Final = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION: Final = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT: Final = "NodeResourcesFit"
NODE_UNSCHEDULABLE: Final = "NodeUnschedulable"
NODE_VOLUME_LIMITS: Final = "NodeVolumeLimits"
POD_TOPOLOGY_SPREAD: Final = "PodTopologySpread"
POD_GROUP_PODS_COUNT: Final = "PodGroupPodsCount"
SCHEDULING_GATES: Final = "SchedulingGates"
TAINT_TOLERATION: Final = "TaintToleration"
TOPOLOGY_PLACEMENT_GENERATOR: Final = "TopologyPlacementGenerator"
VOLUME_BINDING: Final = "VolumeBinding"
VOLUME_RESTRICTIONS: Final = "VolumeRestrictions"
VOLUME_ZONE: Final = "VolumeZone"
COSCHEDULING: Final = "Coscheduling"
"""scheduler-plugins' gang plugin (not a kube-scheduler default)."""
CAPACITY_SCHEDULING: Final = "CapacityScheduling"
"""scheduler-plugins' elastic quota plugin (not a kube-scheduler default)."""
NODE_RESOURCE_TOPOLOGY_MATCH: Final = "NodeResourceTopologyMatch"
"""scheduler-plugins' NUMA-aware plugin (not a kube-scheduler default)."""

IN_TREE: Final = (
    PRIORITY_SORT,
    DEFAULT_BINDER,
    DEFAULT_PREEMPTION,
    DYNAMIC_RESOURCES,
    GANG_SCHEDULING,
    IMAGE_LOCALITY,
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_DECLARED_FEATURES,
    NODE_NAME,
    NODE_PORTS,
    NODE_RESOURCES_BALANCED_ALLOCATION,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    NODE_VOLUME_LIMITS,
    POD_TOPOLOGY_SPREAD,
    POD_GROUP_PODS_COUNT,
    SCHEDULING_GATES,
    TAINT_TOLERATION,
    TOPOLOGY_PLACEMENT_GENERATOR,
    VOLUME_BINDING,
    VOLUME_RESTRICTIONS,
    VOLUME_ZONE,
    COSCHEDULING,
    CAPACITY_SCHEDULING,
    NODE_RESOURCE_TOPOLOGY_MATCH,
)
"""Every in-tree plugin, kube-scheduler's first."""
