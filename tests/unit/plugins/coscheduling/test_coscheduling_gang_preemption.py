"""Coscheduling's gang preemption (`gangPreemption: true`), edge cases through a whole
profile: a gang's pods evicted together, minMember below the member count, victims in two
gangs, PodDisruptionBudgets, equal priorities, a gang that cannot fit, the plan while the
victims go, and the arg itself."""

from __future__ import annotations

import pytest

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import (
    FILTER_RUNNER_KEY,
    POD_DISRUPTION_BUDGETS,
    Code,
    CycleState,
    NodeToStatus,
    Status,
)
from kubesched.manifests.preemption import profile_preempts
from kubesched.model import ApiObject
from kubesched.plugins.coscheduling import POD_GROUP_LABEL, PODGROUPS
from kubesched.plugins.coscheduling.args import CoschedulingArgs
from kubesched.plugins.coscheduling.gang_preemption import (
    NOT_ELIGIBLE_NEVER,
    NOT_ELIGIBLE_TERMINATING,
    ONGOING,
    RIVAL,
)
from kubesched.plugins.helper.args import ArgsError
from kubesched.testing import make_pod
from tests.unit.plugins.coscheduling.gang_cluster import NS, cluster, group, pod


def test_the_arg_is_off_by_default_and_written_only_when_on() -> None:
    assert CoschedulingArgs.from_v1({}).gang_preemption is False
    assert "gangPreemption" not in CoschedulingArgs.from_v1({}).to_v1()
    on = CoschedulingArgs.from_v1({"gangPreemption": True})
    assert on.to_v1()["gangPreemption"] is True
    assert CoschedulingArgs.from_v1(on.to_v1()) == on


def test_a_bad_arg_is_refused_with_the_fix() -> None:
    with pytest.raises(ArgsError) as refused:
        CoschedulingArgs.from_v1({"gangPreemption": "yes"})
    assert str(refused.value) == (
        "CoschedulingArgs.gangPreemption: expected true or false, got 'yes'; write "
        "gangPreemption: true to let gangs preempt as a whole, or leave it out"
    )


def test_a_gang_evicts_a_lower_gang_whole_even_where_one_node_would_do() -> None:
    low = [pod(f"l{i}", cpu=2, priority=1, gang="low", node=f"n{i}") for i in range(2)]
    high = [pod("h0", cpu=2, priority=10, gang="high")]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("low", 2)
    c.add_group("high", 1)
    result, status = c.run(high[0])
    assert status.is_success(), status.message
    assert status.message == "found a placement for podgroup ns/high, preempting 2 victims"
    assert c.victims() == {"l0", "l1"}
    assert result is not None
    assert result.nominated_node_name in ("n0", "n1")


def test_a_pod_of_no_gang_evicts_a_gang_whole_too() -> None:
    low = [pod(f"l{i}", cpu=2, priority=1, gang="low", node=f"n{i}") for i in range(2)]
    single = pod("s", cpu=2, priority=10)
    c = cluster([2, 2, 2], bound=[*low, pod("x", cpu=2, priority=5, node="n2")], pending=[single])
    c.add_group("low", 2)
    result, status = c.run(single)
    # Evicting x (priority 5) costs one pod; the gang costs two of priority 1: upstream's
    # criteria take the lowest highest priority first.
    assert status.is_success(), status.message
    assert c.victims() == {"l0", "l1"}
    assert result is not None
    assert result.nominated_node_name == "n0"


def test_min_member_below_the_member_count() -> None:
    """The low gang has 3 running pods and minMember 2: all 3 go together. The high gang
    has 3 members and minMember 2: two are placed and nominated."""
    low = [pod(f"l{i}", cpu=2, priority=1, gang="low", node=f"n{i}") for i in range(3)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(3)]
    c = cluster([2, 2, 2], bound=low, pending=high)
    c.add_group("low", 2)
    c.add_group("high", 2)
    _, status = c.run(high[0])
    assert status.is_success(), status.message
    assert c.victims() == {"l0", "l1", "l2"}
    assert c.plugin.gangs is not None
    plan = c.plugin.gangs.plan("ns/high")
    assert plan is not None
    assert sorted(plan.hosts) == ["h0", "h1"]


def test_victims_in_two_gangs_only_the_gang_needed_goes() -> None:
    a = [pod(f"a{i}", cpu=2, priority=1, gang="a", node=f"n{i}") for i in range(2)]
    b = [pod(f"b{i}", cpu=2, priority=2, gang="b", node=f"n{i + 2}") for i in range(2)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(2)]
    c = cluster([2, 2, 2, 2], bound=[*a, *b], pending=high)
    for name in ("a", "b", "high"):
        c.add_group(name, 2)
    _, status = c.run(high[0])
    assert status.is_success(), status.message
    assert c.victims() == {"a0", "a1"}  # b is more important (priority 2): given back first


