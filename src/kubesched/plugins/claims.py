"""Which extension points each in-tree plugin serves, stated so that mypy checks it: every
class listed under a protocol must satisfy that protocol (a misspelled `normalize_score`
signature fails `make test`), and tests/unit/plugins/test_plugin_claims.py checks that the
lists name exactly the classes with the protocol's methods, so none is left out.
"""

from __future__ import annotations

from typing import Final

from kubesched.framework import (
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    PermitPlugin,
    PlacementFeasiblePlugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreBindPreFlightExtensions,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
    SignPlugin,
)
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
from kubesched.plugins.priority_sort import PrioritySort
from kubesched.plugins.scheduling_gates import SchedulingGates
from kubesched.plugins.taint_toleration import TaintToleration
from kubesched.plugins.volume_binding import VolumeBinding
from kubesched.plugins.volume_restrictions import VolumeRestrictions
from kubesched.plugins.volume_zone import VolumeZone

PRE_ENQUEUE: Final[tuple[type[PreEnqueuePlugin], ...]] = (
    SchedulingGates,
    DynamicResources,
    DefaultPreemption,
    GangScheduling,
)
QUEUE_SORT: Final[tuple[type[QueueSortPlugin], ...]] = (PrioritySort, Coscheduling)
PRE_FILTER: Final[tuple[type[PreFilterPlugin], ...]] = (
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
    Coscheduling,
    NodeDeclaredFeatures,
    CapacityScheduling,
)
PRE_FILTER_EXTENSIONS: Final[tuple[type[PreFilterExtensions], ...]] = (
    VolumeRestrictions,
    PodTopologySpread,
    InterPodAffinity,
    CapacityScheduling,
)
FILTER: Final[tuple[type[FilterPlugin], ...]] = (
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
    NodeDeclaredFeatures,
    NodeResourceTopologyMatch,
)
POST_FILTER: Final[tuple[type[PostFilterPlugin], ...]] = (
    DynamicResources,
    DefaultPreemption,
    Coscheduling,
    CapacityScheduling,
)
PRE_SCORE: Final[tuple[type[PreScorePlugin], ...]] = (
    TaintToleration,
    NodeAffinity,
    NodeResourcesFit,
    VolumeBinding,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
    NodeResourcesBalancedAllocation,
    ImageLocality,
)
SCORE: Final[tuple[type[ScorePlugin], ...]] = (
    TaintToleration,
    NodeAffinity,
    NodeResourcesFit,
    VolumeBinding,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
    NodeResourcesBalancedAllocation,
    ImageLocality,
    NodeResourceTopologyMatch,
)
SCORE_EXTENSIONS: Final[tuple[type[ScoreExtensions], ...]] = (
    TaintToleration,
    NodeAffinity,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
)
RESERVE: Final[tuple[type[ReservePlugin], ...]] = (
    VolumeBinding,
    DynamicResources,
    Coscheduling,
    GangScheduling,
    CapacityScheduling,
    NodeResourceTopologyMatch,
)
PERMIT: Final[tuple[type[PermitPlugin], ...]] = (Coscheduling, GangScheduling)
PRE_BIND: Final[tuple[type[PreBindPlugin], ...]] = (VolumeBinding, DynamicResources)
PRE_BIND_PRE_FLIGHT_EXTENSIONS: Final[tuple[type[PreBindPreFlightExtensions], ...]] = (
    VolumeBinding,
    DynamicResources,
)
BIND: Final[tuple[type[BindPlugin], ...]] = (DefaultBinder,)
POST_BIND: Final[tuple[type[PostBindPlugin], ...]] = (NodeResourceTopologyMatch,)
ENQUEUE_EXTENSIONS: Final[tuple[type[EnqueueExtensions], ...]] = (
    SchedulingGates,
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
    Coscheduling,
    NodeDeclaredFeatures,
    GangScheduling,
    CapacityScheduling,
    NodeResourceTopologyMatch,
)
PLACEMENT_FEASIBLE: Final[tuple[type[PlacementFeasiblePlugin], ...]] = (GangScheduling,)

SIGN: Final[tuple[type[SignPlugin], ...]] = (
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    DynamicResources,
    NodeResourcesBalancedAllocation,
)

CLAIMS: Final = {
    PreEnqueuePlugin: PRE_ENQUEUE,
    QueueSortPlugin: QUEUE_SORT,
    PreFilterPlugin: PRE_FILTER,
    PreFilterExtensions: PRE_FILTER_EXTENSIONS,
    FilterPlugin: FILTER,
    PostFilterPlugin: POST_FILTER,
    PreScorePlugin: PRE_SCORE,
    ScorePlugin: SCORE,
    SignPlugin: SIGN,
    ScoreExtensions: SCORE_EXTENSIONS,
    ReservePlugin: RESERVE,
    PermitPlugin: PERMIT,
    PreBindPlugin: PRE_BIND,
    PreBindPreFlightExtensions: PRE_BIND_PRE_FLIGHT_EXTENSIONS,
    BindPlugin: BIND,
    PostBindPlugin: POST_BIND,
    EnqueueExtensions: ENQUEUE_EXTENSIONS,
    PlacementFeasiblePlugin: PLACEMENT_FEASIBLE,
}
"""Each protocol and the in-tree classes that serve it."""
