"""The binding cycle, run as a bounded number of concurrent tasks (like kube-scheduler's
binding goroutines), so the next pod is scheduled while earlier bindings are in flight.

    WaitOnPermit -> PreBind -> Bind -> (cache: finish binding) -> Scheduled event -> PostBind

On failure: Unreserve, forget the assumed pod in the cache, then either drop the pod or
requeue it with backoff and report FailedScheduling (reason SchedulerError). What the API
server and the informer say decides, never the status code alone: a 409 is "settled" only
when its message says the pod is already assigned, being deleted or was re-created (UID
precondition), or the informer shows the pod bound, deleted or replaced; any other 409 (an
etcd hiccup answers "rpc error: code = Unavailable" with 409) is retried like a 500.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from kubesched.cache import SchedulerCache
from kubesched.framework import Code, CycleState, Diagnosis, Status
from kubesched.framework.logkv import kv
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ApiError, Conflict, Fenced, NotFound
from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.runtime import FitError
from kubesched.runtime.framework import Framework
from kubesched.scheduler.eventhandlers import ASSIGNED_POD_DELETE
from kubesched.scheduler.metrics import SchedulerMetrics

log = logging.getLogger(__name__)

BIND_TIMEOUT_SECONDS = 30.0
# What the API server's pods/binding answers with 409 when there is nothing left to do.
_SETTLED_CONFLICTS = ("already assigned", "is being deleted", "precondition failed")

PodLookup = Callable[[str], Pod | None]


def binding_settled(error: ApiError, pod: Pod, current: Pod | None) -> bool:
    """Whether a failed binding needs no retry: the pod is gone, bound or replaced.

    `current` is the informer's copy of the pod (None when it has none)."""
    if current is None or current.uid != pod.uid or current.node_name or current.deleting:
        return True
    if isinstance(error, NotFound):
        return True
    message = error.message.lower()
    return isinstance(error, Conflict) and any(text in message for text in _SETTLED_CONFLICTS)


def binding_body(pod: Pod, node_name: str) -> dict[str, object]:
    """A v1 Binding carrying the pod's UID, so a re-created pod of the same name is not bound."""
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
    }


async def post_binding(api: KubeApi, pod: Pod, node_name: str) -> None:
    """POST `pods/binding`; raises ApiError (NotFound, Conflict, ...) on failure."""
    path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/binding"
    await api.post(path, binding_body(pod, node_name), timeout=BIND_TIMEOUT_SECONDS)


def assume_reserve_permit(
    fw: Framework,
    state: CycleState,
    pod: Pod,
    host: str,
    *,
    cache: SchedulerCache,
    queue: SchedulingQueue,
) -> tuple[Pod, Status]:
    """The end of a scheduling cycle: the pod assumed on `host` in the cache (its nomination
    dropped, as upstream's assume: it has its node), Reserve, then Permit if Reserve
    succeeded. The assumed pod and the last status (SUCCESS or WAIT: on to binding; else
    the caller unreserves and forgets the assumed pod)."""
    assumed = cache.assume_pod(pod, host)
    queue.nominator.delete(pod.uid)
    status = fw.run_reserve(state, assumed, host)
    if status.is_success():
        status = fw.run_permit(state, assumed, host)
    return assumed, status


def rejected_on_node(qpi: QueuedPodInfo, node_name: str, status: Status) -> Status:
    """A Reserve/Permit rejection as upstream reports it: a FitError over the one chosen node
    (`0/1 nodes are available: 1 <reason>.`), the rejecting plugin kept for requeueing."""
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(node_name, status)
    diagnosis.add_plugin_status(status)
    qpi.unschedulable_plugins = set(diagnosis.unschedulable_plugins)
    qpi.pending_plugins = set(diagnosis.pending_plugins)
    error = FitError(pod=qpi.pod, num_all_nodes=1, diagnosis=diagnosis)
    return Status(status.code, str(error), plugin=status.plugin, error=error)


@dataclass(slots=True)
class BindingTask:
    """Everything one binding cycle needs from the scheduling cycle that produced it."""

    framework: Framework
    state: CycleState
    qpi: QueuedPodInfo
    assumed: Pod
    node_name: str
    scheduling_cycle: int
    started: float


def reserve_for_binding(
    fw: Framework,
    state: CycleState,
    qpi: QueuedPodInfo,
    host: str,
    *,
    cycle: int,
    started: float,
    cache: SchedulerCache,
    queue: SchedulingQueue,
) -> BindingTask | Status:
    """`assume_reserve_permit`, then the binding to start, or (Unreserve run, the assumed pod
    forgotten) the status that stopped the pod."""
    assumed, status = assume_reserve_permit(fw, state, qpi.pod, host, cache=cache, queue=queue)
    if status.is_success() or status.is_wait():
        return BindingTask(fw, state, qpi, assumed, host, cycle, started)
    fw.run_unreserve(state, assumed, host)
    cache.forget_pod(assumed)
    return status


FailureReporter = Callable[[Framework, QueuedPodInfo, Status, int, float], None]
Nominator = Callable[[Pod, str], Awaitable[None]]
"""Sets a pod's `nominatedNodeName` (never raises: a failure is logged, binding goes on)."""
SuccessReporter = Callable[[BindingTask], None]
ExtenderBind = Callable[[Pod, str], Awaitable[Status | None]]
"""Binds a pod through the extender that binds it; None when none does (`extender_cycle`)."""


