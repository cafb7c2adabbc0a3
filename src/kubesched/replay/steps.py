"""The replay loop's small steps: the queue's periodic flushes on the virtual clock, a pop
that never waits, a PreBind that never waits, the nodes tied at the top score."""

from __future__ import annotations

import asyncio
import math

from kubesched.framework import CycleState, Status
from kubesched.framework.status import Code
from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo
from kubesched.replay.engine import Engine
from kubesched.runtime import Framework
from kubesched.runtime.scoring import ScoreResult

BACKOFF_FLUSH_PERIOD = 1.0
UNSCHEDULABLE_FLUSH_PERIOD = 30.0


class Flushes:
    """When the queue's periodic flushes run next, on the virtual clock."""

    def __init__(self) -> None:
        self.backoff = BACKOFF_FLUSH_PERIOD
        self.unschedulable = UNSCHEDULABLE_FLUSH_PERIOD

    def next(self, engine: Engine, now: float) -> float:
        """The next flush with something to flush (never before `now`), or infinity."""
        counts = engine.queue.pending_counts()
        due = math.inf
        if counts.get("backoff"):
            due = min(due, max(self.backoff, now))
        if counts.get("unschedulable") or counts.get("gated"):
            due = min(due, max(self.unschedulable, now))
        return due

    def run(self, engine: Engine, now: float) -> None:
        if now >= self.backoff:
            engine.queue.flush_backoff_completed()
            self.backoff = math.floor(now / BACKOFF_FLUSH_PERIOD + 1) * BACKOFF_FLUSH_PERIOD
        if now >= self.unschedulable:
            engine.queue.flush_unschedulable_left_over()
            periods = math.floor(now / UNSCHEDULABLE_FLUSH_PERIOD + 1)
            self.unschedulable = periods * UNSCHEDULABLE_FLUSH_PERIOD


def top_nodes(scores: ScoreResult | None) -> tuple[str, ...]:
    """The nodes with the highest total score, in the snapshot's order."""
    if scores is None or not scores.totals:
        return ()
    best = max(scores.totals)
    return tuple(
        node.name for node, total in zip(scores.nodes, scores.totals, strict=True) if total == best
    )


async def turns(count: int = 2) -> None:
    """Turns of the event loop: a binding task woken by its Permit runs to its end (two;
    `loop.PERMIT_TURNS` when a timer must fire first)."""
    for _ in range(count):
        await asyncio.sleep(0)


def pre_bind_now(fw: Framework, state: CycleState, pod: Pod, host: str) -> Status:
    """PreBind run to its end without waiting: the replay applies each write with the
    controllers' answers at once (`replay.controllers`), so a PreBind that would still wait
    (for a controller or driver the replay does not stand in for, such as a device's binding
    conditions) fails with an error and the pod is retried, instead of waiting in real time."""
    run = fw.run_pre_bind(state, pod, host)
    try:
        run.send(None)
    except StopIteration as done:
        status: Status = done.value
        return status
    run.close()
    return Status(Code.ERROR, "PreBind waits for a controller or a driver the replay does not run")


def try_pop(engine: Engine) -> QueuedPodInfo | None:
    """The next pod if the queue has one to give now, else None (never waits): the pop's
    coroutine is run up to its first wait, and closed there if it had to wait (no task,
    no turn of the event loop)."""
    pop = engine.queue.pop()
    try:
        pop.send(None)
    except StopIteration as done:
        popped: QueuedPodInfo | None = done.value
        return popped
    pop.close()
    return None
