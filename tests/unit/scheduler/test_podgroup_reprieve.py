"""The reprieve of pod-group preemption (`podgroup_reprieve`): its shortcut (a victim none of
whose pods is on a member's node gets the last verdict when no PreFilter extension runs)
gives exactly what the plain path gives, on seeded random clusters: the same status,
victims in the same order, nominations, PDB violations and group disruptions, and the cache
and snapshot left as they were."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.model import Pod, PodDisruptionBudget, SchedulingPodGroup
from kubesched.queue import Nominator, QueuedPodInfo
from kubesched.runtime import scoring
from kubesched.scheduler import podgroup_reprieve
from kubesched.scheduler.podgroup_preemption import GroupPreemption, evaluate_group
from kubesched.testing import build_test_framework, make_node, make_pod
from tests.unit.scheduler.test_podgroup_preemption import World, _group

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
SEEDS = range(80)


def _affinity(rng: random.Random) -> dict[str, Any]:
    key = rng.choice([HOSTNAME, ZONE])
    term = {"labelSelector": {"matchLabels": {"app": "blue"}}, "topologyKey": key}
    kind = rng.choice(["podAffinity", "podAntiAffinity"])
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _bound_pod(rng: random.Random, i: int, nodes: int, low_groups: int) -> Pod:
    pod = make_pod().name(f"v{i}").namespace("ns").uid(f"v{i}")
    pod = pod.node(f"n{rng.randrange(nodes)}").req(cpu=f"{rng.choice([200, 500, 900])}m")
    pod = pod.priority(rng.choice([0, 10, 50, 200])).start_time(f"2026-01-0{1 + i % 9}T00:00:00Z")
    if rng.random() < 0.3:
        pod = pod.host_port(rng.choice([80, 81]))
    if rng.random() < 0.5:
        pod = pod.label("app", "blue")
    if low_groups and rng.random() < 0.4:
        pod = pod.pod_group(f"low{rng.randrange(low_groups)}")
    return pod.model()


def _members(rng: random.Random) -> list[Pod]:
    members = []
    with_affinity = rng.random() < 0.4
    blue = rng.random() < 0.5  # with affinity to blue pods: the group may start it
    for i in range(rng.randint(1, 4)):
        pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg")
        pod = pod.req(cpu=f"{rng.choice([500, 1000, 1500])}m").priority(100)
        if rng.random() < 0.3:
            pod = pod.host_port(80)
        if with_affinity:
            pod = pod.affinity(_affinity(rng))
        if blue:
            pod = pod.label("app", "blue")
        members.append(pod.model())
    return members


def _pdbs(rng: random.Random) -> tuple[PodDisruptionBudget, ...]:
    if rng.random() >= 0.4:
        return ()
    selector = {"matchLabels": {"app": "blue"}}
    allowed = rng.randint(0, 2)
    return (PodDisruptionBudget("ns", "pdb", selector=selector, disruptions_allowed=allowed),)


def _world(seed: int) -> tuple[World, list[Pod], tuple[PodDisruptionBudget, ...]]:
    """2-7 nodes in two zones, pods of four priorities (some blue, some with a host port,
    some in low PodGroups, half of which are disrupted whole), 1-4 members of priority 100
    (with pod affinity or anti-affinity by hostname or zone, for a third of the groups)."""
    rng = random.Random(seed)
    world = World(nodes=0)
    nodes = rng.randint(2, 7)
    for i in range(nodes):
        cpu = rng.choice(["2", "3", "4"])
        node = make_node().name(f"n{i}").label(ZONE, f"z{i % 2}").capacity(cpu=cpu, pods="20")
        world.cache.add_node(node.model())
    low_groups = rng.randint(0, 3)
    for g in range(low_groups):
        priority = rng.choice([5, 50, 200])
        if rng.random() < 0.5:
            world.add_group(_group(f"low{g}", priority=priority, disruptionMode={"all": {}}))
        else:
            world.add_group(_group(f"low{g}", priority=priority))
    count = rng.randint(nodes, 4 * nodes)
    world.bound(*(_bound_pod(rng, i, nodes, low_groups) for i in range(count)))
    return world, _members(rng), _pdbs(rng)


def _evaluate(
    seed: int, monkeypatch: pytest.MonkeyPatch, *, shortcut: bool
) -> tuple[GroupPreemption, dict[str, list[str]]]:
    world, members, pdbs = _world(seed)
    monkeypatch.setattr(scoring, "_RNG", random.Random(seed))  # the same ties broken alike
    for pod in members:
        world.handle.listers.pods.on_add(pod)
    world.cache.update_snapshot(world.snapshot)
    queued = [QueuedPodInfo(pod=pod, timestamp=float(i)) for i, pod in enumerate(members)]
    outcome = evaluate_group(
        world.fw,
        cache=world.cache,
        snapshot=world.snapshot,
        group=SchedulingPodGroup.of(world.groups["pg"]),
        queued=queued,
        scheduled=0,
        group_of=world.group_of,
        pdbs=pdbs,
        nominator=Nominator(),
        now=1e10,
        reprieve_shortcut=shortcut,
    )
    after = {info.name: sorted(info.pods) for info in world.snapshot.node_infos}
    assert world.cache.assumed_count() == 0
    return outcome, after


def _comparable(outcome: GroupPreemption) -> tuple[object, ...]:
    victims = tuple(pod.uid for pod in outcome.victims)
    return (
        outcome.status,
        victims,
        dict(outcome.nominations),
        outcome.num_pdb_violations,
        outcome.group_disruptions,
    )


def test_the_shortcut_gives_the_plain_paths_answer_on_random_clusters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checks = {"on": 0, "off": 0}
    plain_check = podgroup_reprieve.Reprieve._check
    side = {"now": "on"}

    def counting(self: podgroup_reprieve.Reprieve, victim: Any) -> bool:
        checks[side["now"]] += 1
        return plain_check(self, victim)

    monkeypatch.setattr(podgroup_reprieve.Reprieve, "_check", counting)
    found = 0
    for seed in SEEDS:
        side["now"] = "off"
        plain, plain_after = _evaluate(seed, monkeypatch, shortcut=False)
        side["now"] = "on"
        fast, fast_after = _evaluate(seed, monkeypatch, shortcut=True)
        assert _comparable(fast) == _comparable(plain), seed
        assert fast_after == plain_after, seed
        found += plain.status.is_success() and bool(plain.victims)
    assert found > len(SEEDS) // 4  # enough preemptions that found victims
    assert 5 * checks["on"] < 4 * checks["off"]  # the shortcut answered a fair share


class _LooksEverywhere:
    """A Filter plugin of the user's: it may read any node of the snapshot."""

    name = "LooksEverywhere"

    def __init__(self, args: object = None, handle: object = None) -> None:
        del args, handle

    def filter(self, state: object, pod: Pod, node_info: object) -> None:
        return None


