"""Pod-group preemption (upstream's PodGroupPostFilter of DefaultPreemption) over a real
Framework and cache: the victims of lower priority are taken off, the group placed again,
as many victims as possible put back (PDB-violating ones first), the members nominated,
and the cache left as it was; the victims' collection and order; the texts."""

from __future__ import annotations

import dataclasses

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code, Status
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod, PodDisruptionBudget, SchedulingPodGroup
from kubesched.plugins.default_preemption.victims import (
    POD,
    PODGROUP,
    collect,
    most_important_first,
)
from kubesched.queue import Nominator, QueuedPodInfo
from kubesched.scheduler.podgroup_preemption import (
    NO_VICTIMS,
    NOT_ELIGIBLE_NEVER,
    ONGOING,
    GroupPreemption,
    evaluate_group,
)
from kubesched.scheduler.podgroup_status import as_post_filter_status, with_post_filter
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod

HIGH = 100


def _group(
    name: str = "pg", *, min_count: int = 2, priority: int = HIGH, **spec: object
) -> ApiObject:
    body = {
        "metadata": {"namespace": "ns", "name": name, "uid": f"uid-{name}", "generation": 1},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": min_count}},
            "priority": priority,
            **spec,
        },
    }
    return ApiObject.from_json(body)


def _member(i: int, **kw: str) -> Pod:
    pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg").req(cpu="1")
    pod = pod.priority(HIGH)
    if kw.get("policy"):
        pod = pod.preemption_policy(kw["policy"])
    return pod.model()


def _low(
    name: str, node: str, *, priority: int = 0, start: str = "2026-01-01T00:00:00Z", **labels: str
) -> Pod:
    pod = make_pod().name(name).namespace("ns").uid(name).node(node).req(cpu="1")
    for key, value in labels.items():
        pod = pod.label(key, value)
    return pod.priority(priority).start_time(start).model()


class World:
    def __init__(self, nodes: int) -> None:
        self.handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
        self.fw = build_test_framework(
            handle=self.handle, enabled={"multiPoint": ["GangScheduling"]}
        )
        self.cache, self.snapshot = SchedulerCache(), Snapshot()
        self.groups: dict[str, ApiObject] = {}
        for i in range(nodes):
            self.cache.add_node(make_node().name(f"n{i}").capacity(cpu="2", pods="10").model())
        self.add_group(_group())

    def add_group(self, obj: ApiObject) -> None:
        self.groups[obj.name] = obj
        self.handle.listers.add(SCHEDULING_PODGROUPS, obj)

    def bound(self, *pods: Pod) -> None:
        for pod in pods:
            self.cache.add_pod(pod)
            self.handle.listers.pods.on_add(pod)

    def group_of(self, pod: Pod) -> SchedulingPodGroup | None:
        obj = self.groups.get(pod.pod_group_name)
        return SchedulingPodGroup.of(obj) if obj is not None else None

    def evaluate(
        self, members: list[Pod], pdbs: tuple[PodDisruptionBudget, ...] = ()
    ) -> GroupPreemption:
        for pod in members:
            self.handle.listers.pods.on_add(pod)
        self.cache.update_snapshot(self.snapshot)
        queued = [QueuedPodInfo(pod=pod, timestamp=float(i)) for i, pod in enumerate(members)]
        return evaluate_group(
            self.fw,
            cache=self.cache,
            snapshot=self.snapshot,
            group=SchedulingPodGroup.of(self.groups["pg"]),
            queued=queued,
            scheduled=0,
            group_of=self.group_of,
            pdbs=pdbs,
            nominator=Nominator(),
            now=1e10,
        )


def test_a_gang_preempts_only_the_victims_it_needs_and_is_nominated() -> None:
    world = World(nodes=2)  # 4 cpu, all taken by pods of priority 0
    world.bound(_low("a", "n0"), _low("b", "n0"), _low("c", "n1"), _low("d", "n1"))
    pods_before = world.cache.pod_count()
    outcome = world.evaluate([_member(0), _member(1)])
    assert outcome.status == Status(
        Code.SUCCESS, "found a placement for podgroup, preempting 2 victims"
    )
    assert len(outcome.victims) == 2
    assert set(outcome.nominations) == {"w0", "w1"}
    nodes = {victim.node_name for victim in outcome.victims}
    assert set(outcome.nominations.values()) == nodes  # each member where room was made
    assert world.cache.pod_count() == pods_before  # victims back, trials undone
    assert world.cache.assumed_count() == 0


def test_free_room_is_used_before_any_victim() -> None:
    world = World(nodes=2)
    world.bound(_low("a", "n0"), _low("b", "n0"), _low("c", "n1"))  # one cpu free on n1
    outcome = world.evaluate([_member(0), _member(1)])
    assert outcome.status.is_success()
    assert len(outcome.victims) == 1


