"""Carrying out a preemption the scheduling cycle decided (upstream's asynchronous
preemption executor, `SchedulerAsyncPreemption`, on by default since 1.33).

The cycle only decides: DefaultPreemption picks the node and the victims, the preemptor is
nominated to that node and goes back to the queue. `Preemptions.start` then, in the
background:

1. clears the nomination to that node of every pending pod of lower priority (it may no
   longer fit there; the API's `status.nominatedNodeName` and the in-memory nominator);
2. evicts every victim but one at once, then the last one: one waiting at Permit is
   rejected in memory; any other gets the `DisruptionTarget` condition (reason
   `PreemptionByScheduler`) and is DELETEd with its UID as precondition and the default
   grace period, as kube-scheduler does; each evicted victim gets a `Preempted` event
   ("Preempted by pod <uid> on node <node>");
3. while it runs, the preemptor is held out of activeQ (DefaultPreemption's PreEnqueue asks
   `is_preempting`), so it cannot preempt a second time, until its last victim is gone or
   terminating (then that victim's deletion event lets it in, as upstream's
   `lastVictimsPendingPreemption`, even before the run returns); when it ends, a preemptor still
   held is activated, as is one whose eviction failed or whose victims went in memory or
   were gone already (no deletion event of ours will wake it; kube-scheduler v1.37.2 can
   leave such a pod for its 5-minute flush, kubernetes/kubernetes#141694).

The preemptor is scheduled again when its victims are gone (their deletion is a cluster
event); until then the nominator holds the freed room for it. A victim with a grace period
stays, terminating, until its kubelet confirms it stopped.

Metrics, as kube-scheduler: `scheduler_preemption_attempts_total` counts every run of
DefaultPreemption's PostFilter (found a candidate or not; the plugin reports it through its
Handle, `attempted`), `scheduler_preemption_victims` observes the number of victims of each
preemption started (`start`, as upstream's executor, before any eviction).

A pod group's preemption (`start_group`, the `GenericWorkload` gate) runs the same way for
the group: its UID is held (DefaultPreemption's PreEnqueue holds its members), the "node" is
`cluster`, the texts name the `podgroup` (`Preempted by podgroup <uid> on node cluster`,
`<scheduler>: preempting to accommodate a higher priority podgroup`, the event's related
object is the PodGroup), and the members held are activated at the end.

Also here: the pods nominated to nodes (from the queue's nominator). PodDisruptionBudgets
are DefaultPreemption's declared resource, read from their lister.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from kubesched.apis import names
from kubesched.framework import Code, WaitingPods
from kubesched.framework.logkv import kv
from kubesched.kube.api import STRATEGIC_MERGE_PATCH, KubeApi
from kubesched.kube.errors import ApiError, Conflict, Fenced, NotFound
from kubesched.model import Pod, SchedulingPodGroup
from kubesched.plugins.default_preemption.victims import POD, PODGROUP
from kubesched.queue import Nominator
from kubesched.scheduler.event_recorder import ObjectRef, Recorder
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption_metrics import PreemptionMetrics
from kubesched.scheduler.preemptor import (
    GROUP_NODE,
    Preemptor,
    clear_nomination_patch,
    delete_with_uid,
    disruption_target_patch,
    pod_path,
)

log = logging.getLogger(__name__)

PLUGIN = names.DEFAULT_PREEMPTION
"""The PreEnqueue plugin that holds a preemptor while its victims are evicted."""
_NO_PODS: tuple[Pod, ...] = ()


EVICTIONS_AT_ONCE = 16
"""Victims of one preemption evicted at once: upstream's executor evicts them through its
parallelizer (`parallelism`, 16 by default). A pod group that preempts whole gangs has a
hundred victims or more, and a preemptor's evictions all at once overran the API server."""


class ActivateHeld(Protocol):
    """`SchedulingQueue.activate_held`."""

    def __call__(self, uid: str, *, gated_by: str, force: bool = False) -> None: ...


def _no_queue(uid: str, *, gated_by: str, force: bool = False) -> None:
    """No queue to activate pods in (a Handle built on its own, in tests)."""


