"""A pod's scheduling cycle when the config has `extenders:` (upstream `schedulePod` with
`sched.Extenders`): the profile's PreFilter and Filter plugins, then each interested
extender's filter verb over the feasible nodes, one after the other; the Score plugins and
the interested extenders' prioritize verbs (all at once), each extender score multiplied by
its weight and by MaxNodeScore / MaxExtenderPriority and added to the node's total; the
host picked as always. Ignorable extenders that fail are skipped (logged); any other
failing filter fails the cycle with the error's text. Nodes an extender rejects join the
diagnosis, so FailedScheduling counts them as kube-scheduler does, and `Extender` joins the
pod's rejecting plugins (any cluster event requeues it).

The extender calls are awaited on the event loop, so informers, bindings and the Lease go on
meanwhile. The cycle's snapshot cannot change under it: only the scheduling loop refreshes
the snapshot (`SchedulerCache.update_snapshot`, at the start of each cycle) and the loop
runs one cycle at a time; the event handlers write to the cache only. The profile's node
columns are caught up from the snapshot's journal at the start, as in `schedule_pod`.

PostFilter narrows DefaultPreemption's candidates through the extenders' preempt verbs
(`extender_preemption`). Not done here: the pod-group cycle (GenericWorkload) does not
consult extenders.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

from kubesched.apis.extenders import EXTENDER, MAX_EXTENDER_PRIORITY
from kubesched.cache import Snapshot
from kubesched.framework import CycleState, Status
from kubesched.framework.diagnosis import Diagnosis
from kubesched.framework.interfaces import MAX_NODE_SCORE
from kubesched.framework.logkv import kv
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import SUCCESS, Code
from kubesched.framework.verbosity import V
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ApiError
from kubesched.kube.extender_http import ExtenderCallError
from kubesched.model import Pod
from kubesched.runtime import FitError, Framework, NoNodesAvailableError, SchedulingError
from kubesched.runtime.kept_filters import FeasibleNodes
from kubesched.runtime.schedule import ScheduleResult, find_nodes_that_fit, prioritize_nodes
from kubesched.runtime.scoring import ScoreResult, select_host
from kubesched.scheduler.extender_preemption import post_filter
from kubesched.scheduler.extenders import HttpExtender

log = logging.getLogger(__name__)
_SCALE = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY


class Extenders:
    """The configured extenders, the ignorable ones last (as upstream's `buildExtenders`)."""

    def __init__(self, extenders: Sequence[HttpExtender], api: KubeApi) -> None:
        self.all = tuple(sorted(extenders, key=lambda extender: extender.ignorable))
        self._api = api
        self._look = any(e.is_filter or e.is_prioritizer for e in self.all)

    async def close(self) -> None:
        """Close every extender's connections."""
        for extender in self.all:
            await extender.client.close()

    async def schedule_pod(
        self, fw: Framework, state: CycleState, pod: Pod, snapshot: Snapshot
    ) -> ScheduleResult:
        """`runtime.schedule_pod` with the extenders (same errors: NoNodesAvailableError,
        FitError after PostFilter, SchedulingError)."""
        if log.isEnabledFor(V(3)):
            log.log(V(3), "Attempting to schedule pod", extra=kv(pod=pod.key))
        nodes = snapshot.node_infos
        if not nodes:
            raise NoNodesAvailableError
        fw.node_columns.catch_up(snapshot, nodes)
        body = _PodBody(self._api, pod)
        feasible, diagnosis = find_nodes_that_fit(
            fw, state, pod, nodes, journal=snapshot, extenders_look=self._look
        )
        passed = await self._filter(pod, body, feasible, diagnosis)
        if not passed and _nominated_alone(pod, feasible, nodes):
            # Upstream: the nominated node fits the plugins but not the extenders, so every
            # node is looked at (the nominated one too).
            unnominated = dataclasses.replace(pod, nominated_node_name="")
            feasible, diagnosis = find_nodes_that_fit(
                fw, state, unnominated, nodes, journal=snapshot, extenders_look=self._look
            )
            passed = await self._filter(pod, body, feasible, diagnosis)
        if not passed:
            error = FitError(pod=pod, num_all_nodes=len(nodes), diagnosis=diagnosis)
            await post_filter(
                fw, state, error, extenders=self.all, pod_json=body.of, node_info=snapshot.get
            )
            raise error
        evaluated = len(passed) + len(diagnosis.node_to_status)
        if len(passed) == 1:
            return ScheduleResult(passed[0].name, evaluated, 1, None)
        scores = await self._prioritize(fw, state, pod, body, passed, snapshot=snapshot)
        return ScheduleResult(select_host(scores), evaluated, len(passed), scores)

    async def _filter(
        self, pod: Pod, body: _PodBody, feasible: FeasibleNodes, diagnosis: Diagnosis
    ) -> Sequence[NodeInfo]:
        """Upstream `findNodesThatPassExtenders`: each interested filter in turn over what
        the previous ones left."""
        current: Sequence[NodeInfo] = feasible
        for extender in self.all:
            if not current:
                break
            if not extender.is_filter or not extender.is_interested(pod):
                continue
            try:
                answer = await extender.filter(await body.get(), current)
            except ExtenderCallError as exc:
                if extender.ignorable:
                    log.info(
                        "Skipping extender as it returned error and has ignorable flag set",
                        extra=kv(extender=extender.name, err=exc),
                    )
                    continue
                raise SchedulingError(Status(Code.ERROR, str(exc), error=exc)) from exc
            statuses = diagnosis.node_to_status
            for name, reason in answer.unresolvable.items():
                statuses.set(name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason))
            for name, reason in answer.failed.items():
                if name not in answer.unresolvable:
                    statuses.set(name, Status(Code.UNSCHEDULABLE, reason))
            current = answer.nodes
        if len(current) != len(feasible):
            diagnosis.unschedulable_plugins.add(EXTENDER)
        return _with_places(feasible, current)

    async def _prioritize(
        self,
        fw: Framework,
        state: CycleState,
        pod: Pod,
        body: _PodBody,
        nodes: Sequence[NodeInfo],
        *,
        snapshot: Snapshot,
    ) -> ScoreResult:
        """Upstream `prioritizeNodes` with extenders: the plugins' totals (0 without Score
        plugins) plus every interested prioritizer's weighted, scaled scores."""
        if fw.has_score_plugins:
            places = None
            if isinstance(nodes, FeasibleNodes) and nodes.source is snapshot.node_infos:
                places = (nodes.source, nodes.positions)
            scores = prioritize_nodes(fw, state, pod, nodes, places=places)
        else:
            scores = ScoreResult(nodes=nodes, totals=[0] * len(nodes))
        prioritizers = [e for e in self.all if e.is_prioritizer and e.is_interested(pod)]
        if not prioritizers:
            return scores
        pod_json = await body.get()
        answers = await asyncio.gather(
            *(e.prioritize(pod_json, nodes) for e in prioritizers), return_exceptions=True
        )
        added = _extender_scores(pod, prioritizers, answers)
        totals = [
            total + added.get(node.name, 0)
            for node, total in zip(nodes, scores.totals, strict=True)
        ]
        return ScoreResult(nodes=scores.nodes, totals=totals, plugins=scores.plugins)

    async def bind(self, pod: Pod, node_name: str) -> Status | None:
        """Upstream `extendersBinding`: the first interested binder binds the pod (an
        ignorable one that fails is skipped); None when no extender bound it."""
        for extender in self.all:
            if not extender.is_binder or not extender.is_interested(pod):
                continue
            try:
                await extender.bind(pod, node_name)
            except ExtenderCallError as exc:
                if extender.ignorable:
                    log.info(
                        "Skipping extender in bind as it returned error and has ignorable flag set",
                        extra=kv(extender=extender.name, err=exc),
                    )
                    continue
                return Status(Code.ERROR, str(exc), error=exc)
            return SUCCESS
        return None