def test_without_lower_priority_pods_there_is_nothing_to_preempt() -> None:
    world = World(nodes=1)
    world.bound(_low("a", "n0", priority=HIGH), _low("b", "n0", priority=HIGH))
    outcome = world.evaluate([_member(0), _member(1)])
    assert outcome.status == Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)
    assert outcome.victims == ()


def test_a_member_with_preemption_policy_never_makes_the_group_ineligible() -> None:
    world = World(nodes=1)
    world.bound(_low("a", "n0"), _low("b", "n0"))
    outcome = world.evaluate([_member(0), _member(1, policy="Never")])
    assert outcome.status == Status(Code.UNSCHEDULABLE, NOT_ELIGIBLE_NEVER)


def test_when_even_all_victims_gone_the_group_does_not_fit_the_cycle_says_why() -> None:
    world = World(nodes=1)
    world.add_group(_group(min_count=3))
    world.bound(_low("a", "n0"))
    outcome = world.evaluate([_member(0), _member(1), _member(2)])
    assert outcome.status.code is Code.UNSCHEDULABLE
    assert outcome.victims == ()
    assert world.cache.pod_count() == 1


def test_victims_protected_by_a_pdb_are_put_back_first() -> None:
    # One member per node; "a" started last, so it is the least important victim: without
    # its PDB it is evicted, with it it is put back first and "b" goes instead.
    late = "2026-01-02T00:00:00Z"
    pdb = PodDisruptionBudget(
        namespace="ns", name="db", selector={"matchLabels": {"app": "db"}}, disruptions_allowed=0
    )
    evicted = {}
    for pdbs in ((), (pdb,)):
        world = World(nodes=2)
        world.bound(
            _low("a", "n0", start=late, app="db"), _low("b", "n0"), _low("c", "n1"), _low("d", "n1")
        )
        outcome = world.evaluate([_member(0), _member(1)], pdbs=pdbs)
        assert outcome.num_pdb_violations == 0
        evicted[len(pdbs)] = sorted(victim.name for victim in outcome.victims)
    assert evicted[0][0] == "a"
    assert evicted[1][0] == "b"


def test_a_group_with_disruption_mode_all_is_one_victim_with_the_groups_priority() -> None:
    world = World(nodes=2)
    world.add_group(_group("low", priority=5, disruptionMode={"all": {}}))
    world.add_group(_group("single", priority=7))
    members = [
        make_pod().name(f"l{i}").namespace("ns").uid(f"l{i}").node(f"n{i}").pod_group("low")
        for i in range(2)
    ]
    lone = make_pod().name("s").namespace("ns").uid("s").node("n1").pod_group("single").model()
    plain = make_pod().name("p").namespace("ns").uid("p").node("n0").priority(9).model()
    world.bound(*(m.model() for m in members), lone, plain)
    world.cache.update_snapshot(world.snapshot)
    victims = most_important_first(collect(world.snapshot.node_infos, world.group_of, now=0))
    assert [(v.kind, v.priority, sorted(p.name for p in v.pods)) for v in victims] == [
        (POD, 9, ["p"]),
        (PODGROUP, 7, ["s"]),
        (PODGROUP, 5, ["l0", "l1"]),
    ]


def test_the_post_filter_texts_are_upstreams() -> None:
    found = as_post_filter_status(
        Status(Code.SUCCESS, "found a placement for podgroup, preempting 2 victims")
    )
    group = Status(Code.UNSCHEDULABLE, "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining")
    assert with_post_filter(group, found).message == (
        "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, "
        "pod group preemption: found a placement for podgroup, preempting 2 victims"
    )
    silent = with_post_filter(group, Status(Code.UNSCHEDULABLE))  # no DefaultPreemption
    assert silent.message.endswith("0 remaining, ")  # upstream appends the empty reason
    none = as_post_filter_status(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS))
    assert none.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert none.message == f"pod group preemption: {NO_VICTIMS}"
    error = as_post_filter_status(Status(Code.ERROR, "boom"))
    assert with_post_filter(group, error) == Status(
        Code.ERROR,
        'error in "DefaultPreemption" PodGroupPostFilter plugins: pod group preemption: boom',
        plugin="DefaultPreemption",
    )


def test_a_groups_preemption_still_terminating_is_waited_for() -> None:
    world = World(nodes=1)
    going = dataclasses.replace(_low("a", "n0"), deleting=True, preempted_by_scheduler=True)
    world.bound(going, _low("b", "n0"))
    members = [dataclasses.replace(_member(0), nominated_node_name="n0"), _member(1)]
    outcome = world.evaluate(members)
    assert outcome.status == Status(Code.SUCCESS, ONGOING)
    assert outcome.nominations == {"w0": "n0", "w1": ""}  # as they are
    assert outcome.victims == ()
