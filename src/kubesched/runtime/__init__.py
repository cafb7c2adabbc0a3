"""The engine that runs plugins (upstream's `pkg/scheduler/framework/runtime` and the
scheduling algorithm of `pkg/scheduler/schedule_one.go`): the per-profile `Framework` and its
builder, one scheduling attempt (`schedule_pod`: PreFilter, Filter over the adaptive sample,
PreScore, Score, host selection), the score runner and memo, what-if filtering for
preemption, the binding cycle and the extension-point timers.

The scheduler, the server, `explain` and `kubesched.testing` use it; plugins may not (they see
only the contract in `kubesched.framework`; import-linter enforces it).
"""

from kubesched.runtime.builder import FrameworkError, build_framework, check_common_queue_sort
from kubesched.runtime.errors import FitError, NoNodesAvailableError, SchedulingError
from kubesched.runtime.framework import Framework, PreFilterOutcome
from kubesched.runtime.placement import (
    POD_GROUP_UNSCHEDULABLE,
    pod_group_unschedulable,
    run_placement_feasible,
    walk_pod_group,
)
from kubesched.runtime.sampling import num_feasible_nodes_to_find
from kubesched.runtime.schedule import ScheduleResult, schedule_pod
from kubesched.runtime.scoring import ScoreResult, select_host

__all__ = [
    "POD_GROUP_UNSCHEDULABLE",
    "FitError",
    "Framework",
    "FrameworkError",
    "NoNodesAvailableError",
    "PreFilterOutcome",
    "ScheduleResult",
    "SchedulingError",
    "ScoreResult",
    "build_framework",
    "check_common_queue_sort",
    "num_feasible_nodes_to_find",
    "pod_group_unschedulable",
    "run_placement_feasible",
    "schedule_pod",
    "select_host",
    "walk_pod_group",
]
