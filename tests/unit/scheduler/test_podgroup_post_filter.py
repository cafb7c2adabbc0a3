"""The PodGroupPostFilter plugins of a failed native pod-group cycle, as kube-scheduler
v1.37.2's `RunPodGroupPostFilterPlugins` runs them: DynamicResources first
(`applyDynamicResources` puts it before DefaultPreemption), Success or
UnschedulableAndUnresolvable ends the run with that status alone, Unschedulable reasons
join, an error is wrapped; `applyPodGroupPostFilterResult` appends the run's message to the
group's status."""

from __future__ import annotations

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code, Status
from kubesched.framework.listers import ClusterListers
from kubesched.plugins.dynamic_resources.group_post_filter import DONE
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.podgroup_cycle import PodGroupCycles
from kubesched.scheduler.podgroup_post_filter import after_post_filters
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod
from tests.unit.scheduler.test_podgroup_cycle_preemption import (
    HIGH,
    Recorder,
    _add_group,
    _low,
)

NEVER = "pod group preemption: not eligible due to preemptionPolicy=Never."
NO_VICTIMS = "pod group preemption: No preemption victims found for incoming preemptor"


def test_unschedulable_reasons_join_from_dynamic_resources_on() -> None:
    dra = Status(Code.UNSCHEDULABLE, DONE)
    preemption = Status(Code.UNSCHEDULABLE, NEVER, plugin="DefaultPreemption")
    joined = after_post_filters(dra, preemption)
    assert joined == Status(Code.UNSCHEDULABLE, DONE, NEVER, plugin="DynamicResources")
    assert joined.message == f"{DONE}, {NEVER}"


def test_unresolvable_or_success_from_default_preemption_is_the_result_alone() -> None:
    """upstream: `status.Code() == fwk.UnschedulableAndUnresolvable` -> return it (what
    DynamicResources said is dropped), as `No preemption victims found`."""
    dra = Status(Code.UNSCHEDULABLE, DONE)
    unresolvable = Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS, plugin="DefaultPreemption"
    )
    assert after_post_filters(dra, unresolvable) is unresolvable
    success = Status(Code.SUCCESS, "pod group preemption: found a placement")
    assert after_post_filters(dra, success) is success


def test_an_error_of_dynamic_resources_ends_the_run_wrapped() -> None:
    status = after_post_filters(Status(Code.ERROR, "not found"), None)
    assert status == Status(
        Code.ERROR,
        'error in "DynamicResources" PodGroupPostFilter plugins: not found',
        plugin="DynamicResources",
    )


def test_without_either_plugin() -> None:
    only_dra = after_post_filters(Status(Code.UNSCHEDULABLE, DONE), None)
    assert only_dra == Status(Code.UNSCHEDULABLE, DONE, plugin="DynamicResources")
    assert after_post_filters(None, None) == Status(Code.UNSCHEDULABLE)
    preemption = Status(Code.UNSCHEDULABLE, NEVER, plugin="DefaultPreemption")
    assert after_post_filters(None, preemption) is preemption


def test_a_gang_that_may_not_preempt_says_what_both_plugins_said() -> None:
    """A gang of two (preemptionPolicy Never) on a full node: DynamicResources' run over
    members without claims says `deallocation and deletion of ResourceClaims completed`
    (upstream: nothing freed -> `unreservePodGroup`, the gate off), DefaultPreemption
    `not eligible`; both reasons end the PodGroup's condition message."""
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    _add_group(handle, min_count=2, priority=HIGH)
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    cycles, queue, recorder = _cycles(handle)
    for i in (0, 1):
        pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg")
        member = pod.req(cpu="1").priority(HIGH).preemption_policy("Never").model()
        handle.listers.pods.on_add(member)
        queue.add(member)
    first = queue.take_members(lambda pod: pod.name == "w0")[0]
    assert cycles.schedule(fw, first, cycle=1) == []
    assert recorder.evictions == []
    (patch,) = handle.status_patches
    condition = patch[1]["conditions"][0]
    assert condition["message"] == (
        f"minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, {DONE}, {NEVER}"
    )


def _cycles(handle: FakeHandle) -> tuple[PodGroupCycles, SchedulingQueue, Recorder]:
    cache = SchedulerCache()
    cache.add_node(make_node().name("n0").capacity(cpu="2", pods="10").model())
    for pod in (_low("a", "n0"), _low("b", "n0")):
        cache.add_pod(pod)
        handle.listers.pods.on_add(pod)
    queue = SchedulingQueue(less=lambda a, b: a.timestamp < b.timestamp)
    recorder = Recorder()
    cycles = PodGroupCycles(
        cache=cache,
        snapshot=Snapshot(),
        queue=queue,
        assume_and_reserve=lambda *a, **kw: None,
        handle_failure=recorder.handle_failure,
        preempt_group=recorder.preempt_group,
    )
    return cycles, queue, recorder
