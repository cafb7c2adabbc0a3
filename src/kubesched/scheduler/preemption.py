"""Carrying out a preemption the scheduling cycle decided (upstream's asynchronous
preemption executor, `SchedulerAsyncPreemption`, on by default since 1.33).

The cycle only decides: DefaultPreemption picks the node and the victims, the preemptor is
nominated to that node and goes back to the queue. `Preemptions.start` then, in the
background:

1. clears the nomination to that node of every pending pod of lower priority (it may no
   longer fit there; the API's `status.nominatedNodeName` and the in-memory nominator);
2. evicts every victim at once: one waiting at Permit is rejected in memory; any other gets
   the `DisruptionTarget` condition (reason `PreemptionByScheduler`) and is DELETEd with
   its UID as precondition and the default grace period, as kube-scheduler does; each
   evicted victim gets a `Preempted` event ("Preempted by pod <uid> on node <node>");
3. while it runs, the preemptor is held out of activeQ (DefaultPreemption's PreEnqueue asks
   `is_preempting`), so it cannot preempt a second time; when it ends, a preemptor still
   held is activated, as is one whose eviction failed or whose victims went in memory.

The preemptor is scheduled again when its victims are gone (their deletion is a cluster
event); until then the nominator holds the freed room for it. A victim with a grace period
stays, terminating, until its kubelet confirms it stopped.

Metrics, as kube-scheduler: `scheduler_preemption_attempts_total` counts every run of
DefaultPreemption's PostFilter (found a candidate or not; the plugin reports it through its
Handle, `attempted`), `scheduler_preemption_victims` observes the number of victims of each
preemption started (`start`, as upstream's executor, before any eviction).

Also here: the pods nominated to nodes (from the queue's nominator) and the
PodDisruptionBudgets (from an informer the application runs when DefaultPreemption is on).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from kubesched.framework import WaitingPods
from kubesched.kube.api import STRATEGIC_MERGE_PATCH, KubeApi
from kubesched.kube.errors import ApiError, Conflict, NotFound
from kubesched.model import Pod, PodDisruptionBudget
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.event_recorder import EventRecorder, ObjectRef
from kubesched.scheduler.metrics import SchedulerMetrics

log = logging.getLogger(__name__)

PLUGIN = "DefaultPreemption"
"""The PreEnqueue plugin that holds a preemptor while its victims are evicted."""
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
_NO_PODS: tuple[Pod, ...] = ()


class FencedError(Exception):
    """Leadership may have been lost: victims are not evicted."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pod_path(pod: Pod) -> str:
    return f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}"


def _ref(pod: Pod) -> ObjectRef:
    return ObjectRef("Pod", pod.namespace, pod.name, pod.uid)


