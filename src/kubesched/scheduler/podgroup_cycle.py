"""The pod-group scheduling cycle (upstream `scheduleOnePodGroup`, `GenericWorkload` feature
gate): a popped member of a `scheduling.k8s.io` PodGroup brings its queued siblings along,
the group is placed at once (`podgroup_algorithm`), and then either every placed member is
committed (assume, Reserve, Permit, binding) or none is: each member reports why
(FailedScheduling, PodScheduled=False) with kube-scheduler's texts, and the PodGroup gets
its `PodGroupInitiallyScheduled` condition.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.apis import names
from kubesched.apis.resources import POD_DISRUPTION_BUDGETS, SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code, Status
from kubesched.framework.placement_points import PodGroupInfo
from kubesched.model import Pod, SchedulingPodGroup
from kubesched.plugins.default_preemption.pdb import disruption_budgets
from kubesched.plugins.default_preemption.victims import PODGROUP, group_lookup
from kubesched.plugins.helper.hierarchy import COMPOSITE, Hierarchy
from kubesched.plugins.helper.listers import declared_lister
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.queue import pod_groups as unit
from kubesched.runtime import POD_GROUP_UNSCHEDULABLE, Framework
from kubesched.scheduler.binder import BindingTask
from kubesched.scheduler.composite_cycle import root_group_key, root_of, schedule_composite
from kubesched.scheduler.podgroup_algorithm import (
    GroupResult,
    MemberResult,
    schedule_group,
)
from kubesched.scheduler.podgroup_placement import (
    PlacementCycle,
    schedule_group_in_placements,
    scheduled_members,
)
from kubesched.scheduler.podgroup_post_filter import after_post_filters, dra_post_filter
from kubesched.scheduler.podgroup_preemption import GroupAlgorithm, evaluate_group
from kubesched.scheduler.podgroup_status import (
    PREEMPTION_PLUGIN,
    as_post_filter_status,
    patch_condition,
    with_post_filter,
)
from kubesched.scheduler.workload_metrics import (
    ERROR,
    SCHEDULED,
    UNSCHEDULABLE,
    WAITING_ON_PREEMPTION,
    WorkloadMetrics,
)

GANG_PLUGIN = names.GANG_SCHEDULING
AssumeAndReserve = Callable[..., BindingTask | None]
HandleFailure = Callable[..., None]
PreemptGroup = Callable[..., None]


@dataclass(frozen=True, slots=True)
class PodGroupCycles:
    """Runs pod-group cycles with the scheduler's cache, snapshot, queue and handlers."""

    cache: SchedulerCache
    snapshot: Snapshot
    queue: SchedulingQueue
    assume_and_reserve: AssumeAndReserve
    """`Scheduler._assume_and_reserve(fw, state, qpi, host=, cycle=, started=)`."""
    handle_failure: HandleFailure
    """`Scheduler._handle_failure(fw, qpi, status, cycle, started, nominate=)`."""
    preempt_group: PreemptGroup | None = None
    """`Preemptions.start_group(profile=, group=, members=, victims=, ...)`."""
    metrics: WorkloadMetrics | None = None
    """The `GenericWorkload` families (`scheduler_podgroup_*`, workload preemption)."""
    tree: Hierarchy | None = None
    """The PodGroup trees under the `CompositePodGroup` gate: a tree with a composite root
    is queued and placed as one (`composite_cycle`); None: parents are ignored."""

    def __post_init__(self) -> None:
        if self.tree is not None:
            self.queue.enable_pod_groups(root_group_key(self.tree), rescan=True)
        else:
            self.queue.enable_pod_groups(_group_key)

    def schedule(self, fw: Framework, first: QueuedPodInfo, cycle: int) -> list[BindingTask]:
        """One cycle for the group of `first`, popped with its waiting siblings as one unit;
        the bindings to start (all members or none). The members that come back wait beside
        the group until the cycle is over, then go back together (`group_attempted`)."""
        outcome = [unit.ERROR]
        try:
            return self._schedule(fw, first, cycle, outcome)
        finally:
            key = root_group_key(self.tree)(first.pod) if self.tree is not None else None
            key = key or (first.pod.namespace, first.pod.pod_group_name)
            self.queue.group_attempted(key, outcome[0])

    def _schedule(
        self, fw: Framework, first: QueuedPodInfo, cycle: int, outcome: list[str]
    ) -> list[BindingTask]:
        started = time.monotonic()
        pod = first.pod
        obj = fw.handle.lister(SCHEDULING_PODGROUPS).get(pod.pod_group_name, pod.namespace)
        queued = self._queued([first, *self.queue.take_group(first)])
        for qpi in queued:
            qpi.unschedulable_plugins, qpi.pending_plugins = set(), set()
        if not queued:
            outcome[0] = unit.SUCCESS
            return []
        root = root_of(self.tree, pod) if self.tree is not None else None
        if root is not None and root[0] == COMPOSITE:
            tasks, outcome[0] = schedule_composite(
                self, fw, root, queued, cycle=cycle, started=started
            )
            return tasks
        if obj is None:
            outcome[0] = unit.MISSING
            self._missing_group(fw, queued, cycle, started)
            return []
        group = SchedulingPodGroup.of(obj)
        problem = _validate(queued, group.priority)
        if problem:
            error = Status(Code.ERROR, problem)
            self._fail_all(fw, group, queued, error, cycle=cycle, started=started)
            return []
        self.cache.update_snapshot(self.snapshot)
        result = self._algorithm(fw, group, cycle)(queued)
        if self.metrics is not None:
            self.metrics.group_algorithm_duration.observe(time.monotonic() - started)
        status = result.status
        outcome[0] = (
            unit.SUCCESS
            if status.is_success()
            else unit.REJECTED
            if status.is_rejected()
            else unit.ERROR
        )
        return self._submit(fw, group, result, queued, cycle=cycle, started=started)

    def _algorithm(
        self, fw: Framework, group: SchedulingPodGroup, cycle: int | None
    ) -> GroupAlgorithm:
        """The group's placement algorithm: by placements under the
        `TopologyAwareWorkloadScheduling` gate, else every node at once (upstream
        `podGroupSchedulingAlgorithm`)."""
        nominator = self.queue.nominator
        if fw.topology_aware:
            metrics = self.metrics.placements if self.metrics is not None else None
            run = PlacementCycle(self.cache, self.snapshot, nominator, cycle, metrics)
            info = PodGroupInfo(group, scheduled_members(fw, self.cache, group))
            return functools.partial(schedule_group_in_placements, fw, run, info)
        scheduled = self._scheduled(fw, group)

        def everywhere(queued: list[QueuedPodInfo]) -> GroupResult:
            return schedule_group(
                fw,
                cache=self.cache,
                snapshot=self.snapshot,
                group=group,
                queued=queued,
                scheduled=scheduled,
                nominator=nominator,
                cycle=cycle,
            )

        return everywhere

    def _queued(self, members: list[QueuedPodInfo]) -> list[QueuedPodInfo]:
        """The members to try, in upstream's member order (`PodGroupMemberPodsOrderingFunc`:
        higher priority, more attempts, earlier timestamp, then name); deleted or assumed
        ones are dropped."""
        kept = []
        for qpi in members:
            if qpi.pod.deleting or self.cache.is_assumed(qpi.uid):
                self.queue.done(qpi.uid)
            else:
                kept.append(qpi)
        return sorted(kept, key=lambda q: (-q.pod.priority, -q.attempts, q.timestamp, q.pod.name))

    def _scheduled(self, fw: Framework, group: SchedulingPodGroup) -> int:
        """Members bound or assumed before this cycle."""
        pods = fw.handle.pod_lister().list(group.namespace)
        return sum(
            1
            for pod in pods
            if pod.pod_group_name == group.name
            and (pod.node_name or self.cache.is_assumed(pod.uid))
        )

    def _submit(
        self,
        fw: Framework,
        group: SchedulingPodGroup,
        result: GroupResult,
        queued: list[QueuedPodInfo],
        *,
        cycle: int,
        started: float,
    ) -> list[BindingTask]:
        status = result.status
        members = [
            *result.members,
            *(MemberResult(qpi, status=status) for qpi in queued[len(result.members) :]),
        ]
        nominations: Mapping[str, str] = {}
        waiting = False
        if status.code is Code.UNSCHEDULABLE:
            post_filter, nominations = self._post_filter(fw, group, queued, result.members)
            waiting = post_filter.is_success()
            status = with_post_filter(status, post_filter)
        rejectors = {name for m in members for name in m.rejectors}
        rejectors.update({status.plugin} if status.plugin else ())
        context: dict[str, Any] = {"rejectors": rejectors, "cycle": cycle, "started": started}
        tasks: list[BindingTask] = []
        for member in members:
            own = member.status
            nominate = nominations.get(member.qpi.uid, "")
            if status.is_error():
                chosen = own if own.is_error() else status
                self._fail(fw, member, chosen, **context)
            elif own.is_success() and status.is_success():
                member.state.pod_group_cycle = None  # upstream: binding is per pod
                task = self.assume_and_reserve(
                    fw, member.state, member.qpi, host=member.host, cycle=cycle, started=started
                )
                if task is not None:
                    tasks.append(task)
            elif own.is_success() and waiting:
                nominated = nominations.get(member.qpi.uid)
                self._fail(fw, member, status, nominate=nominated, **context)
            elif own.is_success():
                rejected = Status(Code.UNSCHEDULABLE, POD_GROUP_UNSCHEDULABLE, status.message)
                self._fail(fw, member, rejected, **context)
            else:
                self._fail(fw, member, own, nominate=nominate, **context)
        patch_condition(fw, group, status)
        self._observe(fw, status, waiting=waiting, started=started)
        return tasks

    def _observe(self, fw: Framework, status: Status, *, waiting: bool, started: float) -> None:
        """`scheduler_podgroup_schedule_attempts_total` and its duration, by result."""
        if self.metrics is None:
            return
        if status.is_success():
            result = SCHEDULED
        elif status.is_rejected():
            result = WAITING_ON_PREEMPTION if waiting else UNSCHEDULABLE
        else:
            result = ERROR
        seconds = time.monotonic() - started
        self.metrics.group_attempt(result, profile=fw.profile_name, seconds=seconds)

    def _post_filter(
        self,
        fw: Framework,
        group: SchedulingPodGroup,
        queued: list[QueuedPodInfo],
        members: list[MemberResult],
    ) -> tuple[Status, Mapping[str, str]]:
        """Upstream's PodGroupPostFilter plugins (`podgroup_post_filter`): DynamicResources'
        then DefaultPreemption's, those the profile enables: the run's status and the
        members' nominations; evicts the victims."""
        dra = dra_post_filter(fw, group, queued, members, self._scheduled(fw, group))
        preempts = any(pl.name == PREEMPTION_PLUGIN for pl in fw.plugins.post_filter)
        if not preempts or (dra is not None and dra.is_error()):
            return after_post_filters(dra, None), {}
        group_of = group_lookup(fw.handle.lister(SCHEDULING_PODGROUPS))
        outcome = evaluate_group(
            fw,
            cache=self.cache,
            snapshot=self.snapshot,
            group=group,
            queued=queued,
            scheduled=self._scheduled(fw, group),
            group_of=group_of,
            pdbs=disruption_budgets(declared_lister(fw.handle, POD_DISRUPTION_BUDGETS)),
            nominator=self.queue.nominator,
            now=time.time(),
            algorithm=self._algorithm(fw, group, None) if fw.topology_aware else None,
        )
        if outcome.victims and self.preempt_group is not None:
            self.preempt_group(
                profile=fw.profile_name,
                group=group,
                members=[qpi.pod for qpi in queued],
                victims=outcome.victims,
                group_disruptions=outcome.group_disruptions,
                pdb_violations=outcome.num_pdb_violations,
            )
        if self.metrics is not None:
            result = str(outcome.status.code)
            self.metrics.preemption_attempts.labels(result).inc()
            if outcome.evaluation_seconds is not None:
                evaluation = self.metrics.evaluation_duration.labels(PODGROUP, result)
                evaluation.observe(outcome.evaluation_seconds)
        return after_post_filters(dra, as_post_filter_status(outcome.status)), outcome.nominations

    def _fail(
        self,
        fw: Framework,
        member: MemberResult,
        status: Status,
        *,
        rejectors: set[str],
        cycle: int,
        started: float,
        nominate: str | None = "",
    ) -> None:
        if status.is_rejected():
            member.qpi.unschedulable_plugins = set(rejectors)
        self.handle_failure(fw, member.qpi, status, cycle, started, nominate=nominate)

    def _fail_all(
        self,
        fw: Framework,
        group: SchedulingPodGroup,
        queued: list[QueuedPodInfo],
        status: Status,
        *,
        cycle: int,
        started: float,
    ) -> None:
        for qpi in queued:
            self.handle_failure(fw, qpi, status, cycle, started)
        patch_condition(fw, group, status)
        self._observe(fw, status, waiting=False, started=started)

    def _missing_group(
        self, fw: Framework, queued: list[QueuedPodInfo], cycle: int, started: float
    ) -> None:
        """The PodGroup went away after the members were queued: they wait for it again."""
        name = queued[0].pod.pod_group_name
        message = f'waiting for pods\'s pod group "{name}" to appear in scheduling queue'
        status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message, plugin=GANG_PLUGIN)
        for qpi in queued:
            qpi.unschedulable_plugins = {GANG_PLUGIN}
            self.handle_failure(fw, qpi, status, cycle, started)

    # ---- for the composite cycle (`composite_cycle`) -------------------------------------

    def fail(self, fw: Framework, member: MemberResult, status: Status, **context: Any) -> None:
        """A member reports `status` (`rejectors`, `cycle`, `started`, `nominate`)."""
        self._fail(fw, member, status, **context)

    def observe(self, fw: Framework, status: Status, *, waiting: bool, started: float) -> None:
        self._observe(fw, status, waiting=waiting, started=started)

    @staticmethod
    def validate(queued: list[QueuedPodInfo], priority: int) -> str:
        return _validate(queued, priority)


def _group_key(pod: Pod) -> unit.GroupKey | None:
    """A pod's native pod group (namespace, name), None for a pod of none."""
    return (pod.namespace, pod.pod_group_name) if pod.pod_group_name else None


def _validate(queued: list[QueuedPodInfo], priority: int) -> str:
    """Upstream `validatePodGroup` for the queued members: one scheduler name, the PodGroup's
    priority (`spec.priority`), one preemption policy."""
    first = queued[0].pod
    for qpi in queued:
        pod = qpi.pod
        if pod.scheduler_name != first.scheduler_name:
            return (
                "all pods in a single pod group should have the same .spec.schedulerName set, "
                f'got: "{pod.scheduler_name}" and "{first.scheduler_name}"'
            )
        if pod.priority != priority:
            return (
                "all pods in a single pod group should have the same priority as the pod "
                f"group's priority, got {pod.priority} and {priority}"
            )
        if pod.preemption_policy != first.preemption_policy:
            return (
                "all pods in a single pod group should have the same preemption policy, "
                f"got {pod.preemption_policy} and {first.preemption_policy}"
            )
    return ""


__all__ = ["PodGroupCycles"]