def test_victims_in_two_gangs_both_go_when_both_are_needed() -> None:
    a = [pod(f"a{i}", cpu=2, priority=1, gang="a", node=f"n{i}") for i in range(2)]
    b = [pod(f"b{i}", cpu=2, priority=2, gang="b", node=f"n{i + 2}") for i in range(2)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(3)]
    c = cluster([2, 2, 2, 2], bound=[*a, *b], pending=high)
    for name, size in (("a", 2), ("b", 2), ("high", 3)):
        c.add_group(name, size)
    _, status = c.run(high[0])
    assert status.is_success(), status.message
    assert c.victims() == {"a0", "a1", "b0", "b1"}


def test_a_gang_that_cannot_fit_evicts_nobody() -> None:
    low = [pod(f"l{i}", cpu=2, priority=1, gang="low", node=f"n{i}") for i in range(2)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(3)]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("low", 2)
    c.add_group("high", 3)
    _, status = c.run(high[0])
    assert status.code is Code.UNSCHEDULABLE
    assert "PodGroup ns/high gets rejected due to Pod h0" in status.message
    assert c.handle.preemptions == []


def test_a_gang_with_one_pod_of_higher_priority_is_not_a_victim() -> None:
    low = [
        pod("l0", cpu=2, priority=1, gang="low", node="n0"),
        pod("l1", cpu=2, priority=20, gang="low", node="n1"),
    ]
    high = [pod("h0", cpu=2, priority=10, gang="high")]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("low", 2)
    c.add_group("high", 1)
    _, status = c.run(high[0])
    assert not status.is_success()
    assert c.handle.preemptions == []


def test_equal_priorities_preempt_nothing() -> None:
    low = [pod(f"l{i}", cpu=2, priority=10, gang="low", node=f"n{i}") for i in range(2)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(2)]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("low", 2)
    c.add_group("high", 2)
    _, status = c.run(high[0])
    assert not status.is_success()
    assert c.handle.preemptions == []


def test_the_gang_preempts_at_the_priority_of_its_lowest_member() -> None:
    low = [pod("l0", cpu=2, priority=5, node="n0"), pod("l1", cpu=2, priority=5, node="n1")]
    high = [pod("h0", cpu=2, priority=10, gang="high"), pod("h1", cpu=2, priority=5, gang="high")]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("high", 2)
    _, status = c.run(high[0])
    assert not status.is_success()
    assert c.handle.preemptions == []


def test_a_pdb_protected_victim_is_given_back_first() -> None:
    guarded = pod("guarded", cpu=2, priority=1, node="n0", app="db")
    plain = pod("plain", cpu=2, priority=1, node="n1")
    high = [pod("h0", cpu=2, priority=10, gang="high")]
    c = cluster([2, 2], bound=[guarded, plain], pending=high)
    c.add_group("high", 1)
    budget = {
        "metadata": {"namespace": NS, "name": "db"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}},
        "status": {"disruptionsAllowed": 0},
    }
    c.handle.listers.add(POD_DISRUPTION_BUDGETS, ApiObject.from_json(budget))
    _, status = c.run(high[0])
    assert status.is_success(), status.message
    assert c.victims() == {"plain"}
    assert c.handle.preemptions[0].node_name == "n1"


def test_a_gang_member_with_preemption_policy_never_preempts_nothing() -> None:
    low = [pod("l0", cpu=2, priority=1, node="n0")]
    never = make_pod().name("h0").namespace(NS).uid("h0").req(cpu="2").priority(10)
    member = never.label(POD_GROUP_LABEL, "high").preemption_policy("Never").model()
    c = cluster([2], bound=low, pending=[member])
    c.add_group("high", 1)
    _, status = c.run(member)
    assert "PodGroup ns/high gets rejected due to Pod h0" in status.message
    assert c.handle.preemptions == []


def test_preemption_policy_never_is_the_gang_preemption_answer() -> None:
    never = make_pod().name("s").namespace(NS).uid("s").req(cpu="2").priority(10)
    single = never.preemption_policy("Never").model()
    c = cluster([2], bound=[pod("l0", cpu=2, priority=1, node="n0")], pending=[single])
    _, status = c.run(single)
    assert status.message == NOT_ELIGIBLE_NEVER
    assert c.handle.preemptions == []


def test_default_preemption_beside_it_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    """Logged when Coscheduling's PostFilter runs: DefaultPreemption runs before it and
    found nothing to evict (here: no pod of lower priority)."""
    low = [pod("l0", cpu=2, priority=10, node="n0")]
    high = [pod("h0", cpu=2, priority=10, gang="high"), pod("h1", cpu=2, priority=10, gang="high")]
    c = cluster([2], bound=low, pending=high, with_default_preemption=True)
    c.add_group("high", 2)
    c.run(high[0])
    c.run(high[1])
    assert [r.getMessage() for r in caplog.records].count(RIVAL) == 1


