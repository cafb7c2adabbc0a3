"""schedule_one: pop -> snapshot -> filter -> score -> select -> assume -> reserve/permit -> bind.

The scheduling cycle is synchronous on one consistent snapshot; the binding cycle runs as a
task (see `binder`), so the loop goes on with the next pod while bindings are in flight.
A pod whose cycle fails is reported (FailedScheduling event, PodScheduled=False) and
requeued; nothing a plugin does can stop the loop.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import CycleState, Status
from kubesched.framework.logkv import kv
from kubesched.framework.status import Code
from kubesched.framework.verbosity import V
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ApiError, Forbidden, NotFound
from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.runtime import (
    FitError,
    Framework,
    NoNodesAvailableError,
    SchedulingError,
    schedule_pod,
)
from kubesched.runtime.plugin_metrics import PLUGIN_METRICS_SAMPLE_PERCENT
from kubesched.scheduler.binder import Binder, BindingTask, rejected_on_node, reserve_for_binding
from kubesched.scheduler.composite_cycle import composite_tree
from kubesched.scheduler.extender_cycle import Extenders
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.podgroup_cycle import PodGroupCycles, PreemptGroup
from kubesched.scheduler.podstatus import (
    SCHEDULER_ERROR,
    UNSCHEDULABLE,
    ForbiddenOnce,
    patch_nominated_node_name,
    patch_pod_scheduled,
)

log = logging.getLogger(__name__)

PodLookup = Callable[[str], Pod | None]
EventSink = Callable[..., None]


_RNG = random.Random()  # noqa: S311 - sampling cycles for metrics, not cryptography


class Scheduler:
    """The scheduling loop for every profile of the process."""

    def __init__(
        self,
        *,
        frameworks: Mapping[str, Framework],
        cache: SchedulerCache,
        snapshot: Snapshot,
        queue: SchedulingQueue,
        api: KubeApi,
        record_event: EventSink,
        metrics: SchedulerMetrics,
        lookup_pod: PodLookup,
        fenced: Callable[[], bool] = lambda: False,
        binding_concurrency: int = 64,
        pod_groups: bool = False,
        preempt_group: PreemptGroup | None = None,
        nominate_for_expectation: bool = True,
        extenders: Extenders | None = None,
    ) -> None:
        """`pod_groups` (the `GenericWorkload` feature gate): members of a
        `scheduling.k8s.io` PodGroup are scheduled together (`podgroup_cycle`);
        `preempt_group` (`Preemptions.start_group`) evicts the victims a group's
        preemption chose. `nominate_for_expectation` (the NominatedNodeNameForExpectation
        gate, on by default) sets `nominatedNodeName` while Permit or PreBind holds a pod.
        `extenders`: each pod's cycle consults them (`extender_cycle`)."""
        self.extenders = extenders
        self._frameworks = frameworks
        self._cache = cache
        self._snapshot = snapshot
        self._queue = queue
        self._api = api
        self._record_event = record_event
        self._metrics = metrics
        self._lookup_pod = lookup_pod
        self._fenced = fenced
        self._side_tasks: set[asyncio.Task[Any]] = set()
        self._loop_task: asyncio.Task[Any] | None = None
        self._bindings_abandoned = False
        self._status_forbidden = ForbiddenOnce()
        self.binder = Binder(
            cache=cache,
            queue=queue,
            metrics=metrics,
            on_failure=self._handle_failure,
            on_success=self._handle_bound,
            lookup_pod=lookup_pod,
            fenced=fenced,
            concurrency=binding_concurrency,
            nominate=self._nominate_for_binding if nominate_for_expectation else None,
            extender_bind=extenders.bind if extenders is not None else None,
        )
        self._groups = (
            PodGroupCycles(
                cache=cache,
                snapshot=snapshot,
                queue=queue,
                assume_and_reserve=self._assume_and_reserve,
                handle_failure=self._handle_failure,
                preempt_group=preempt_group,
                metrics=metrics.workload,
                tree=composite_tree(frameworks),
            )
            if pod_groups
            else None
        )

    async def run(self) -> None:
        """Schedule pods until the queue is closed or the task is cancelled."""
        self._loop_task = asyncio.current_task()
        while (qpi := await self._queue.pop()) is not None:
            cycle = self._queue.scheduling_cycle
            try:
                if self.extenders is None:
                    tasks = self._schedule(qpi, cycle)
                else:
                    tasks = await self._schedule_with_extenders(qpi, cycle, self.extenders)
            except Exception as exc:  # the loop never dies because of one pod
                log.exception("scheduling cycle crashed", extra=kv(pod=qpi.pod.key))
                self._handle_failure(None, qpi, Status.from_error(exc), cycle, time.monotonic())
                tasks = []
            for task in tasks:
                await self.binder.submit(task)
            await asyncio.sleep(0)

    def _schedule(self, qpi: QueuedPodInfo, cycle: int) -> list[BindingTask]:
        """One cycle: the pod's, or its pod group's (all its queued members at once)."""
        fw = self._frameworks.get(qpi.pod.scheduler_name)
        groups, pod = self._groups, qpi.pod
        if groups is not None and fw is not None and pod.pod_group_name and not self._skip(pod):
            return groups.schedule(fw, qpi, cycle)
        task = self.schedule_one(qpi, cycle)
        return [task] if task is not None else []

    async def _schedule_with_extenders(
        self, qpi: QueuedPodInfo, cycle: int, extenders: Extenders
    ) -> list[BindingTask]:
        """`_schedule` when extenders are configured (a pod group is scheduled without
        them); a cycle cut short by cancellation puts its pod back in the queue."""
        pod = qpi.pod
        fw = self._frameworks.get(pod.scheduler_name)
        if fw is None or self._skip(pod) or (pod.pod_group_name and self._groups is not None):
            return self._schedule(qpi, cycle)
        started = time.monotonic()
        state = self._new_attempt(qpi)
        try:
            result = await extenders.schedule_pod(fw, state, pod, self._snapshot)
        except asyncio.CancelledError:
            self._queue.requeue_after_error(qpi, pod_scheduling_cycle=cycle)
            raise
        except (FitError, NoNodesAvailableError, SchedulingError) as err:
            self._cycle_failed(fw, qpi, err, cycle, started)
            return []
        self._metrics.algorithm_duration.observe(time.monotonic() - started)
        task = self._assume_and_reserve(
            fw, state, qpi, host=result.suggested_host, cycle=cycle, started=started
        )
        return [task] if task is not None else []

    async def drain(self, grace: float) -> None:
        """Stop taking pods and let in-flight bindings finish, within `grace` seconds.

        Called before the Lease is released and again once the election has ended; bindings
        abandoned the first time are not waited for a second time. The loop stops first: a
        pod it took now would only fail the fence check and be reported as a
        FailedScheduling error in the middle of a clean hand-over."""
        loop_task = self._loop_task
        if (
            loop_task is not None
            and not loop_task.done()
            and loop_task is not asyncio.current_task()
        ):
            loop_task.cancel()
            await asyncio.wait([loop_task], timeout=grace)
        if self._bindings_abandoned:
            return
        if not await self.binder.wait_idle(grace):
            self._bindings_abandoned = True
            log.warning("abandoning in-flight bindings at shutdown", extra=kv())

    def schedule_one(self, qpi: QueuedPodInfo, cycle: int) -> BindingTask | None:
        """Run one scheduling cycle; returns the binding to start, or None."""
        pod = qpi.pod
        fw = self._frameworks.get(pod.scheduler_name)
        if fw is None or self._skip(pod):
            self._queue.done(pod.uid)
            return None
        if log.isEnabledFor(V(3)):
            log.log(V(3), "Attempting to schedule pod", extra=kv(pod=pod.key))
        started = time.monotonic()
        state = self._new_attempt(qpi)
        try:
            snapshot = self._snapshot
            result = schedule_pod(
                fw, state, pod, snapshot.node_infos, journal=snapshot, cycle=cycle
            )
        except (FitError, NoNodesAvailableError, SchedulingError) as err:
            self._cycle_failed(fw, qpi, err, cycle, started)
            return None
        # As upstream, only a cycle that found a node counts (SchedulingAlgorithmLatency).
        self._metrics.algorithm_duration.observe(time.monotonic() - started)
        return self._assume_and_reserve(
            fw, state, qpi, host=result.suggested_host, cycle=cycle, started=started
        )

    def _new_attempt(self, qpi: QueuedPodInfo) -> CycleState:
        """A new attempt: the plugins that rejected the pod last time forgotten (upstream's
        Pop), the snapshot updated, a fresh cycle state."""
        qpi.unschedulable_plugins = set()
        qpi.pending_plugins = set()
        self._cache.update_snapshot(self._snapshot)
        state = CycleState()
        state.record_plugin_metrics = _RNG.randrange(100) < PLUGIN_METRICS_SAMPLE_PERCENT
        return state

    def _cycle_failed(
        self,
        fw: Framework,
        qpi: QueuedPodInfo,
        err: FitError | NoNodesAvailableError | SchedulingError,
        cycle: int,
        started: float,
    ) -> None:
        """Report a cycle that found no node (unschedulable, or an error)."""
        if isinstance(err, FitError):
            qpi.unschedulable_plugins = set(err.diagnosis.unschedulable_plugins)
            qpi.pending_plugins = set(err.diagnosis.pending_plugins)
            status = Status(Code.UNSCHEDULABLE, str(err))
            nominate = None if err.keep_nomination else err.nominated_node_name
            self._handle_failure(fw, qpi, status, cycle, started, nominate=nominate)
        elif isinstance(err, NoNodesAvailableError):
            status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
            self._handle_failure(fw, qpi, status, cycle, started)
        else:
            self._handle_failure(fw, qpi, err.status, cycle, started)

    def _skip(self, pod: Pod) -> bool:
        """Pods being deleted, or already assumed by an earlier cycle, are not scheduled."""
        return pod.deleting or self._cache.is_assumed(pod.uid)

    def _assume_and_reserve(
        self,
        fw: Framework,
        state: CycleState,
        qpi: QueuedPodInfo,
        *,
        host: str,
        cycle: int,
        started: float,
    ) -> BindingTask | None:
        outcome = reserve_for_binding(
            fw, state, qpi, host, cycle=cycle, started=started, cache=self._cache, queue=self._queue
        )
        if isinstance(outcome, BindingTask):
            return outcome
        status = outcome
        if status.is_rejected():
            status = rejected_on_node(qpi, host, status)
        self._handle_failure(fw, qpi, status, cycle, started)
        return None

    def _handle_bound(self, task: BindingTask) -> None:
        pod, profile = task.assumed, task.framework.profile_name
        elapsed = time.monotonic() - task.started
        self._metrics.schedule_attempts.labels("scheduled", profile).inc()
        self._metrics.attempt_duration.labels("scheduled", profile).observe(elapsed)
        self._metrics.pod_scheduling_attempts.observe(task.qpi.attempts)
        if task.qpi.initial_attempt_timestamp is not None:
            sli = time.monotonic() - task.qpi.initial_attempt_timestamp
            self._metrics.pod_scheduling_sli_duration.labels(str(task.qpi.attempts)).observe(sli)
        self._record_event(
            controller=profile,
            pod=pod,
            event_type="Normal",
            reason="Scheduled",
            action="Binding",
            note=f"Successfully assigned {pod.key} to {task.node_name}",
        )
        log.log(V(2), "Successfully bound pod to node", extra=kv(pod=pod.key, node=task.node_name))

    def _handle_failure(
        self,
        fw: Framework | None,
        qpi: QueuedPodInfo,
        status: Status,
        cycle: int,
        started: float,
        *,
        nominate: str | None = "",
    ) -> None:
        """Requeue the pod and report why (event + PodScheduled=False), as upstream does.

        `nominate` is the node the pod is now nominated to (preemption); "" clears its
        nomination (every failure but a FitError whose PostFilter said nothing), None
        leaves it as it is."""
        pod = qpi.pod
        rejected = status.is_rejected()
        result = "unschedulable" if rejected else "error"
        profile = fw.profile_name if fw is not None else pod.scheduler_name
        self._metrics.schedule_attempts.labels(result, profile).inc()
        self._metrics.attempt_duration.labels(result, profile).observe(time.monotonic() - started)
        current = self._lookup_pod(pod.key)
        if current is None or current.uid != pod.uid or current.node_name:
            self._queue.done(pod.uid)  # deleted or bound meanwhile: nothing to report
            return
        if rejected:
            self._queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=cycle)
        else:
            self._queue.requeue_after_error(qpi, pod_scheduling_cycle=cycle)
        if nominate is not None:
            self._nominate(current, nominate)
        if self._fenced():
            # We may no longer lead: the next leader reports on this pod, not us (neither
            # the event nor the condition, which the client's fence would refuse anyway).
            log.log(
                V(2),
                "not reporting a failure: leader lease not renewed in time",
                extra=kv(pod=pod.key),
            )
            return
        message = status.message or str(status)
        reason = UNSCHEDULABLE if rejected else SCHEDULER_ERROR
        # As upstream: a pod that fits nowhere at V(2), a scheduling error always.
        level = V(2) if rejected else logging.INFO
        log.log(level, "Unable to schedule pod", extra=kv(pod=pod.key, reason=reason, err=message))
        self._record_event(
            controller=profile,
            pod=pod,
            event_type="Warning",
            reason="FailedScheduling",
            action="Scheduling",
            note=message,
        )
        self._spawn(
            self._set_condition(current, reason=reason, message=message, nominated=nominate)
        )

    def _nominate(self, pod: Pod, node_name: str) -> None:
        """Hold `node_name`'s room for the pod (the nominator), or forget its nomination."""
        if node_name:
            self._queue.nominator.add(pod, node_name=node_name)
        else:
            self._queue.nominator.delete(pod.uid)

    async def _nominate_for_binding(self, pod: Pod, node_name: str) -> None:
        """Tell autoscalers where a pod that waits at Permit or PreBind is going (upstream
        logs a failure and binds on: it is not critical)."""
        try:
            await patch_nominated_node_name(self._api, pod, node_name)
        except NotFound:
            return
        except Forbidden as exc:
            self._status_forbidden.report(pod, exc)
        except ApiError as exc:
            log.error(  # noqa: TRY400 - one line: an API error is no bug to trace back
                "Failed to update the nominated node name in the binding cycle",
                extra=kv(pod=pod.key, nominatedNodeName=node_name, err=exc),
            )

    async def _set_condition(
        self, pod: Pod, *, reason: str, message: str, nominated: str | None = None
    ) -> None:
        try:
            await patch_pod_scheduled(
                self._api,
                pod,
                status="False",
                reason=reason,
                message=message,
                nominated_node_name=nominated,
            )
        except NotFound:
            return
        except Forbidden as exc:
            self._status_forbidden.report(pod, exc)
        except ApiError as exc:
            log.warning("could not update pod status", extra=kv(pod=pod.key, err=exc))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)
