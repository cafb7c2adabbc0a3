"""The scheduling framework: extension-point protocols, Status, CycleState, the plugin
registry and the per-profile runtime. See docs/writing-plugins.md.

This package never imports plugins, the scheduler, the queue, the cache or the API client.
"""

from kubesched.framework.builder import FrameworkError, build_framework, check_common_queue_sort
from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.framework.diagnosis import (
    Diagnosis,
    FitError,
    NodeToStatus,
    NoNodesAvailableError,
    SchedulingError,
)
from kubesched.framework.events import ActionType, ClusterEvent, EventResource
from kubesched.framework.handle import Handle, RecordedPreemption
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
)
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.placement import (
    PlacementFeasiblePlugin,
    PlacementProgress,
    run_placement_feasible,
)
from kubesched.framework.registry import (
    PluginRegistrationError,
    Registry,
    load_entry_points,
    load_plugin_modules,
)
from kubesched.framework.runtime import Framework, PreFilterOutcome
from kubesched.framework.schedule import ScheduleResult, num_feasible_nodes_to_find, schedule_pod
from kubesched.framework.scoring import ScoreResult, default_normalize_score, select_host
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.framework.waiting import WaitingPod, WaitingPods

__all__ = [
    "FILTER_RUNNER_KEY",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "SUCCESS",
    "ActionType",
    "BindPlugin",
    "ClusterEvent",
    "Code",
    "CycleState",
    "Diagnosis",
    "EnqueueExtensions",
    "EventResource",
    "FilterPlugin",
    "FilterRunner",
    "FitError",
    "Framework",
    "FrameworkError",
    "Handle",
    "NoNodesAvailableError",
    "NodeInfo",
    "NodeToStatus",
    "NodeToStatusReader",
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
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterOutcome",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "RecordedPreemption",
    "Registry",
    "ReservePlugin",
    "ScheduleResult",
    "SchedulingError",
    "ScoreExtensions",
    "ScorePlugin",
    "ScoreResult",
    "StateKey",
    "Status",
    "WaitingPod",
    "WaitingPods",
    "build_framework",
    "check_common_queue_sort",
    "default_normalize_score",
    "load_entry_points",
    "load_plugin_modules",
    "num_feasible_nodes_to_find",
    "run_placement_feasible",
    "schedule_pod",
    "select_host",
]
