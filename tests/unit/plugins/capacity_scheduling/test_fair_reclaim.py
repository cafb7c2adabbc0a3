"""Reclaim through the whole plugin on seeded random teams: one team first takes what the
others leave idle, then the others submit; whenever PostFilter asks for evictions the test
carries them out (the victims are gone for good, as plain pods are), and in the end every
team holds exactly its runtime share for what is still asked: the late teams got their
share back by preemption, and only pods of teams above their share were evicted."""

from __future__ import annotations

import random
from math import ceil, floor

import pytest

from kubesched.model import Pod
from kubesched.runtime import FitError

from .conftest import Cluster
from .fair_reference import RefQuota, reference_divide
from .test_fair_plugin import GPU, gpu_node, gpu_pod, submit, team


def evict(cluster: Cluster, victims: tuple[Pod, ...], node_name: str) -> None:
    """What the scheduler's preemption does, through the fake Handle: the victims deleted."""
    node = cluster.handle.get_node_info(node_name)
    assert node is not None
    for victim in victims:
        node.remove_pod(victim.uid)
        cluster.handle.listers.pods.on_delete(victim)


def run(cluster: Cluster, pending: list[Pod], rng: random.Random, over: set[str]) -> list[Pod]:
    """Try the pending pods in random orders, carrying out evictions, until a pass changes
    nothing; the pods still pending. `over` collects the namespaces of the victims."""
    while True:
        rng.shuffle(pending)
        left, changed = [], False
        for pod in pending:
            done = len(cluster.handle.preemptions)
            try:
                cluster.schedule(pod)
                changed = True
            except FitError:
                left.append(pod)
            for preemption in cluster.handle.preemptions[done:]:
                evict(cluster, preemption.victims, preemption.node_name)
                cluster.handle.preempting.discard(pod.uid)
                over.update(victim.namespace for victim in preemption.victims)
                changed = True
        pending = left
        if not changed:
            return pending


@pytest.mark.parametrize("seed", range(40))
def test_late_teams_reclaim_their_share_from_the_borrower(seed: int) -> None:
    rng = random.Random(seed)
    total = rng.randint(3, 8)
    teams = [
        RefQuota(f"t{i}", "", False, rng.randint(1, 3), total, rng.randint(1, 3), rng.randint(1, 5))
        for i in range(rng.randint(2, 3))
    ]
    objects = [team(q.name, min_=q.min, max_=q.max, weight=q.weight) for q in teams]
    cluster = Cluster([gpu_node("gpu-1", total)], objects)
    first = [gpu_pod(f"p{i}", "t0") for i in range(total)]
    submit(cluster, first)
    assert run(cluster, list(first), rng, set()) == []  # t0 borrows the whole pool
    late = [gpu_pod(f"p{i}", q.name) for q in teams[1:] for i in range(q.demand)]
    submit(cluster, late)
    victims_of: set[str] = set()
    pending = run(cluster, list(late), rng, victims_of)
    assert victims_of <= {"t0"}  # only the borrower gave GPUs back
    held = {q.name: 0 for q in teams}
    for node in cluster.handle.list_node_infos():
        for pod in node.pods.values():
            held[pod.namespace] += 1
    asked = {q.name: held[q.name] + sum(p.namespace == q.name for p in pending) for q in teams}
    claims = [(q.name, min(asked[q.name], q.max), q.min, q.weight) for q in teams]
    exact = reference_divide(total, claims)
    for quota in teams:
        share = cluster.plugin.fair.runtime_of(quota.name)
        assert share is not None
        assert held[quota.name] == share.get(GPU), (quota.name, held, share)
        assert floor(exact[quota.name]) <= held[quota.name] <= ceil(exact[quota.name])
