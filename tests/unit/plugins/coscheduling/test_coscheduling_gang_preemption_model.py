"""Coscheduling's gang preemption against its reference model (gang_reference.py) on seeded
random small clusters: nodes of 2-6 CPUs filled with single pods and gangs of priorities 1,
5 and 10 (a gang's members may differ in priority), then a pending gang of identical members
(now and then with a member already waiting at Permit) or a pod of no gang, of priority 5,
10 or 20, that fits nowhere as things are. The plugin
decides through a whole profile (its PreFilter, NodeResourcesFit's Filter, its PostFilter);
the model says whether it should preempt and checks what it chose."""

from __future__ import annotations

import random

import pytest

from kubesched.model import Pod
from tests.unit.plugins.coscheduling.gang_cluster import cluster, pod
from tests.unit.plugins.coscheduling.gang_reference import (
    RPod,
    World,
    gang_decision_ok,
    single_decision_ok,
)

SEEDS = range(150)


def _fill(rng: random.Random, cpus: list[int]) -> tuple[list[Pod], dict[str, int]]:
    """Bound pods on the nodes: single pods and gangs (name -> minMember), as room allows."""
    free = list(cpus)
    pods: list[Pod] = []
    gangs: dict[str, int] = {}
    for i in range(rng.randint(2, 8)):
        size = rng.randint(2, 3) if rng.random() < 0.5 else 1
        gang = f"g{i}" if size > 1 else ""
        for j in range(size):
            cpu = rng.randint(1, 2)
            nodes = [n for n, room in enumerate(free) if room >= cpu]
            if not nodes:
                break
            node = rng.choice(nodes)
            free[node] -= cpu
            priority = rng.choice((1, 5, 10))
            name = f"{gang or 'p'}-{i}-{j}"
            pods.append(pod(name, cpu=cpu, priority=priority, gang=gang, node=f"n{node}"))
        if gang and any(p.labels for p in pods if p.name.startswith(f"{gang}-")):
            gangs[gang] = rng.randint(1, size)
    return pods, gangs


def _world(cpus: list[int], bound: list[Pod]) -> World:
    nodes = {f"n{i}": cpu for i, cpu in enumerate(cpus)}
    return World(
        nodes,
        [
            RPod(
                p.name,
                p.node_name,
                p.requests.milli_cpu // 1000,
                p.priority,
                p.labels.get("scheduling.x-k8s.io/pod-group", ""),
            )
            for p in bound
        ],
    )


def _case(seed: int) -> tuple[list[int], list[Pod], dict[str, int], int, int]:
    rng = random.Random(seed)
    cpus = [rng.randint(2, 6) for _ in range(rng.randint(2, 4))]
    bound, gangs = _fill(rng, cpus)
    size = rng.randint(1, 3)
    priority = rng.choice((5, 10, 20))
    return cpus, bound, gangs, size, priority


def _fits_somewhere(world: World, size: int) -> bool:
    return any(room >= size for room in world.free(()).values())


def _waiting(rng: random.Random, cpus: list[int], bound: list[Pod]) -> list[Pod]:
    """Now and then a member of the pending gang already waiting at Permit (counted on its
    node, toward minMember, and never a victim of its own gang)."""
    world = _world(cpus, bound)
    free = world.free(())
    room = [node for node, cpu in free.items() if cpu >= 1]
    if not room or rng.random() < 0.6:
        return []
    return [pod("w0", cpu=1, priority=20, gang="high", node=rng.choice(room))]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_gang_preempts_as_the_model_says(seed: int) -> None:
    cpus, bound, gangs, size, priority = _case(seed)
    rng = random.Random(seed + 1000)
    waiting = _waiting(rng, cpus, bound)
    world = _world(cpus, [*bound, *waiting])
    if _fits_somewhere(world, size):
        size = max(world.free(()).values()) + 1
    count = rng.randint(1, 3)
    extra = seed % 3 == 0  # one member more than minMember now and then
    pending = [pod(f"h{i}", cpu=size, priority=priority, gang="high") for i in range(count + extra)]
    c = cluster(cpus, bound=bound, pending=pending)
    for member in waiting:  # assumed on its node, pending in the informer, at Permit
        c.handle.add_pod(member)
        c.handle.listers.pods.on_add(pod(member.name, cpu=1, priority=20, gang="high"))
    for name, min_member in gangs.items():
        c.add_group(name, min_member)
    c.add_group("high", count + len(waiting))
    c.plugin.manager.assigned["ns/high"] = {member.name for member in waiting}
    result, status = c.run(pending[0])
    victims = c.victims()
    assert c.plugin.gangs is not None
    plan = c.plugin.gangs.plan("ns/high")
    hosts = dict(plan.hosts) if plan is not None else {}
    if victims:
        assert status.is_success(), status.message
        assert result is not None
        assert result.nominated_node_name == hosts["h0"]
    problems = gang_decision_ok(
        world, size=size, count=count, priority=priority, own="high", victims=victims, hosts=hosts
    )
    assert not problems, (seed, problems, status.message)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_pod_of_no_gang_preempts_as_the_model_says(seed: int) -> None:
    cpus, bound, gangs, size, priority = _case(seed)
    world = _world(cpus, bound)
    if _fits_somewhere(world, size):
        size = max(world.free(()).values()) + 1
    pending = pod("single", cpu=size, priority=priority)
    c = cluster(cpus, bound=bound, pending=[pending])
    for name, min_member in gangs.items():
        c.add_group(name, min_member)
    result, status = c.run(pending)
    victims = c.victims()
    node = result.nominated_node_name if result is not None else ""
    problems = single_decision_ok(world, size=size, priority=priority, node=node, victims=victims)
    assert not problems, (seed, problems, status.message)
