"""The pod-group cycle of a CompositePodGroup tree (the `CompositePodGroup` feature gate;
upstream `scheduleOnePodGroup` with a composite root: `validatePodGroup`, `podGroupCycle`,
`applyPodGroupPostFilterResult`, `submitPodGroupAlgorithmResult`).

The queue pops the whole tree as one unit (its key is the root's, `root_group_key`). The
members of every PodGroup of the tree must share one scheduler name and preemption policy
and have the root's priority (else each member fails with the error and every PodGroup's
`PodGroupInitiallyScheduled` is `False`/`SchedulerError`). The tree is placed at once
(`composite_algorithm`); when the root does not fit, group preemption is tried for the whole
tree (DefaultPreemption's PodGroupPostFilter, the root's priority) and its outcome is added
to every group's status. Then, PodGroup by PodGroup, the placed members of a group that
succeeded are committed (Reserve, Permit, binding), the others report why, and each
PodGroup gets its condition; upstream writes no condition to the CompositePodGroups.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kubesched.apis.resources import POD_DISRUPTION_BUDGETS, SCHEDULING_PODGROUPS
from kubesched.framework import Code, Status
from kubesched.model import Pod
from kubesched.plugins.default_preemption.pdb import disruption_budgets
from kubesched.plugins.default_preemption.victims import group_lookup
from kubesched.plugins.helper.hierarchy import (
    COMPOSITE,
    Hierarchy,
    HierarchyError,
    Key,
    composite_hierarchy,
    pod_group_key,
)
from kubesched.plugins.helper.listers import declared_lister
from kubesched.queue import QueuedPodInfo
from kubesched.queue import pod_groups as unit
from kubesched.runtime import POD_GROUP_UNSCHEDULABLE, Framework
from kubesched.scheduler.binder import BindingTask
from kubesched.scheduler.composite_algorithm import NodeResult, Results, TreeRun, schedule_tree
from kubesched.scheduler.composite_tree import TreeNode, build_tree
from kubesched.scheduler.podgroup_algorithm import GroupResult, MemberResult
from kubesched.scheduler.podgroup_placement import scheduled_members
from kubesched.scheduler.podgroup_preemption import evaluate_group
from kubesched.scheduler.podgroup_status import (
    PREEMPTION_PLUGIN,
    as_post_filter_status,
    patch_condition,
)

if TYPE_CHECKING:
    from kubesched.scheduler.podgroup_cycle import PodGroupCycles

ROOT_PREFIX = "compositepodgroup/"
"""The queue key's name part of a composite root (a name cannot hold '/')."""


def composite_tree(frameworks: Mapping[str, Framework]) -> Hierarchy | None:
    """The PodGroup trees of the profiles' shared listers, under the `CompositePodGroup`
    gate (None without)."""
    for fw in frameworks.values():
        return composite_hierarchy(fw.handle)
    return None


def root_of(tree: Hierarchy, pod: Pod) -> Key | None:
    """The observed root of the pod's PodGroup (None: not observed, or a cycle)."""
    if not pod.pod_group_name:
        return None
    try:
        return tree.root(pod_group_key(pod.namespace, pod.pod_group_name))
    except HierarchyError:
        return None


def root_group_key(tree: Hierarchy) -> unit.GroupOf:
    """The queue's unit of a pod: its tree's root when that is a composite, else its
    PodGroup (upstream `workloadForest.getRootLookupInfoForPod`)."""

    def group_of(pod: Pod) -> unit.GroupKey | None:
        if not pod.pod_group_name:
            return None
        root = root_of(tree, pod)
        if root is not None and root[0] == COMPOSITE:
            return (pod.namespace, ROOT_PREFIX + root[2])
        return (pod.namespace, pod.pod_group_name)

    return group_of


