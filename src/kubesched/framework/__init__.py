"""The plugin contract: what a plugin (in-tree or your own) may import.

As upstream's `k8s.io/kube-scheduler/framework` stands apart from the engine in
`pkg/scheduler/framework/runtime`, this package holds only the contract: the extension-point
protocols, the Handle, Status and its codes, CycleState, cluster events, NodeInfo, the
resource and lister views, waiting pods and the plugin registry. The engine that runs
plugins (the per-profile Framework, its builder, the scheduling algorithm, scoring, the memo,
the binding cycle) is `kubesched.runtime`, which plugins may not import (an import-linter
contract). See docs/writing-plugins.md.

This package never imports plugins, the engine, the scheduler, the queue, the cache or the
API client.
"""

from kubesched.apis.resources import (
    DEFAULT_SPREADING,
    NAMESPACES,
    POD_DISRUPTION_BUDGETS,
    PODS,
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    SERVICES,
    STATEFUL_SETS,
    ResourceSpec,
)
from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.framework.diagnosis import Diagnosis, NodeToStatus, fit_error_message
from kubesched.framework.dra import SharedDRAManager
from kubesched.framework.events import (
    FORCE_ACTIVATE_EVENT,
    UNSCHEDULABLE_TIMEOUT_EVENT,
    WILDCARD_EVENT,
    ActionType,
    AddedIndex,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework.handle import EventObject, Handle, ObjectWriteError, RecordedPreemption
from kubesched.framework.imagestates import ImageStateSummary
from kubesched.framework.interfaces import (
    FILTER_RUNNER_KEY,
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    FilterRunner,
    NodeToStatusReader,
    PermitPlugin,
    Plugin,
    PluginFactory,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreBindPreFlightExtensions,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    ScoreExtensions,
    ScorePlugin,
    SignPlugin,
)
from kubesched.framework.listers import Lister
from kubesched.framework.logkv import kv
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.placement import PlacementFeasiblePlugin, PlacementProgress
from kubesched.framework.registry import (
    PluginRegistrationError,
    Registry,
    load_entry_points,
    load_plugin_modules,
)
from kubesched.framework.resources import resource_event
from kubesched.framework.signs import (
    host_ports_sign,
    node_affinity_sign,
    node_name_sign,
    resources_sign,
    tolerations_sign,
)
from kubesched.framework.status import SUCCESS, Code, Status, StatusError
from kubesched.framework.verbosity import V
from kubesched.framework.volumes import VolumeListers
from kubesched.framework.waiting import WaitingPod, WaitingPods

__all__ = [
    "DEFAULT_SPREADING",
    "FILTER_RUNNER_KEY",
    "FORCE_ACTIVATE_EVENT",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "NAMESPACES",
    "PODS",
    "POD_DISRUPTION_BUDGETS",
    "REPLICATION_CONTROLLERS",
    "REPLICA_SETS",
    "SERVICES",
    "STATEFUL_SETS",
    "SUCCESS",
    "UNSCHEDULABLE_TIMEOUT_EVENT",
    "WILDCARD_EVENT",
    "ActionType",
    "AddedIndex",
    "BindPlugin",
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "CycleState",
    "Diagnosis",
    "EnqueueExtensions",
    "EventObject",
    "EventResource",
    "FilterPlugin",
    "FilterRunner",
    "Handle",
    "ImageStateSummary",
    "Lister",
    "NodeInfo",
    "NodeToStatus",
    "NodeToStatusReader",
    "ObjectWriteError",
    "PermitPlugin",
    "PlacementFeasiblePlugin",
    "PlacementProgress",
    "Plugin",
    "PluginFactory",
    "PluginRegistrationError",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreBindPreFlightExtensions",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "QueueingHint",
    "QueueingHintFn",
    "RecordedPreemption",
    "Registry",
    "ReservePlugin",
    "ResourceSpec",
    "ScoreExtensions",
    "ScorePlugin",
    "SharedDRAManager",
    "SignPlugin",
    "StateKey",
    "Status",
    "StatusError",
    "V",
    "VolumeListers",
    "WaitingPod",
    "WaitingPods",
    "fit_error_message",
    "host_ports_sign",
    "kv",
    "load_entry_points",
    "load_plugin_modules",
    "node_affinity_sign",
    "node_name_sign",
    "resource_event",
    "resources_sign",
    "tolerations_sign",
]
