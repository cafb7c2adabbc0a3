"""The replay loop: a trace's records at their recorded times, the engine's cycles between.

On the virtual clock (`engine.VirtualClock`), in order: apply every record up to now, then
run scheduling cycles while the queue has a pod to pop (as the scheduler's loop would, each
cycle taking no virtual time), then move the clock to the next moment something happens: the
next record, the next flush of the queue (backoffQ every second, the unschedulable pool's
leftovers every 30 s, as `SchedulingQueue.start` runs them in production), or the first
Permit timeout of a waiting pod (the event loop's timers run on the virtual clock,
`virtual_loop`). The loop ends at the trace's END time.

One cycle is the scheduler's (`kubesched.scheduler.schedule_one`): the snapshot refreshed,
`schedule_pod`, assume, Reserve, Permit, then the binding cycle's PreBindPreFlight and
PreBind; the binding itself is applied to the replayed cluster (the pod gets its node, as
the API server would) instead of calling the Bind plugins. A failure goes back to the queue
as the scheduler sends it (rejected: the unschedulable pool or backoffQ by the hints;
error: backoffQ), with the nomination preemption chose; the victims preemption asked for
are deleted from the replayed cluster at once. A pod a Permit plugin holds binds when it
is allowed; one still held at the end is reported pending. A member of a native PodGroup
(`GenericWorkload`) is scheduled with its queued siblings by the pod-group cycle (`groups`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kubesched.framework import CycleState, Status
from kubesched.framework.status import Code
from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo
from kubesched.replay import trace
from kubesched.replay.cluster import ReplayedCluster
from kubesched.replay.engine import Engine
from kubesched.replay.groups import group_cycles
from kubesched.replay.steps import (
    BACKOFF_FLUSH_PERIOD,
    Flushes,
    pre_bind_now,
    top_nodes,
    try_pop,
    turns,
)
from kubesched.replay.timeline import Timeline
from kubesched.replay.virtual_loop import use_virtual_time
from kubesched.runtime import FitError, Framework, NoNodesAvailableError, SchedulingError, scoring
from kubesched.runtime.schedule import schedule_pod
from kubesched.scheduler.binder import assume_reserve_permit

CYCLES_PER_POD = 20
"""At one virtual moment, at most this many cycles per pod the replay schedules (plus
`CYCLES_SPARE`): a guard against a pod popped again and again; time then moves on a second."""
CYCLES_SPARE = 1000
PERMIT_TURNS = 4


@dataclass
class Outcome:
    """What the replay did with one of its pods."""

    pod: str
    uid: str
    created: float
    node: str = ""
    bound_at: float | None = None
    attempts: int = 0
    last_failure: str = ""
    evicted_at: float | None = None
    """When a preemption of the replay evicted it (it is then gone from the cluster)."""
    ties: tuple[str, ...] = ()
    """The nodes that shared the top score with `node` in its binding cycle (itself
    included), for a pod the trace also bound; empty when it was scored alone, placed
    without scoring, or the trace holds no binding of it."""


@dataclass
class ReplayResult:
    """Everything one configuration's replay decided."""

    outcomes: dict[str, Outcome]
    """By uid: every pod the replay scheduled or tried to."""
    recorded: dict[str, str]
    """uid -> the node the trace's scheduler bound it to (BOUND records)."""
    preemptions: int = 0
    evictions: int = 0
    cycles: int = 0
    end: float = 0.0
    waiting_at_permit: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    """Records whose object could not be parsed (skipped), one line each."""
    timeline: Timeline = field(default_factory=lambda: Timeline(interval=1.0))
    """Pods waiting and resources used over virtual time."""


class _Attempt(NamedTuple):
    """One pod's attempt past the scheduling algorithm: its framework, state and node."""

    fw: Framework
    state: CycleState
    qpi: QueuedPodInfo
    host: str
    cycle: int


