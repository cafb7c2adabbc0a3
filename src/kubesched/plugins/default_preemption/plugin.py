"""DefaultPreemption (PostFilter, PreEnqueue): when no node fits a pod, evict pods of lower
priority from the node where that helps most, and nominate the pod to that node.

The decision is `evaluation.evaluate` (upstream semantics, see there); this adapter reads
the cycle's inputs, asks the Handle to evict the victims in the background
(`Handle.preempt`) and returns the nomination. Messages are upstream's, prefixed
`preemption: ` in the FailedScheduling event, e.g.
`0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available:
3 No preemption victims found for incoming pod.`

PreEnqueue keeps a preemptor out of activeQ while its victims are being evicted (it must
not preempt twice); `waiting for the preemption for this pod to be finished`. With the
`GenericWorkload` gate a member of a native PodGroup is held while its group's preemption
runs (`waiting for the preemption for this pod group to be finished`; the group's own
preemption is the pod-group cycle's, `kubesched.scheduler.podgroup_preemption`), and
PostFilter picks victims as kube-scheduler does with that gate: a PodGroup member at its
group's priority, a `disruptionMode.all` group's pods together (`node_victims`).

Queueing hints: registers a bound pod's deletion, as upstream with async preemption, with a
hint that always skips: a preemptor it holds is activated when its preemption ends, and the
plugins that rejected it (their failure is what the preemption resolves) requeue it.

Args (`DefaultPreemptionArgs`): `minCandidateNodesPercentage` (default 10) and
`minCandidateNodesAbsolute` (default 100): the dry run stops once it has found
max(percentage of the potential nodes, absolute) candidates (at least one of them
violating no PodDisruptionBudget); both cannot be 0.

The plugin declares `POD_DISRUPTION_BUDGETS` and reads them from their lister (no queue
events: upstream registers none).

Every PostFilter run is a preemption attempt (`scheduler_preemption_attempts_total`, and the
evaluation's duration and outcome), whether or not a candidate was found, as upstream counts
them: the framework tells the scheduler of each run (`build_framework(observe_post_filter=)`),
so the plugin holds no metric. `kubesched explain`'s read-only Handle records the eviction
instead of doing it, and `DefaultPreemption.evaluate` is the dry run alone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import (
    FILTER_RUNNER_KEY,
    POD_DISRUPTION_BUDGETS,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeToStatusReader,
    PostFilterResult,
    QueueingHint,
    Status,
)
from kubesched.framework.listers import Lister
from kubesched.model import ApiObject, Pod
from kubesched.plugins.default_preemption.args import DefaultPreemptionArgs
from kubesched.plugins.default_preemption.evaluation import (
    EXTENDER_CANDIDATES,
    Evaluation,
    evaluate,
    placement_message,
)
from kubesched.plugins.default_preemption.pdb import disruption_budgets
from kubesched.plugins.default_preemption.victims import GroupOf, group_lookup
from kubesched.plugins.helper.hierarchy import composite_hierarchy
from kubesched.plugins.helper.listers import declared_lister

NAME = names.DEFAULT_PREEMPTION
_MAX_INT32 = 2**31 - 1
PREFIX = "preemption: "
WAITING = "waiting for the preemption for this pod to be finished"
WAITING_GROUP = "waiting for the preemption for this pod group to be finished"


class DefaultPreemption:
    name = NAME
    resources = (POD_DISRUPTION_BUDGETS,)

    def __init__(
        self,
        *,
        args: Mapping[str, Any],
        handle: Handle,
        offset: Callable[[], int] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.args = DefaultPreemptionArgs.from_v1(args)
        self._handle = handle
        self._pdbs = declared_lister(handle, POD_DISRUPTION_BUDGETS)
        rng = random.Random()  # noqa: S311 - spreads the dry run's start, not security
        self._offset = offset or (lambda: rng.randrange(_MAX_INT32))
        self._clock = clock

    # ---- PreEnqueue ---------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if pod.pod_group_name:
            group = self._pod_group(pod)
            if group is not None:  # GenericWorkload: the group preempts, not the pod
                if group.uid and self._handle.is_preempting(group.uid):
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, WAITING_GROUP)
                return None
        if self._handle.is_preempting(pod.uid):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, WAITING)
        return None

    def _pod_group(self, pod: Pod) -> ApiObject | None:
        """The pod's native PodGroup; None without it, or without the PodGroup informer
        (the `GenericWorkload` gate off)."""
        store = self._pod_groups()
        return store.get(pod.pod_group_name, pod.namespace) if store is not None else None

    def _pod_groups(self) -> Lister[ApiObject] | None:
        """The native PodGroups: the scheduler lists them exactly when the `GenericWorkload`
        gate is on."""
        try:
            return self._handle.lister(SCHEDULING_PODGROUPS)
        except KeyError:
            return None

    def _group_of(self) -> GroupOf | None:
        """A pod's native PodGroup (and, with the CompositePodGroup gate, the composites above
        it), read once per PostFilter run; None with the GenericWorkload gate off."""
        store = self._pod_groups()
        if store is None:
            return None
        return group_lookup(store, composite_hierarchy(self._handle))

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Upstream's with SchedulerAsyncPreemption (on since 1.33): a bound pod's deletion,
        for the preemptors PreEnqueue holds, with a hint that always skips."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                self.is_pod_schedulable_after_assigned_pod_deletion,
            ),
        )

    def is_pod_schedulable_after_assigned_pod_deletion(
        self, _pod: Pod, _old: Any, _new: Any
    ) -> QueueingHint:
        """Never requeues: a held preemptor is activated when its preemption ends, and the
        plugins whose rejection the preemption resolves (the victims' deletion frees room
        for it) decide when to requeue it."""
        return QueueingHint.QUEUE_SKIP

    # ---- PostFilter ---------------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status | None]:
        evaluation = self.evaluate(state, pod, statuses)
        candidate = evaluation.candidate
        if candidate is None:
            result = PostFilterResult("") if evaluation.clear_nomination else None
            return result, _prefixed(evaluation.status)
        self._handle.preempt(
            pod,
            node_name=candidate.node_name,
            victims=candidate.victims,
            pdb_violations=candidate.num_pdb_violations,
        )
        message = PREFIX + placement_message(candidate)
        return PostFilterResult(candidate.node_name), Status(Code.SUCCESS, message)

    def evaluate(self, state: CycleState, pod: Pod, statuses: NodeToStatusReader) -> Evaluation:
        """What preempting for `pod` would do, changing nothing (a dry run).

        `state` is the cycle's state after PreFilter, with the profile's `FilterRunner`
        under `FILTER_RUNNER_KEY` (the framework writes it before PostFilter)."""
        runner = state.get(FILTER_RUNNER_KEY)
        if runner is None:
            return Evaluation(None, Status(Code.ERROR, "no FilterRunner in the cycle state"))
        return evaluate(
            runner,
            state,
            pod,
            nodes=self._handle.list_node_infos(),
            statuses=statuses,
            pdbs=disruption_budgets(self._pdbs),
            min_candidate_nodes_percentage=self.args.min_candidate_nodes_percentage,
            min_candidate_nodes_absolute=self.args.min_candidate_nodes_absolute,
            offset=self._offset(),
            now=self._clock(),
            group_of=self._group_of(),
            extenders=state.get(EXTENDER_CANDIDATES),
        )


def _prefixed(status: Status) -> Status:
    """Upstream prefixes the plugin's message with `preemption: ` (keeping the code)."""
    if not status.message:
        return status
    return Status(status.code, PREFIX + status.message, error=status.error)
