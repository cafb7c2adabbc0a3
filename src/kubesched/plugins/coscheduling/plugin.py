"""Coscheduling (scheduler-plugins): all-or-nothing scheduling of a PodGroup's members.

QueueSort keeps a group's members together (priority, then the group's creation time or
last failure, then name); PreFilter refuses a member while its group has fewer than
minMember pods or the cluster lacks minResources; Permit holds members until minMember
have reached it, then lets them all bind; a member that fails Filter (PostFilter) or times
out at Permit (Unreserve) rejects the members waiting with it, freeing their room — from
PostFilter only when more than `podGroupRejectPercentage` (default 10) of minMember is
still unassigned, as scheduler-plugins (so a group of 10 or more that lacks one member
keeps the others waiting for it).

Queueing hints: none, as in scheduler-plugins' releases: a rejected member is retried on any
pod added and on any PodGroup added or updated.

With `gangPreemption: true` (kubesched's own, off by default) PostFilter first preempts for
the pod, a gang as a whole (gang_preemption.py); the group is rejected as above only when
that cannot help.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.framework import (
    POD_DISRUPTION_BUDGETS,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    NodeToStatusReader,
    PostFilterResult,
    QueuedPodInfo,
    Status,
)
from kubesched.framework.resources import ResourceSpec, resource_event
from kubesched.model import Pod, PodDisruptionBudget, Resource
from kubesched.plugins.coscheduling.args import CoschedulingArgs
from kubesched.plugins.coscheduling.core import GangError, GroupManager, PermitOutcome
from kubesched.plugins.coscheduling.gang_preemption import ONGOING, GangPreemption
from kubesched.plugins.coscheduling.podgroup import (
    GROUP_PODS,
    PODGROUPS,
    PodGroup,
    full_name,
    gap_message,
    group_name,
    resource_gap,
    wall_time,
)
from kubesched.plugins.coscheduling.status import StatusKeeper
from kubesched.plugins.helper.listers import declared_lister

NAME = names.COSCHEDULING


class Coscheduling:
    """QueueSort, PreFilter, PostFilter, Permit and Reserve for scheduler-plugins PodGroups."""

    name = NAME
    resources: tuple[ResourceSpec, ...] = (PODGROUPS, GROUP_PODS)

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self.args = CoschedulingArgs.from_v1(args)
        self._timeout = self.args.permit_waiting_time_seconds
        self._backoff = self.args.pod_group_backoff_seconds
        self._reject_threshold = self.args.reject_threshold
        self._handle = handle
        self.manager = GroupManager(groups=handle.lister(PODGROUPS), pods=handle.pod_lister())
        handle.pod_lister().subscribe(self.manager.pod_changed)
        handle.lister(PODGROUPS).subscribe(self.manager.group_changed)
        self._status = StatusKeeper(handle, self.manager)
        self.gangs: GangPreemption | None = None
        if self.args.gang_preemption:
            self.resources = (PODGROUPS, GROUP_PODS, POD_DISRUPTION_BUDGETS)  # it preempts
            budgets = declared_lister(handle, POD_DISRUPTION_BUDGETS)
            self.gangs = GangPreemption(
                handle,
                self.manager,
                lambda: [PodDisruptionBudget.of(obj) for obj in budgets.list()],
            )
            handle.lister(PODGROUPS).subscribe(self.gangs.group_changed)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        # scheduler-plugins registers these two without hints; POD covers pending pods too.
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD)),
            ClusterEventWithHint(resource_event(PODGROUPS, ActionType.ADD | ActionType.UPDATE)),
        )

    # ---- QueueSort ----------------------------------------------------------------------

    def less(self, first: QueuedPodInfo, second: QueuedPodInfo) -> bool:
        p1, p2 = first.pod.priority, second.pod.priority
        if p1 != p2:
            return p1 > p2
        t1, t2 = self._sort_time(first), self._sort_time(second)
        if t1 == t2:
            return first.pod.key < second.pod.key
        return t1 < t2

    def _sort_time(self, info: QueuedPodInfo) -> float:
        """The group's last failure or creation time; the pod's queueing time without one."""
        name = full_name(info.pod)
        if name in self.manager.last_failure:
            return self.manager.last_failure[name]
        group = self.manager.group_of(info.pod) if name else None
        if group is not None and group.creation_timestamp:
            return wall_time(group.creation_timestamp)
        return time.time() - (time.monotonic() - info.timestamp)

    # ---- PreFilter / PostFilter ---------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        del state
        if self.gangs is not None and self.gangs.nested:
            return None  # a sibling's what-if PreFilter during gang preemption
        group = self.manager.group_of(pod)
        if group is None:
            return None
        self._status.seen(pod)
        try:
            self.manager.pre_filter(pod, group)
            self._check_min_resources(group, nodes)
        except GangError as error:
            self._status.refresh(group)
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(error))
        self._status.scheduling(group)
        return None

    def _check_min_resources(self, group: PodGroup, nodes: Sequence[NodeInfo]) -> None:
        if not group.min_resources:
            return
        free = [_free_room(info, group.full_name) for info in nodes]
        gap = resource_gap(group.min_resources, free, group.min_member)
        if gap:
            raise GangError(gap_message(gap, group.min_resources))

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status | None]:
        group = self.manager.group_of(pod)
        assigned = self.manager.assigned_count(group.full_name) if group is not None else 0
        if self.gangs is not None and (group is None or assigned < group.min_member):
            result, status = self.gangs.post_filter(state, pod, statuses, group)
            if group is None or status.is_success() or status.message == ONGOING:
                return result, status
        if group is None:
            return PostFilterResult(), Status(Code.UNSCHEDULABLE, "can not find pod group")
        if assigned >= group.min_member:
            return PostFilterResult(), Status(Code.UNSCHEDULABLE)
        if (group.min_member - assigned) / group.min_member <= self._reject_threshold:
            # A small gap to the quorum: later members may still close it.
            return PostFilterResult(), Status(Code.UNSCHEDULABLE)
        self._reject_waiting(pod, "optimistic rejection in PostFilter")
        backoff = self._backoff if len(self.manager.members(pod)) >= group.min_member else 0
        self.manager.failed(group.full_name, backoff=backoff)
        message = (
            f"PodGroup {group.full_name} gets rejected due to Pod {pod.name} "
            "is unschedulable even after PostFilter"
        )
        return PostFilterResult(), Status(Code.UNSCHEDULABLE, message)

    # ---- Reserve / Permit ---------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        del state, pod, node_name
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        del state, node_name
        group = self.manager.group_of(pod)
        if group is None:
            return
        self.manager.unreserve(pod)
        self._reject_waiting(pod, "rejection in Unreserve")
        self.manager.failed(group.full_name)

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        del state, node_name
        outcome, assigned = self.manager.permit(pod)
        if outcome is PermitOutcome.NOT_SPECIFIED:
            return None, 0
        if outcome is PermitOutcome.NOT_FOUND:
            return Status(Code.UNSCHEDULABLE, "PodGroup not found"), 0
        name = full_name(pod)
        if outcome is PermitOutcome.SUCCESS:
            self.manager.succeeded(name)
            if self.gangs is not None:
                self.gangs.forget(name)
            self._handle.waiting_pods.allow_group(lambda p: full_name(p) == name, NAME)
            return None, 0
        if assigned == 1:  # the first member to arrive brings its siblings forward
            self._handle.activate(m for m in self.manager.members(pod) if m.uid != pod.uid)
        group = self.manager.group_of(pod)
        timeout = self._timeout
        if group is not None and group.schedule_timeout_seconds:
            timeout = group.schedule_timeout_seconds
        return Status(Code.WAIT), float(timeout)

    def _reject_waiting(self, pod: Pod, message: str) -> None:
        name, namespace = group_name(pod), pod.namespace

        def member(other: Pod) -> bool:
            return other.namespace == namespace and group_name(other) == name

        self._handle.waiting_pods.reject_group(member, NAME, message)


def _free_room(info: NodeInfo, group: str) -> Resource:
    """A node's free room, counting the group's own pods on it as free (scheduler-plugins)."""
    free = info.allocatable.copy()
    free.subtract(info.requested)
    free.allowed_pods = info.allocatable.allowed_pods - len(info.pods)
    for pod in info.pods.values():
        if full_name(pod) == group:
            free.add(pod.requests)
            free.allowed_pods += 1
    return free