class Preemptions:
    """One per process, shared by every profile's Handle.

    `nominator` is the queue's; `activate_held(uid, gated_by=..., force=...)` is the
    queue's `activate_held`, which lets a preemptor that DefaultPreemption's PreEnqueue held
    go back to activeQ. The queue and the frameworks (whose Handles hold this object) refer
    to each other, as upstream's queue and `SetPodActivator`: `server.components.build`
    ties the knot before anything runs.
    """

    def __init__(
        self,
        *,
        api: KubeApi,
        recorder: Recorder,
        waiting_pods: WaitingPods,
        nominator: Nominator,
        activate_held: ActivateHeld = _no_queue,
        fenced: Callable[[], bool] = lambda: False,
        metrics: SchedulerMetrics | None = None,
        pod_of: Callable[[str], Pod | None] | None = None,
    ) -> None:
        self._api = api
        self._observe = PreemptionMetrics(metrics)
        self._recorder = recorder
        self._waiting = waiting_pods
        self._nominator = nominator
        self._activate_held = activate_held
        self._fenced = fenced
        """True once leadership may be lost: a former leader evicts nothing (as it binds
        nothing)."""
        self._running: set[str] = set()
        self._pod_of = pod_of
        """The scheduler cache's pod by UID (the victims are assigned pods): whether the
        last victim is gone or terminating; None: not known, a preemptor is held until its
        run ends."""
        self._last_victims: dict[str, str] = {}
        """Preemptor UID -> the UID of the victim evicted last, once the others are."""
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- what the scheduling cycle reads ------------------------------------------------

    def has_nominated_pods(self) -> bool:
        return len(self._nominator) > 0

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        if not self.has_nominated_pods():
            return _NO_PODS
        return self._nominator.pods_for_node(node_name)

    def nominated_node_names(self) -> Sequence[str]:
        return self._nominator.node_names()

    def is_preempting(self, uid: str) -> bool:
        """Whether the preemptor (a pod or a pod group) is still evicting (upstream
        `isRunningPreemption`): once its last victim is gone or terminating it is not, even
        before the run returns, so that victim's deletion event lets it back in."""
        if uid not in self._running:
            return False
        last = self._last_victims.get(uid)
        if last is None or self._pod_of is None:
            return True
        victim = self._pod_of(last)
        return victim is not None and not victim.deleting

    # ---- acting -------------------------------------------------------------------------

    def observe_post_filter(self, plugin: str, code: Code, seconds: float) -> None:
        """A PostFilter plugin ran (`build_framework(observe_post_filter=)`): each run of
        DefaultPreemption is a preemption attempt, ended with `code` after `seconds`
        (`preemption_metrics`), with or without a candidate, as upstream counts them."""
        if plugin == names.DEFAULT_PREEMPTION:
            self._observe.attempted(code, seconds)

    def start(
        self,
        *,
        profile: str,
        preemptor: Pod,
        node_name: str,
        victims: Sequence[Pod],
        pdb_violations: int = 0,
    ) -> None:
        """Evict `victims` for `preemptor` in the background (see the module docstring)."""
        self._observe.victims_chosen(POD, len(victims), pdb_violations=pdb_violations)
        self._start(profile, Preemptor.of_pod(preemptor), node_name, victims)

    def start_group(
        self,
        *,
        profile: str,
        group: SchedulingPodGroup,
        members: Sequence[Pod],
        victims: Sequence[Pod],
        group_disruptions: int = 0,
        pdb_violations: int = 0,
    ) -> None:
        """Evict `victims` for a pod group (upstream `actuatePodGroupPreemption`): as for a
        pod, the group's UID is held while it runs, the event says `Preempted by podgroup
        <uid> on node cluster`, and the members held at PreEnqueue are activated at the end.
        Its victims count in `scheduler_workload_preemption_victims`, not in
        `scheduler_preemption_victims`, as upstream's; `group_disruptions` is how many of
        them are whole pod groups (`disruptionMode: All`)."""
        self._observe.victims_chosen(
            PODGROUP,
            len(victims),
            group_disruptions=group_disruptions,
            pdb_violations=pdb_violations,
        )
        self._start(profile, Preemptor.of_group(group, members), GROUP_NODE, victims)

    def _start(
        self, profile: str, preemptor: Preemptor, node_name: str, victims: Sequence[Pod]
    ) -> None:
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
        self,
        profile: str,
        preemptor: Preemptor,
        node_name: str,
        victims: list[Pod],
        lower: list[Pod],
    ) -> None:
        log.info(
            "preempting", extra=kv(preemptor=preemptor.key, node=node_name, victims=len(victims))
        )
        activate = False
        failed = False
        started = time.monotonic()
        try:
            failed = not await self._clear_nominations(lower)
            *first, last = victims
            settled = await self._evict_all(profile, preemptor, node_name, first)
            if not settled[1]:  # as upstream: the last victim only once the others are gone
                self._last_victims[preemptor.uid] = last.uid
                settled = _either(
                    settled, await self._evict_all(profile, preemptor, node_name, [last])
                )
            activate, evictions_failed = settled
            failed = failed or evictions_failed
        finally:
            self._running.discard(preemptor.uid)
            self._last_victims.pop(preemptor.uid, None)
            self._release(preemptor, force=activate)
            self._observe.run_ended(
                preemptor.kind, failed=failed, seconds=time.monotonic() - started
            )

    async def _evict_all(
        self, profile: str, preemptor: Preemptor, node_name: str, victims: list[Pod]
    ) -> tuple[bool, bool]:
        """Evict `victims`, `EVICTIONS_AT_ONCE` at a time: (activate, failed). Activate when
        one went in memory or was gone already (no deletion event of ours will come) or its
        eviction failed."""
        slots = asyncio.Semaphore(EVICTIONS_AT_ONCE)

        async def evict(victim: Pod) -> bool:
            async with slots:
                return await self._evict(profile, preemptor, node_name, victim)

        results = await asyncio.gather(*map(evict, victims), return_exceptions=True)
        activate = failed = False
        for victim, result in zip(victims, results, strict=True):
            if isinstance(result, BaseException):
                activate = failed = True
                log.error(
                    "could not preempt victim",
                    extra=kv(preemptor=preemptor.key, victim=victim.key, err=result),
                )
            elif result:
                activate = True
        return activate, failed

    def _release(self, preemptor: Preemptor, *, force: bool) -> None:
        """Activate the preemptor's pods held while evicting (or all, with `force`). A pod
        group, queued as one unit, is only activated with `force` (an eviction failed, or no
        deletion event will come), as upstream's executor: else a victim's deletion moves it."""
        if preemptor.kind == PODGROUP and not force:
            return
        for pod in preemptor.pods:
            self._activate_held(pod.uid, gated_by=PLUGIN, force=force)

    async def _clear_nominations(self, pods: list[Pod]) -> bool:
        """Clear the nominations of `pods`; False if an API call failed (not critical)."""
        cleared = True
        for pod in pods:
            self._nominator.delete(pod.uid)
            if not pod.nominated_node_name:
                continue
            try:
                await self._api.patch(
                    f"{pod_path(pod)}/status",
                    clear_nomination_patch(pod),
                    content_type=STRATEGIC_MERGE_PATCH,
                )
            except ApiError as exc:  # not critical, as upstream
                log.warning("cannot clear nominatedNodeName", extra=kv(pod=pod.key, err=exc))
                cleared = False
        return cleared

    async def _evict(self, profile: str, preemptor: Preemptor, node_name: str, victim: Pod) -> bool:
        """Evict one victim; True when no deletion event of ours will wake the preemptor: it
        was rejected in memory (it waited at Permit) or was gone already. kube-scheduler
        v1.37.2 activates the preemptor in the first case only, and a preemptor whose last
        victim was gone can wait in its unschedulable pool until the 5-minute flush
        (kubernetes/kubernetes#141694); kubesched activates it in both, as the fix proposed
        there does."""
        note = f"Preempted by {preemptor.kind} {preemptor.uid} on node {node_name}"
        if self._fenced():
            raise Fenced("not preempting: leader lease not renewed in time")
        waiting = self._waiting.get(victim.uid)
        if waiting is not None and waiting.reject(PLUGIN, "preempted"):
            self._event(profile, victim, preemptor, f"{note} (in kube-scheduler memory).")
            return True
        try:
            if not victim.preempted_by_scheduler:
                await self._api.patch(
                    f"{pod_path(victim)}/status",
                    disruption_target_patch(victim, preemptor),
                    content_type=STRATEGIC_MERGE_PATCH,
                )
            await self._api.delete(pod_path(victim), body=delete_with_uid(victim))
        except (NotFound, Conflict):
            log.info("victim already deleted", extra=kv(victim=victim.key))
            return True
        self._event(profile, victim, preemptor, note)
        return False

    def _event(self, profile: str, victim: Pod, preemptor: Preemptor, note: str) -> None:
        self._recorder.record(
            controller=profile,
            regarding=ObjectRef.of_pod(victim),
            related=preemptor.ref,
            type="Normal",
            reason="Preempted",
            action="Preempting",
            note=note,
        )


def _either(first: tuple[bool, bool], second: tuple[bool, bool]) -> tuple[bool, bool]:
    return first[0] or second[0], first[1] or second[1]
