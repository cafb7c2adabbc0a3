"""SchedulingGates (PreEnqueue): keep pods with `spec.schedulingGates` out of the active queue.

The pod is queued again when its last gate is removed. Message as upstream:
`waiting for scheduling gates: [example.com/foo example.com/bar]`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.framework import ActionType, ClusterEvent, Code, EventResource, Handle, Status
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

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return (ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),)