def schedule_composite(
    cycles: PodGroupCycles,
    fw: Framework,
    root: Key,
    queued: list[QueuedPodInfo],
    *,
    cycle: int,
    started: float,
) -> tuple[list[BindingTask], str]:
    """One cycle for the tree under `root`; the bindings and the queue's outcome."""
    node, problem = _prepare(cycles, fw, root, queued)
    if problem or node is None:
        error = Status(Code.ERROR, problem)
        _fail_all(cycles, fw, node, queued, error, cycle=cycle, started=started)
        return [], unit.ERROR
    cycles.cache.update_snapshot(cycles.snapshot)
    run = TreeRun(fw, cycles.cache, cycles.snapshot, cycles.queue.nominator, cycle)
    results = schedule_tree(run, node)
    if cycles.metrics is not None:
        cycles.metrics.group_algorithm_duration.observe(time.monotonic() - started)
    status = results[node.key].status
    # upstream `completePodGroupAlgorithmResult`: the members not tried take a copy of their
    # group's status before PodGroupPostFilter adds to it
    members = {leaf.key: _completed(results[leaf.key]) for leaf in node.leaves()}
    waiting, nominations = False, dict[str, str]()
    if status.code is Code.UNSCHEDULABLE:
        post_filter, nominated = _post_filter(cycles, fw, node, queued)
        nominations = dict(nominated)
        waiting = post_filter.is_success()
        _add_post_filter(results, post_filter)
    context: dict[str, Any] = {"cycle": cycle, "started": started, "nominations": nominations}
    tasks: list[BindingTask] = []
    for leaf in node.leaves():
        result = results[leaf.key]
        tasks.extend(
            _submit_leaf(cycles, fw, result, members[leaf.key], waiting=waiting, **context)
        )
    root_status = results[node.key].status
    cycles.observe(fw, root_status, waiting=waiting, started=started)
    if status.is_success():
        return tasks, unit.SUCCESS
    return tasks, unit.REJECTED if status.is_rejected() else unit.ERROR


def _prepare(
    cycles: PodGroupCycles, fw: Framework, root: Key, queued: list[QueuedPodInfo]
) -> tuple[TreeNode | None, str]:
    """The tree with its queued members, or why the cycle cannot run (upstream
    `reconcilePodGroupWithSnapshot`, `validatePodGroup`)."""
    assert cycles.tree is not None
    by_group: dict[tuple[str, str], list[QueuedPodInfo]] = {}
    for qpi in queued:
        by_group.setdefault((qpi.pod.namespace, qpi.pod.pod_group_name), []).append(qpi)
    try:
        node = build_tree(
            cycles.tree, root, by_group, lambda g: scheduled_members(fw, cycles.cache, g)
        )
    except HierarchyError as err:
        return None, str(err)
    if node is None:
        return None, f"composite pod group {root[1]}/{root[2]} not found"
    placed = sum(len(leaf.queued) for leaf in node.leaves())
    if placed != len(queued):
        return node, "different pod groups in the hierarchy between snapshot and queued entity"
    return node, cycles.validate(queued, node.group.priority)


def _completed(result: NodeResult) -> list[MemberResult]:
    queued = result.node.queued
    rest = queued[len(result.members) :]
    return [*result.members, *(MemberResult(qpi, status=result.status) for qpi in rest)]


def _add_post_filter(results: Results, post_filter: Status) -> None:
    """upstream `applyPodGroupPostFilterResult`: an error replaces every group's status, any
    other outcome is appended to each group's status, once per group holding it (a group
    that took its parent's status shares its parent's status object upstream, which is then
    appended to once for each of them)."""
    if post_filter.is_error():
        for result in results.values():
            result.status = post_filter
        return
    holders: dict[int, list[NodeResult]] = {}
    for result in results.values():
        holders.setdefault(id(result.status), []).append(result)
    for sharing in holders.values():
        old = sharing[0].status
        added = [post_filter.message] * len(sharing)
        new = Status(old.code, *old.reasons, *added, plugin=old.plugin)
        for result in sharing:
            result.status = new