def test_a_filter_plugin_of_the_users_turns_the_shortcut_off() -> None:
    world = World(nodes=1)
    assert podgroup_reprieve.Reprieve(world.fw, world.snapshot, []).shortcut
    mine = build_test_framework(
        handle=world.handle,
        plugins=[_LooksEverywhere],
        enabled={"multiPoint": ["GangScheduling"], "filter": ["LooksEverywhere"]},
    )
    assert "LooksEverywhere" in [pl.name for pl in mine.plugins.filter]
    assert not podgroup_reprieve.Reprieve(mine, world.snapshot, []).shortcut


def _first_blue_world() -> tuple[World, Pod]:
    """n0 (2 cpu) holds victim a, n1 and n2 (1 cpu) victims b and c; a and b are blue.
    The member (2 cpu) is blue and requires a blue pod on its node."""
    world = World(nodes=0)
    for name, cpu in (("n0", "2"), ("n1", "1"), ("n2", "1")):
        world.cache.add_node(make_node().name(name).capacity(cpu=cpu, pods="9").model())
    victims = []
    for name, node, priority in (("a", "n0", 0), ("b", "n1", 10), ("c", "n2", 50)):
        pod = make_pod().name(name).namespace("ns").uid(name).node(node).req(cpu="1")
        pod = pod.priority(priority).start_time("2026-01-01T00:00:00Z")
        victims.append((pod.label("app", "blue") if name != "c" else pod).model())
    world.bound(*victims)
    world.add_group(_group(min_count=1))
    term = {"labelSelector": {"matchLabels": {"app": "blue"}}, "topologyKey": HOSTNAME}
    required = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    member = make_pod().name("w0").namespace("ns").uid("w0").pod_group("pg").req(cpu="2")
    member = member.priority(100).label("app", "blue").affinity({"podAffinity": required})
    return world, member.model()


@pytest.mark.parametrize("shortcut", [False, True])
def test_a_victim_that_would_be_the_first_pod_a_member_has_affinity_to_is_checked(
    shortcut: bool,
) -> None:
    # With every victim gone no blue pod is left: the member starts its own affinity group
    # on n0, the only node with room. c (not blue) is put back. Putting b back on n1 means
    # a blue pod exists, so the member needs one on n0: it no longer fits and b goes too,
    # although n1 is not the member's node; a, on n0, goes as well.
    world, member = _first_blue_world()
    world.handle.listers.pods.on_add(member)
    world.cache.update_snapshot(world.snapshot)
    outcome = evaluate_group(
        world.fw,
        cache=world.cache,
        snapshot=world.snapshot,
        group=SchedulingPodGroup.of(world.groups["pg"]),
        queued=[QueuedPodInfo(pod=member, timestamp=0.0)],
        scheduled=0,
        group_of=world.group_of,
        pdbs=(),
        nominator=Nominator(),
        now=1e10,
        reprieve_shortcut=shortcut,
    )
    assert [pod.name for pod in outcome.victims] == ["b", "a"]
    assert outcome.nominations == {"w0": "n0"}