class Binder:
    """Runs binding cycles with at most `concurrency` in flight."""

    def __init__(
        self,
        *,
        cache: SchedulerCache,
        queue: SchedulingQueue,
        metrics: SchedulerMetrics,
        on_failure: FailureReporter,
        on_success: SuccessReporter,
        lookup_pod: PodLookup = lambda _key: None,
        fenced: Callable[[], bool] = lambda: False,
        concurrency: int = 64,
        nominate: Nominator | None = None,
        extender_bind: ExtenderBind | None = None,
    ) -> None:
        """`nominate` (the NominatedNodeNameForExpectation gate, on by default as in v1.37)
        sets a pod's `nominatedNodeName` when it will wait at Permit or PreBind has work."""
        self._nominate = nominate
        self._extender_bind = extender_bind
        """Binds through an extender that binds the pod (None: no extender binds it)."""
        self._cache = cache
        self._queue = queue
        self._metrics = metrics
        self._on_failure = on_failure
        self._on_success = on_success
        self._lookup_pod = lookup_pod
        self._fenced = fenced
        self._slots = asyncio.Semaphore(concurrency)
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    async def submit(self, task: BindingTask) -> None:
        """Start a binding cycle; waits only when `concurrency` bindings are already running."""
        await self._slots.acquire()
        runner = asyncio.create_task(self._run(task), name=f"bind {task.assumed.key}")
        self._tasks.add(runner)
        runner.add_done_callback(self._tasks.discard)

    async def wait_idle(self, timeout: float) -> bool:
        """Wait for in-flight bindings (for a clean hand-over); False if some were abandoned."""
        if not self._tasks:
            return True
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout)
        return not pending

    async def _run(self, task: BindingTask) -> None:
        try:
            status = await self._bind(task)
            if status.is_success():
                self._succeeded(task)
            else:
                self._failed(task, status)
        except Exception as exc:
            log.exception("binding cycle failed", extra=kv(pod=task.assumed.key))
            self._failed(task, Status.from_error(exc))
        finally:
            self._queue.done(task.assumed.uid)
            self._slots.release()

    async def _wait_on_permit(self, fw: Framework, pod: Pod) -> Status:
        """WaitOnPermit; a pod that waited is timed (`scheduler_permit_wait_duration_seconds`
        by the decision's code, as upstream's framework)."""
        if fw.handle.waiting_pods.get(pod.uid) is None:
            return await fw.wait_on_permit(pod)
        started = time.monotonic()
        status = await fw.wait_on_permit(pod)
        waited = self._metrics.permit_wait_duration.labels(str(status.code))
        waited.observe(time.monotonic() - started)
        return status

    async def _bind(self, task: BindingTask) -> Status:
        fw, state, pod, node = task.framework, task.state, task.assumed, task.node_name
        if self._nominate is not None:
            # Upstream's bindingCycle: PreBindPreFlight, and a nomination to the node when
            # Permit or PreBind will make the pod wait (otherwise it is bound soon anyway).
            pre_flight = fw.run_pre_bind_pre_flights(state, pod, node)
            if pre_flight.code is Code.ERROR or pre_flight.is_rejected():
                return pre_flight
            if pre_flight.is_success() or fw.will_wait_on_permit(pod):
                await self._nominate(pod, node)
        status = await self._wait_on_permit(fw, pod)
        if status.is_rejected():
            return rejected_on_node(task.qpi, node, status)
        if not status.is_success():
            return status
        if self._fenced():
            return Status.from_error(Fenced("not binding: leader lease not renewed in time"))
        status = await fw.run_pre_bind(state, pod, node)
        if not status.is_success():
            return status
        # Upstream's bind: an extender that binds this pod comes before the Bind plugins.
        bound = None if self._extender_bind is None else await self._extender_bind(pod, node)
        return bound if bound is not None else await fw.run_bind(state, pod, node)

    def _succeeded(self, task: BindingTask) -> None:
        self._cache.finish_binding(task.assumed)
        self._on_success(task)
        task.framework.run_post_bind(task.state, task.assumed, task.node_name)

    def _failed(self, task: BindingTask, status: Status) -> None:
        task.framework.run_unreserve(task.state, task.assumed, task.node_name)
        self._cache.forget_pod(task.assumed)
        try:
            self._report_failure(task, status)
        finally:
            # The room the assumed pod held is free again: as upstream's
            # handleBindingCycleError, requeue the pods waiting for room (AssignedPodDelete),
            # after the pod itself went back to the queue and without it.
            uid = task.assumed.uid
            self._queue.move_all_to_active_or_backoff(
                ASSIGNED_POD_DELETE, task.assumed, None, pre_check=lambda pod: pod.uid != uid
            )

    def _report_failure(self, task: BindingTask, status: Status) -> None:
        if isinstance(status.error, Fenced) or self._fenced():
            # We may no longer lead: another replica may already have bound this pod, so
            # write nothing about it (a write refused at the socket, a PreBind or a Bind
            # that failed meanwhile). Requeue quietly; if the lease is lost the process
            # exits and the pod is the next leader's.
            log.info(
                "not binding: leader lease not renewed in time",
                extra=kv(pod=task.assumed.key, err=status.error),
            )
            self._queue.requeue_after_error(task.qpi, pod_scheduling_cycle=task.scheduling_cycle)
            return
        error = status.error
        pod = task.assumed
        if isinstance(error, NotFound | Conflict) and binding_settled(
            error, pod, self._lookup_pod(pod.key)
        ):
            # Gone, being deleted, re-created, or already bound by someone else.
            log.info("dropping pod after binding conflict", extra=kv(pod=pod.key, err=error))
            return
        self._on_failure(task.framework, task.qpi, status, task.scheduling_cycle, task.started)