def test_siblings_get_their_nominations_while_the_victims_go() -> None:
    low = [pod(f"l{i}", cpu=2, priority=1, gang="low", node=f"n{i}") for i in range(2)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(2)]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("low", 2)
    c.add_group("high", 2)
    c.run(high[0])
    assert c.plugin.gangs is not None
    plan = c.plugin.gangs.plan("ns/high")
    assert plan is not None
    result, status = c.run(high[1])
    assert ONGOING in status.message
    assert result is not None
    assert result.nominated_node_name == plan.hosts["h1"]
    assert len(c.handle.preemptions) == 1  # not a second time
    for victim in low:  # the victims are gone: the plan is over, a new one may be made
        c.handle.listers.pods.on_delete(victim)
    c.run(high[1])
    assert len(c.handle.preemptions) == 2


def test_a_member_waiting_at_permit_counts_toward_min_member() -> None:
    low = [pod(f"l{i}", cpu=2, priority=1, node=f"n{i}") for i in range(2)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(3)]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("high", 3)
    c.plugin.manager.assigned["ns/high"] = {"h2"}  # h2 reached Permit (its room elsewhere)
    _, status = c.run(high[0])
    assert status.is_success(), status.message
    assert c.plugin.gangs is not None
    plan = c.plugin.gangs.plan("ns/high")
    assert plan is not None
    assert sorted(plan.hosts) == ["h0", "h1"]
    assert c.victims() == {"l0", "l1"}


def test_a_profile_with_gang_preemption_preempts_for_the_generated_rbac() -> None:
    """`kubesched manifests` grants pods delete and PDB reads to a profile where
    Coscheduling preempts (DefaultPreemption off at postFilter), and only with the arg."""
    plugins = {
        "multiPoint": PluginSet(enabled=(PluginRef("Coscheduling"),)),
        "queueSort": PluginSet(disabled=(PluginRef("PrioritySort"),)),
        "postFilter": PluginSet(disabled=(PluginRef("DefaultPreemption"),)),
    }
    on = {"Coscheduling": {"gangPreemption": True}}
    assert profile_preempts(Profile(plugins=plugins, plugin_config=on))
    assert not profile_preempts(Profile(plugins=plugins))


def test_a_pod_whose_victims_still_terminate_does_not_preempt_again() -> None:
    going = make_pod().name("v").namespace(NS).uid("v").req(cpu="2").priority(1).node("n0")
    other = pod("o", cpu=2, priority=1, node="n1")
    again = make_pod().name("s").namespace(NS).uid("s").req(cpu="2").priority(10)
    single = again.nominated_node("n0").model()
    c = cluster([2, 2], bound=[going.preempted().model(), other], pending=[single])
    _, status = c.run(single)
    assert status.message == NOT_ELIGIBLE_TERMINATING
    assert c.handle.preemptions == []


def test_a_gang_member_nominated_where_victims_terminate_waits() -> None:
    going = make_pod().name("v").namespace(NS).uid("v").req(cpu="2").priority(1).node("n0")
    other = pod("o", cpu=2, priority=1, node="n1")
    member = make_pod().name("h0").namespace(NS).uid("h0").req(cpu="2").priority(10)
    h0 = member.label(POD_GROUP_LABEL, "high").nominated_node("n0").model()
    c = cluster([2, 2], bound=[going.preempted().model(), other], pending=[h0])
    c.add_group("high", 1)
    _, status = c.run(h0)
    assert status.message == ONGOING
    assert c.handle.preemptions == []


def test_a_deleted_group_takes_its_plan_with_it() -> None:
    low = [pod(f"l{i}", cpu=2, priority=1, gang="low", node=f"n{i}") for i in range(2)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(2)]
    c = cluster([2, 2], bound=low, pending=high)
    c.add_group("low", 2)
    c.add_group("high", 2)
    c.run(high[0])
    assert c.plugin.gangs is not None
    assert c.plugin.gangs.plan("ns/high") is not None
    c.handle.listers.store(PODGROUPS).on_delete(group("high", 2))
    assert c.plugin.gangs.plan("ns/high") is None


def test_a_gang_with_a_gated_member_makes_no_room_for_part_of_it() -> None:
    low = [pod(f"l{i}", cpu=2, priority=1, node=f"n{i}") for i in range(3)]
    high = [pod(f"h{i}", cpu=2, priority=10, gang="high") for i in range(2)]
    gated = make_pod().name("h2").namespace(NS).uid("h2").req(cpu="2").priority(10)
    h2 = gated.label(POD_GROUP_LABEL, "high").scheduling_gate("example.com/wait").model()
    c = cluster([2, 2, 2], bound=low, pending=[*high, h2])
    c.add_group("high", 2)
    c.add_group("high", 3)  # minMember 3: h2 is needed, and gated
    gangs, found = c.plugin.gangs, c.plugin.manager.group_of(high[0])
    assert gangs is not None
    state = CycleState()  # PreFilter refuses such a gang; its PostFilter is asked directly
    state.write(FILTER_RUNNER_KEY, c.fw)
    statuses = NodeToStatus()
    for name in ("n0", "n1", "n2"):
        statuses.set(name, Status(Code.UNSCHEDULABLE, "Insufficient cpu"))
    result, status = gangs.post_filter(state, high[0], statuses, found)
    assert status.message == "podgroup ns/high: 3 members needed, 2 can be placed"
    assert result is None
    assert c.handle.preemptions == []