class Replay:
    """One configuration's engine driven through one trace."""

    def __init__(
        self, engine: Engine, recorded_trace: trace.Trace, *, seed: int, follow_ties: bool = True
    ) -> None:
        """`follow_ties`: among the nodes tied at the top score, take the one the trace's
        scheduler chose when it is one of them (else the seeded RNG picks, as always)."""
        self._engine = engine
        self._trace = recorded_trace
        self._follow: Mapping[str, str] = recorded_trace.bound if follow_ties else {}
        self._cluster = ReplayedCluster(engine)
        self._result = ReplayResult(
            outcomes={},
            recorded={},
            end=recorded_trace.duration,
            timeline=Timeline.over(recorded_trace.duration),
        )
        self._binding: dict[str, asyncio.Task[None]] = {}
        self._groups = group_cycles(engine, self._failed)
        scoring._RNG.seed(seed)

    async def run(self) -> ReplayResult:
        """Replay the whole trace; the result once its END time is reached. Run it on a
        `virtual_loop.VirtualTimeLoop` (`run_on_virtual_time`, as `replay_trace` does) so
        that Permit timeouts expire in virtual time; on another loop they take real time."""
        clock, records = self._engine.clock, self._trace.records()
        upcoming, flushes = next(records, None), Flushes()
        use_virtual_time(clock)
        while True:
            while upcoming is not None and float(upcoming["t"]) <= clock.now:
                self._apply(upcoming)
                upcoming = next(records, None)
            stuck = await self._schedule_while_poppable()
            self._sample(clock.now)
            later = float(upcoming["t"]) if upcoming is not None else math.inf
            moment = min(later, flushes.next(self._engine, clock.now), self._permit_deadline())
            if stuck:
                moment = min(moment, clock.now + BACKOFF_FLUSH_PERIOD)
            if moment > self._trace.duration:
                break
            clock.now = moment
            if self._binding:
                await turns(PERMIT_TURNS)  # a Permit timeout due now fires, its pods go back
            flushes.run(self._engine, moment)
        await self._settle_bindings()
        self._sample(self._trace.duration, final=True)
        self._result.malformed = self._cluster.malformed
        return self._result

    def _permit_deadline(self) -> float:
        """When the first pod waiting at Permit times out (virtual seconds), or infinity."""
        waiting = self._engine.handle.waiting_pods
        return min((pod.deadline for pod in waiting), default=math.inf)

    def _sample(self, now: float, *, final: bool = False) -> None:
        engine, timeline = self._engine, self._result.timeline
        if final:
            timeline.take(now, engine.queue, engine.cache, engine.snapshot)
        else:
            timeline.observe(now, engine.queue, engine.cache, engine.snapshot)

    # ---- records ------------------------------------------------------------------------

    def _apply(self, record: Mapping[str, Any]) -> None:
        op = record["op"]
        if op in trace.OBJECT_OPS:
            self._cluster.apply(record)
            self._track_new_pods(record)
        elif op == trace.BOUND:
            self._result.recorded[str(record["uid"])] = str(record["node"])

    def _track_new_pods(self, record: Mapping[str, Any]) -> None:
        if record["kind"] != "pods":
            return
        uid = str((record["object"].get("metadata") or {}).get("uid", ""))
        if uid in self._cluster.ours and uid not in self._result.outcomes:
            meta = record["object"].get("metadata") or {}
            key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
            self._result.outcomes[uid] = Outcome(key, uid, self._cluster.created[uid])

    # ---- cycles -------------------------------------------------------------------------

    async def _schedule_while_poppable(self) -> bool:
        """Run cycles while a pod can be popped; True if the guard stopped them."""
        budget = CYCLES_SPARE + CYCLES_PER_POD * len(self._result.outcomes)
        for _ in range(budget):
            qpi = try_pop(self._engine)
            if qpi is None and self._binding:
                await turns()  # bindings a Permit let go may bind, or send pods back
                qpi = try_pop(self._engine)
            if qpi is None:
                return False
            self._result.cycles += 1
            cycle = self._engine.queue.scheduling_cycle
            try:
                await self._cycle(qpi, cycle)
            except Exception as exc:  # one pod never ends the loop, as in the scheduler's
                self._failed(qpi, Status.from_error(exc), cycle)
            if self._binding:
                await turns()  # let a binding held at Permit go on
        return True

    async def _cycle(self, qpi: QueuedPodInfo, cycle: int) -> None:
        engine, pod = self._engine, qpi.pod
        fw = engine.frameworks.get(pod.scheduler_name)
        if fw is None or pod.deleting or engine.cache.is_assumed(pod.uid):
            engine.queue.done(pod.uid)
            return
        if self._groups is not None and pod.pod_group_name:
            await self._group_cycle(fw, qpi, cycle)
            return
        qpi.unschedulable_plugins, qpi.pending_plugins = set(), set()
        engine.cache.update_snapshot(engine.snapshot)
        state = CycleState()
        try:
            snapshot = engine.snapshot
            result = schedule_pod(
                fw, state, pod, snapshot.node_infos, journal=snapshot, cycle=cycle
            )
        except FitError as err:
            qpi.unschedulable_plugins = set(err.diagnosis.unschedulable_plugins)
            qpi.pending_plugins = set(err.diagnosis.pending_plugins)
            nominate = None if err.keep_nomination else err.nominated_node_name
            self._failed(qpi, Status(Code.UNSCHEDULABLE, str(err)), cycle, nominate=nominate)
            self._apply_preemptions()
            return
        except NoNodesAvailableError as err:
            self._failed(qpi, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err)), cycle)
            return
        except SchedulingError as err:
            self._failed(qpi, err.status, cycle)
            return
        host = result.suggested_host
        # The ties matter only against a recorded decision (listing them for every pod of
        # a large cluster, hundreds of nodes each, cost a tenth of a replay).
        ties = top_nodes(result.scores) if pod.uid in self._trace.bound else ()
        outcome = self._result.outcomes.get(pod.uid)
        if outcome is not None:
            outcome.ties = ties
        recorded = self._follow.get(pod.uid, "")
        if recorded != host and recorded in ties:
            host = recorded
            if fw.batch is not None:  # it kept the RNG's node: this cycle chose another
                fw.batch.store_results(None, "", host, None, cycle)
        await self._assume_and_bind(_Attempt(fw, state, qpi, host, cycle))

    async def _group_cycle(self, fw: Framework, qpi: QueuedPodInfo, cycle: int) -> None:
        """The pod-group cycle (`groups`): every member placed goes on past Permit."""
        assert self._groups is not None
        tasks = self._groups.schedule(fw, qpi, cycle)
        self._apply_preemptions()
        for task in tasks:
            attempt = _Attempt(task.framework, task.state, task.qpi, task.node_name, cycle)
            waiting = fw.handle.waiting_pods.get(task.qpi.uid) is not None
            await self._past_permit(attempt, Status(Code.WAIT if waiting else Code.SUCCESS))

    async def _assume_and_bind(self, attempt: _Attempt) -> None:
        engine = self._engine
        _, status = assume_reserve_permit(
            attempt.fw,
            attempt.state,
            attempt.qpi.pod,
            attempt.host,
            cache=engine.cache,
            queue=engine.queue,
        )
        await self._past_permit(attempt, status)

    async def _past_permit(self, attempt: _Attempt, status: Status) -> None:
        """A pod Permit holds waits in a task of its own; the others finish now."""
        if status.is_wait():
            task = asyncio.get_running_loop().create_task(self._bind_after_permit(attempt))
            self._binding[attempt.qpi.uid] = task
            return
        await self._finish(attempt, status)

    async def _bind_after_permit(self, attempt: _Attempt) -> None:
        status = await attempt.fw.wait_on_permit(self._assumed(attempt))
        self._binding.pop(attempt.qpi.uid, None)
        await self._finish(attempt, status)

    async def _finish(self, attempt: _Attempt, status: Status) -> None:
        """PreBindPreFlight and PreBind after a successful Permit, then the binding, or
        Unreserve and the failure."""
        fw, state, host = attempt.fw, attempt.state, attempt.host
        assumed = self._assumed(attempt)
        if status.is_success():
            status = fw.run_pre_bind_pre_flights(state, assumed, host)
            if status.code is not Code.ERROR and not status.is_rejected():
                status = pre_bind_now(fw, state, assumed, host)
        if status.is_success():
            self._bound(attempt)
            return
        fw.run_unreserve(state, assumed, host)
        self._engine.cache.forget_pod(assumed)
        self._failed(attempt.qpi, status, attempt.cycle)

    def _assumed(self, attempt: _Attempt) -> Pod:
        return self._engine.cache.get_pod(attempt.qpi.uid) or attempt.qpi.pod

    def _bound(self, attempt: _Attempt) -> None:
        engine, qpi, host = self._engine, attempt.qpi, attempt.host
        assumed = self._assumed(attempt)
        engine.cache.finish_binding(assumed)
        engine.queue.done(qpi.uid)
        self._cluster.bind(qpi.uid, host)
        attempt.fw.run_post_bind(attempt.state, assumed, host)
        outcome = self._result.outcomes.get(qpi.uid)
        if outcome is not None:
            outcome.node, outcome.bound_at = host, engine.clock.now
            outcome.attempts = qpi.attempts

    def _failed(
        self, qpi: QueuedPodInfo, status: Status, cycle: int, *, nominate: str | None = ""
    ) -> None:
        """Back to the queue as the scheduler's `_handle_failure` sends it."""
        queue, uid = self._engine.queue, qpi.uid
        outcome = self._result.outcomes.get(uid)
        if outcome is not None:
            outcome.attempts = qpi.attempts
            outcome.last_failure = status.message or str(status)
        current = self._cluster.lookup(uid)
        if current is None or current.node_name:
            queue.done(uid)
            return
        if status.is_rejected():
            queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=cycle)
        else:
            queue.requeue_after_error(qpi, pod_scheduling_cycle=cycle)
        if nominate:
            queue.nominator.add(current, node_name=nominate)
        elif nominate is not None:
            queue.nominator.delete(uid)

    def _apply_preemptions(self) -> None:
        handle = self._engine.handle
        for preemption in handle.preemptions:
            self._result.preemptions += 1
            for victim in preemption.victims:
                self._result.evictions += 1
                if (outcome := self._result.outcomes.get(victim.uid)) is not None:
                    outcome.evicted_at = self._engine.clock.now
                self._cluster.evicted.add(victim.uid)
                self._cluster.delete(victim.uid)
        handle.preemptions.clear()

    async def _settle_bindings(self) -> None:
        """Pods still held at Permit at the end stay pending (reported)."""
        for uid, task in list(self._binding.items()):
            task.cancel()
            outcome = self._result.outcomes.get(uid)
            self._result.waiting_at_permit.append(outcome.pod if outcome else uid)
        await asyncio.gather(*self._binding.values(), return_exceptions=True)