def _nominated_alone(pod: Pod, feasible: FeasibleNodes, nodes: Sequence[NodeInfo]) -> bool:
    """Whether `feasible` is the pod's nominated node, which passed the Filter plugins and
    was taken alone (upstream `evaluateNominatedNode`; there is no batch hint with
    extenders)."""
    source = feasible.source
    return (
        bool(pod.nominated_node_name)
        and source is not nodes
        and len(feasible) == len(source) == 1
        and source[0].name == pod.nominated_node_name
    )


def _extender_scores(
    pod: Pod, prioritizers: Sequence[HttpExtender], answers: Sequence[Any]
) -> dict[str, int]:
    """Node -> the sum of the extenders' `score * weight * MaxNodeScore/MaxExtenderPriority`;
    an extender that failed gives no score (upstream logs it at V(5))."""
    added: dict[str, int] = {}
    for extender, answer in zip(prioritizers, answers, strict=True):
        if isinstance(answer, ExtenderCallError):
            log.log(
                V(5),
                "Failed to run extender's priority function. No score given by this extender.",
                extra=kv(error=answer, pod=pod.key, extender=extender.name),
            )
            continue
        if isinstance(answer, BaseException):
            raise answer
        hosts, weight = answer
        for host, score in hosts:
            added[host] = added.get(host, 0) + score * weight * _SCALE
    return added


def _with_places(feasible: FeasibleNodes, passed: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
    """`passed` as positions in the feasible nodes' list when they are all from it (their
    kept scores are then read by position), else as they are."""
    if passed is feasible:
        return feasible
    where = {id(feasible.source[p]): p for p in feasible.positions}
    positions = [where.get(id(node), -1) for node in passed]
    if -1 in positions:
        return list(passed)
    return FeasibleNodes(feasible.source, positions)


class _PodBody:
    """The pod as the extenders are sent it (the API server's copy, read once per cycle and
    only when an extender is called: kubesched keeps only what scheduling reads)."""

    def __init__(self, api: KubeApi, pod: Pod) -> None:
        self._api = api
        self._pod = pod
        self._body: dict[str, Any] | None = None

    async def get(self) -> dict[str, Any]:
        if self._body is None:
            self._body = await self.of(self._pod)
        return self._body

    async def of(self, pod: Pod) -> dict[str, Any]:
        """`pod` (this cycle's, or a preemption victim) as the API server serves it."""
        if pod is self._pod and self._body is not None:
            return self._body
        path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}"
        try:
            body = await self._api.get(path)
        except ApiError as exc:
            message = f"reading pod {pod.key} for the extenders: {exc}"
            raise SchedulingError(Status(Code.ERROR, message, error=exc)) from exc
        if (body.get("metadata") or {}).get("uid") != pod.uid:
            message = f"pod {pod.key} was replaced while being scheduled"
            raise SchedulingError(Status(Code.ERROR, message))
        body.pop("kind", None)  # as an informer's copy: no type fields
        body.pop("apiVersion", None)
        return body
