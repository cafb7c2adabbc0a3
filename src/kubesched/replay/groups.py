"""Native pod groups in a replay (`scheduling.k8s.io` PodGroups, the `GenericWorkload`
gate): the scheduler's own pod-group cycle (`kubesched.scheduler.podgroup_cycle`, as
`kubesched run` uses it) over the replay's cache, snapshot and queue. A popped member brings
its queued siblings, the group is placed at once, and every placed member goes on to Permit
and its binding, or none does; a group's preemption records its victims for the replay loop
to evict, as a pod's does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kubesched.framework import CycleState, RecordedPreemption, Status
from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo
from kubesched.replay.engine import Engine
from kubesched.runtime import Framework
from kubesched.scheduler.binder import BindingTask, reserve_for_binding
from kubesched.scheduler.podgroup_cycle import PodGroupCycles

GROUP_NODE = "cluster"
"""The node a group's preemption names (upstream's event says `on node cluster`)."""
Failed = Callable[..., None]
"""`Replay._failed(qpi, status, cycle, nominate=)`."""


def group_cycles(engine: Engine, failed: Failed) -> PodGroupCycles | None:
    """The pod-group cycles when the configuration enables `GenericWorkload`, else None."""
    if not engine.config.generic_workload:
        return None

    def assume_and_reserve(
        fw: Framework,
        state: CycleState,
        qpi: QueuedPodInfo,
        *,
        host: str,
        cycle: int,
        started: float,
    ) -> BindingTask | None:
        outcome = reserve_for_binding(
            fw, state, qpi, host, cycle=cycle, started=started, cache=engine.cache,
            queue=engine.queue,
        )  # fmt: skip
        if isinstance(outcome, BindingTask):
            return outcome
        failed(qpi, outcome, cycle)
        return None

    def handle_failure(
        fw: Framework | None,
        qpi: QueuedPodInfo,
        status: Status,
        cycle: int,
        started: float,
        *,
        nominate: str | None = "",
    ) -> None:
        del fw, started
        failed(qpi, status, cycle, nominate=nominate)

    def preempt_group(*, members: Sequence[Pod], victims: Sequence[Pod], **_: Any) -> None:
        if members:
            preemption = RecordedPreemption(members[0], GROUP_NODE, tuple(victims))
            engine.handle.preemptions.append(preemption)

    return PodGroupCycles(
        cache=engine.cache,
        snapshot=engine.snapshot,
        queue=engine.queue,
        assume_and_reserve=assume_and_reserve,
        handle_failure=handle_failure,
        preempt_group=preempt_group,
    )