def _submit_leaf(
    cycles: PodGroupCycles,
    fw: Framework,
    result: NodeResult,
    members: list[MemberResult],
    *,
    waiting: bool,
    cycle: int,
    started: float,
    nominations: Mapping[str, str],
) -> list[BindingTask]:
    """upstream `submitPodGroupAlgorithmResult` for one PodGroup of the tree."""
    leaf, status = result.node, result.status
    rejectors = {name for m in members for name in m.rejectors}
    rejectors.update({status.plugin} if status.plugin else ())
    tasks: list[BindingTask] = []
    for member in members:
        own, qpi = member.status, member.qpi
        if status.is_error():
            chosen = own if own.is_error() else status
            cycles.fail(fw, member, chosen, rejectors=rejectors, cycle=cycle, started=started)
        elif own.is_success() and status.is_success():
            member.state.pod_group_cycle = None  # upstream: binding is per pod
            task = cycles.assume_and_reserve(
                fw, member.state, qpi, host=member.host, cycle=cycle, started=started
            )
            if task is not None:
                tasks.append(task)
        elif own.is_success():
            rejected = status
            nominate: str | None = nominations.get(qpi.uid) if waiting else ""
            if not waiting:
                rejected = Status(Code.UNSCHEDULABLE, POD_GROUP_UNSCHEDULABLE, status.message)
            cycles.fail(
                fw,
                member,
                rejected,
                rejectors=rejectors,
                cycle=cycle,
                started=started,
                nominate=nominate,
            )
        else:
            cycles.fail(
                fw,
                member,
                own,
                rejectors=rejectors,
                cycle=cycle,
                started=started,
                nominate=nominations.get(qpi.uid, ""),
            )
    patch_condition(fw, leaf.group, status)
    return tasks


def _post_filter(
    cycles: PodGroupCycles, fw: Framework, root: TreeNode, queued: list[QueuedPodInfo]
) -> tuple[Status, Mapping[str, str]]:
    """DefaultPreemption's PodGroupPostFilter for the whole tree (the root's priority), the
    tree placed again by `schedule_tree` once the victims are set aside."""
    if not any(pl.name == PREEMPTION_PLUGIN for pl in fw.plugins.post_filter):
        return Status(Code.UNSCHEDULABLE), {}

    def placed_again(_queued: list[QueuedPodInfo]) -> GroupResult:
        run = TreeRun(fw, cycles.cache, cycles.snapshot, cycles.queue.nominator, None)
        results = schedule_tree(run, root)
        return _flatten(root, results)

    outcome = evaluate_group(
        fw,
        cache=cycles.cache,
        snapshot=cycles.snapshot,
        group=root.group,
        queued=queued,
        scheduled=0,
        group_of=group_lookup(fw.handle.lister(SCHEDULING_PODGROUPS)),
        pdbs=disruption_budgets(declared_lister(fw.handle, POD_DISRUPTION_BUDGETS)),
        nominator=cycles.queue.nominator,
        now=time.time(),
        algorithm=placed_again,
    )
    if outcome.victims and cycles.preempt_group is not None:
        cycles.preempt_group(
            profile=fw.profile_name,
            group=root.group,
            members=[qpi.pod for qpi in queued],
            victims=outcome.victims,
            group_disruptions=outcome.group_disruptions,
            pdb_violations=outcome.num_pdb_violations,
        )
    return as_post_filter_status(outcome.status), outcome.nominations


def _flatten(root: TreeNode, results: Results) -> GroupResult:
    """The root's status and every leaf's members (upstream's proposed assignments of the
    whole tree)."""
    members = [m for leaf in root.leaves() for m in results[leaf.key].members]
    return GroupResult(results[root.key].status, members)


def _fail_all(
    cycles: PodGroupCycles,
    fw: Framework,
    node: TreeNode | None,
    queued: Sequence[QueuedPodInfo],
    status: Status,
    *,
    cycle: int,
    started: float,
) -> None:
    """upstream `handlePodGroupFailureBeforeScheduling`: every member fails with the error,
    every PodGroup of the tree gets `SchedulerError`."""
    for qpi in queued:
        cycles.handle_failure(fw, qpi, status, cycle, started)
    for leaf in node.leaves() if node is not None else ():
        patch_condition(fw, leaf.group, status)
    cycles.observe(fw, status, waiting=False, started=started)


__all__ = ["ROOT_PREFIX", "composite_tree", "root_group_key", "root_of", "schedule_composite"]
