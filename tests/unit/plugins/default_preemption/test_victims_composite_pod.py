"""A single pod preempting members of CompositePodGroups (kube-scheduler v1.37.2's
`SelectVictimsOnNode` over `GetVictimsOnNode`, and `PodEligibleToPreemptOthers` over
`NewPodVictim`, both reading the CompositePodGroup lister when that gate is on): a member
is a victim at its root's priority, a `disruptionMode.all` composite goes whole, even from
other nodes; DefaultPreemption reads the composites exactly when the handle serves them."""

from __future__ import annotations

from dataclasses import replace

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.framework import Code, CycleState, Status
from kubesched.framework.listers import ClusterListers
from kubesched.model import Pod
from kubesched.plugins.default_preemption import DefaultPreemption
from kubesched.plugins.default_preemption.evaluation import (
    NOT_ELIGIBLE_TERMINATING,
    ineligibility,
    select_victims_on_node,
)
from kubesched.plugins.default_preemption.groups import Groups
from kubesched.testing import FakeHandle, make_pod
from tests.unit.plugins.default_preemption.test_plugin_default_preemption_core import (
    NOW,
    CpuRunner,
    names,
    node,
    preemptor,
)
from tests.unit.plugins.default_preemption.test_victims_composite import A, S, _lookup


def _member(name: str, group: str, node_name: str = "n") -> Pod:
    pod = make_pod().name(name).namespace("ns").uid(name).node(node_name).req(cpu="1")
    return pod.pod_group(group).priority(1).model()


def _groups(*, gate: bool, root: int, mode: str = A) -> Groups:
    pgs = {"pg1": (S, "cpg1"), "pg2": (S, "cpg1")}
    return _lookup(pgs, {"cpg1": (mode, "")}, gate=gate, priorities={"cpg1": root})


def test_a_member_is_a_victim_at_its_roots_priority() -> None:
    info = node("n", "1", _member("m", "pg1"))  # its own priority 1, its PodGroup's 10
    for gate, want in ((True, []), (False, ["m"])):
        got, _, _ = select_victims_on_node(
            CpuRunner(),
            CycleState(),
            preemptor("1", 50),
            info,
            [],
            now=NOW,
            group_of=_groups(gate=gate, root=100),
        )
        assert names(got) == want, gate


def test_a_disruption_mode_all_composite_goes_whole_from_every_node() -> None:
    here = node("n", "1", _member("a", "pg1"))
    there = node("m", "2", _member("b", "pg2", "m"), _member("c", "pg1", "m"))
    for gate, want in ((True, ["a", "b", "c"]), (False, ["a"])):
        got, _, status = select_victims_on_node(
            CpuRunner(),
            CycleState(),
            preemptor("1", 50),
            here,
            [],
            now=NOW,
            group_of=_groups(gate=gate, root=5),
            everywhere=[here, there],
        )
        assert status.is_success()
        assert sorted(names(got)) == want, gate


def test_a_terminating_member_blocks_at_its_roots_priority() -> None:
    """upstream PodEligibleToPreemptOthers with NewPodVictim's priority (the root's)."""
    dying = replace(_member("d", "pg1"), deleting=True, preempted_by_scheduler=True)
    info = node("n", "1", dying)
    pod = preemptor("1", 50, nominated="n")
    for root, want in ((100, ""), (5, NOT_ELIGIBLE_TERMINATING)):
        got = ineligibility(
            pod,
            nominated_status=Status(Code.UNSCHEDULABLE, ""),
            nominated_node=info,
            group_of=_groups(gate=True, root=root),
        )
        assert got == want, root


def test_the_plugin_reads_composites_only_when_the_handle_serves_them() -> None:
    for gate in (True, False):
        specs = [SCHEDULING_PODGROUPS, *([SCHEDULING_COMPOSITEPODGROUPS] if gate else [])]
        plugin = DefaultPreemption(args={}, handle=FakeHandle(listers=ClusterListers(specs)))
        found = plugin._group_of()
        assert isinstance(found, Groups)
        assert (found.tree is not None) is gate
