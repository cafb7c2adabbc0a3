"""SchedulingGates (PreEnqueue): keep pods with `spec.schedulingGates` out of the active queue.

The pod is queued again when its last gate is removed. Message as upstream:
`waiting for scheduling gates: [example.com/foo example.com/bar]`.

Queueing hints: the pod is retried whenever its last gate is removed (upstream's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    EventResource,
    Handle,
    QueueingHint,
    Status,
)
from kubesched.model import Pod
from kubesched.plugins.helper.args import no_args

NAME = names.SCHEDULING_GATES


class SchedulingGates:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.scheduling_gates:
            return None
        gates = " ".join(pod.scheduling_gates)
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"waiting for scheduling gates: [{gates}]"
        )

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        event = ClusterEvent(
            EventResource.TARGET_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
        )
        return (
            ClusterEventWithHint(
                event, self.is_schedulable_after_update_target_pod_scheduling_gates_eliminated
            ),
        )

    def is_schedulable_after_update_target_pod_scheduling_gates_eliminated(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """QUEUE: the pod's last scheduling gate is gone."""
        del pod, old, new
        return QueueingHint.QUEUE
