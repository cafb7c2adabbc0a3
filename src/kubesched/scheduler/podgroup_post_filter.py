"""The PodGroupPostFilter plugins of a native PodGroup's failed cycle, as kube-scheduler
v1.37.2's framework runs them (`RunPodGroupPostFilterPlugins`): DynamicResources first
(`applyDynamicResources` puts it before DefaultPreemption), then DefaultPreemption.

A Success or UnschedulableAndUnresolvable status ends the run and is the result alone (so
DefaultPreemption's `No preemption victims found for incoming preemptor` drops what
DynamicResources said); an error ends it wrapped (`error in "<plugin>" PodGroupPostFilter
plugins: ...`); Unschedulable ones add their reasons, and the result is Unschedulable with
all of them, from the first plugin that said Unschedulable.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.apis import names
from kubesched.framework import Code, Status
from kubesched.model import SchedulingPodGroup
from kubesched.plugins.dynamic_resources.group_post_filter import GroupCycle
from kubesched.plugins.dynamic_resources.plugin import DynamicResources
from kubesched.queue import QueuedPodInfo
from kubesched.runtime import Framework
from kubesched.scheduler.podgroup_algorithm import MemberResult

DRA_PLUGIN = names.DYNAMIC_RESOURCES


def dra_post_filter(
    fw: Framework,
    group: SchedulingPodGroup,
    queued: Sequence[QueuedPodInfo],
    members: Sequence[MemberResult],
    scheduled: int,
) -> Status | None:
    """DynamicResources' PodGroupPostFilter when the profile has the plugin (None: not)."""
    plugin = next((pl for pl in fw.plugins.post_filter if isinstance(pl, DynamicResources)), None)
    if plugin is None:
        return None
    shared = next((m.state.pod_group_cycle for m in members if m.state.pod_group_cycle), None)
    cycle = GroupCycle(
        group=group.obj,
        unscheduled=[qpi.pod for qpi in queued],
        shared=shared,
        scheduled=scheduled,
        topology_aware=fw.topology_aware,
    )
    return plugin.pod_group_post_filter(cycle)


def after_post_filters(dra: Status | None, preemption: Status | None) -> Status:
    """The run's status from DynamicResources' status and DefaultPreemption's (as
    `as_post_filter_status` made it); None: the plugin is not in the profile (or, for
    DefaultPreemption, not run after an error)."""
    if dra is not None and dra.is_error():
        wrapped = f'error in "{DRA_PLUGIN}" PodGroupPostFilter plugins: {dra.message}'
        return Status(Code.ERROR, wrapped, plugin=DRA_PLUGIN)
    if preemption is not None and preemption.code is not Code.UNSCHEDULABLE:
        return preemption
    if dra is None:
        return preemption if preemption is not None else Status(Code.UNSCHEDULABLE)
    later = (preemption.message,) if preemption is not None and preemption.message else ()
    return Status(Code.UNSCHEDULABLE, *dra.reasons, *later, plugin=DRA_PLUGIN)
