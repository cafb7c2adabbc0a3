"""Single-pod preemption with the `GenericWorkload` gate (`node_victims`): a PodGroup member
is a victim at its group's priority, the pods of a `disruptionMode.all` group are evicted
together (also on other nodes, whose infos are only told to the PreFilter extensions), and
a terminating member blocks a preemptor at its group's priority."""

from __future__ import annotations

import dataclasses

from kubesched.framework import Code, CycleState, Status
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.plugins.default_preemption.evaluation import (
    NOT_ELIGIBLE_TERMINATING,
    ineligibility,
    select_victims_on_node,
)
from kubesched.testing import make_pod
from tests.unit.plugins.default_preemption.test_plugin_default_preemption_core import (
    NOW,
    CpuRunner,
    names,
    node,
    preemptor,
)


def _group(name: str, priority: int, **spec: object) -> SchedulingPodGroup:
    body = {
        "metadata": {"namespace": "ns", "name": name, "uid": name},
        "spec": {"schedulingPolicy": {"basic": {}}, "priority": priority, **spec},
    }
    return SchedulingPodGroup.of(ApiObject.from_json(body))


GROUPS = {"cheap": _group("cheap", 5), "all": _group("all", 5, disruptionMode={"all": {}})}


def group_of(pod: Pod) -> SchedulingPodGroup | None:
    return GROUPS.get(pod.pod_group_name)


def member(name: str, group: str, *, node_name: str = "n", priority: int = 500) -> Pod:
    pod = make_pod().name(name).namespace("ns").uid(name).node(node_name).req(cpu="1")
    return pod.pod_group(group).priority(priority).model()


def test_a_member_is_a_victim_at_its_groups_priority() -> None:
    info = node("n", "1", member("m", "cheap"))  # its own priority 500, its group's 5
    gated, _, status = select_victims_on_node(
        CpuRunner(), CycleState(), preemptor("1", 100), info, [], now=NOW, group_of=group_of
    )
    assert status.is_success()
    assert names(gated) == ["m"]
    ungated, _, status = select_victims_on_node(
        CpuRunner(), CycleState(), preemptor("1", 100), info, [], now=NOW
    )
    assert ungated == []
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_a_disruption_mode_all_group_goes_whole_even_from_other_nodes() -> None:
    runner = CpuRunner()
    here = node("n", "1", member("a0", "all"))
    there = node("m", "2", member("a1", "all", node_name="m"))
    got, _, status = select_victims_on_node(
        runner,
        CycleState(),
        preemptor("1", 100),
        here,
        [],
        now=NOW,
        group_of=group_of,
        everywhere=[here, there],
    )
    assert status.is_success()
    assert sorted(names(got)) == ["a0", "a1"]
    assert runner.calls[:2] == ["remove a0", "remove a1"]
    assert there.requested.milli_cpu == 1000  # the other node is never changed


def test_a_terminating_member_blocks_at_its_groups_priority() -> None:
    going = dataclasses.replace(member("m", "cheap"), deleting=True, preempted_by_scheduler=True)
    info = node("n", "2", going)
    pending = preemptor("1", 100, nominated="n")
    ok = Status(Code.UNSCHEDULABLE, "")
    assert (
        ineligibility(pending, nominated_status=ok, nominated_node=info, group_of=group_of)
        == NOT_ELIGIBLE_TERMINATING
    )
    assert ineligibility(pending, nominated_status=ok, nominated_node=info) == ""