class Preemptions:
    """One per process, shared by every profile's Handle.

    `queue`, `pdbs` and `fenced` are attached by the application once they exist (the
    frameworks, and so the Handles, are built before the queue and the elector).
    """

    def __init__(
        self,
        *,
        api: KubeApi,
        recorder: EventRecorder,
        waiting_pods: WaitingPods,
        metrics: SchedulerMetrics | None = None,
    ) -> None:
        self._api = api
        self._metrics = metrics
        self._recorder = recorder
        self._waiting = waiting_pods
        self.queue: SchedulingQueue | None = None
        self.pdbs: Mapping[str, PodDisruptionBudget] = {}
        self.fenced: Callable[[], bool] = lambda: False
        """True once leadership may be lost: a former leader evicts nothing (as it binds
        nothing)."""
        self._running: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- what the scheduling cycle reads ------------------------------------------------

    def has_nominated_pods(self) -> bool:
        return self.queue is not None and len(self.queue.nominator) > 0

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        if not self.has_nominated_pods():
            return _NO_PODS
        assert self.queue is not None
        return self.queue.nominated_pods_for_node(node_name)

    def pod_disruption_budgets(self) -> list[PodDisruptionBudget]:
        return list(self.pdbs.values())

    def is_preempting(self, uid: str) -> bool:
        return uid in self._running

    # ---- acting -------------------------------------------------------------------------

    def attempted(self) -> None:
        """DefaultPreemption's PostFilter ran once (`scheduler_preemption_attempts_total`)."""
        if self._metrics is not None:
            self._metrics.preemption_attempts.inc()

    def start(
        self, *, profile: str, preemptor: Pod, node_name: str, victims: Sequence[Pod]
    ) -> None:
        """Evict `victims` for `preemptor` in the background (see the module docstring)."""
        if self._metrics is not None:
            self._metrics.preemption_victims.observe(len(victims))
        evict = [victim for victim in victims if not victim.deleting]
        if not evict:  # their graceful deletion already started
            return
        lower = [
            pod
            for pod in self.nominated_pods_for_node(node_name)
            if pod.priority < preemptor.priority
        ]
        self._running.add(preemptor.uid)
        task = asyncio.get_running_loop().create_task(
            self._run(profile, preemptor, node_name, evict, lower)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait_idle(self) -> None:
        """Wait for every eviction in flight (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _run(
        self, profile: str, preemptor: Pod, node_name: str, victims: list[Pod], lower: list[Pod]
    ) -> None:
        log.info(
            '"preempting" preemptor="%s" node="%s" victims=%d',
            preemptor.key,
            node_name,
            len(victims),
        )
        activate = False
        try:
            await self._clear_nominations(lower)
            results = await asyncio.gather(
                *(self._evict(profile, preemptor, node_name, victim) for victim in victims),
                return_exceptions=True,
            )
            for victim, result in zip(victims, results, strict=True):
                if isinstance(result, BaseException):
                    activate = True
                    log.error(
                        '"could not preempt victim" preemptor="%s" victim="%s" err="%s"',
                        preemptor.key,
                        victim.key,
                        result,
                    )
                elif result:
                    activate = True  # evicted in memory: no deletion event will come
        finally:
            self._running.discard(preemptor.uid)
            self._release(preemptor, force=activate)

    def _release(self, preemptor: Pod, *, force: bool) -> None:
        """Activate the preemptor if it was held while evicting (or `force`)."""
        queue = self.queue
        if queue is None:
            return
        qpi = queue.get(preemptor.uid)
        if qpi is None:
            return
        if force or qpi.gating_plugin == PLUGIN:
            queue.activate([qpi.pod])

    async def _clear_nominations(self, pods: list[Pod]) -> None:
        for pod in pods:
            if self.queue is not None:
                self.queue.nominator.delete(pod.uid)
            if not pod.nominated_node_name:
                continue
            body: dict[str, Any] = {
                "metadata": {"uid": pod.uid},
                "status": {"nominatedNodeName": None},
            }
            try:
                await self._api.patch(
                    f"{_pod_path(pod)}/status", body, content_type=STRATEGIC_MERGE_PATCH
                )
            except ApiError as exc:  # not critical, as upstream
                log.warning('"cannot clear nominatedNodeName" pod="%s" err="%s"', pod.key, exc)

    async def _evict(self, profile: str, preemptor: Pod, node_name: str, victim: Pod) -> bool:
        """Evict one victim; True when it was rejected in memory (it waited at Permit)."""
        note = f"Preempted by pod {preemptor.uid} on node {node_name}"
        if self.fenced():
            raise FencedError("not preempting: leader lease not renewed in time")
        waiting = self._waiting.get(victim.uid)
        if waiting is not None and waiting.reject(PLUGIN, "preempted"):
            self._event(profile, victim, preemptor, f"{note} (in kube-scheduler memory).")
            return True
        try:
            await self._mark_disruption_target(victim, scheduler_name=preemptor.scheduler_name)
            await self._api.delete(
                _pod_path(victim),
                body={
                    "apiVersion": "v1",
                    "kind": "DeleteOptions",
                    "preconditions": {"uid": victim.uid},
                },
            )
        except (NotFound, Conflict):
            log.info('"victim already deleted" victim="%s"', victim.key)
            return False
        self._event(profile, victim, preemptor, note)
        return False

    async def _mark_disruption_target(self, victim: Pod, *, scheduler_name: str) -> None:
        if victim.preempted_by_scheduler:
            return
        condition: dict[str, Any] = {
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": PREEMPTION_BY_SCHEDULER,
            "message": f"{scheduler_name}: preempting to accommodate a higher priority pod",
            "lastTransitionTime": _now(),
        }
        if victim.generation:
            condition["observedGeneration"] = victim.generation
        body = {"metadata": {"uid": victim.uid}, "status": {"conditions": [condition]}}
        await self._api.patch(
            f"{_pod_path(victim)}/status", body, content_type=STRATEGIC_MERGE_PATCH
        )

    def _event(self, profile: str, victim: Pod, preemptor: Pod, note: str) -> None:
        self._recorder.record(
            controller=profile,
            regarding=_ref(victim),
            related=_ref(preemptor),
            type="Normal",
            reason="Preempted",
            action="Preempting",
            note=note,
        )
