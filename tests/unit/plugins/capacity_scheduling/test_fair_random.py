"""Fair share through the whole plugin on seeded random trees: every team submits its pods
at once, the pods are tried in a random order until nothing more binds, and each team ends
with exactly its runtime share, which is the reference model's exact share rounded down or
up: what a team gets does not depend on who came first."""

from __future__ import annotations

import random
from math import ceil, floor

import pytest

from kubesched.model import Pod
from kubesched.runtime import FitError

from .conftest import Cluster
from .fair_reference import RefQuota, reference_divide, reference_requests
from .test_fair_plugin import GPU, gpu_node, gpu_pod, submit, team


def random_teams(rng: random.Random) -> dict[str, RefQuota]:
    """Zero or one parent quota, two to four teams under it or under the cluster."""
    quotas: dict[str, RefQuota] = {}
    parents = [] if rng.random() < 0.4 else ["pool"]
    if parents:
        low = rng.randint(0, 6)
        quotas["pool"] = RefQuota("pool", "", True, low, low + rng.randint(0, 8), 1, 0)
    for i in range(rng.randint(2, 4)):
        low = rng.randint(0, 3)
        high = low + rng.randint(0, 6)
        demand = rng.randint(0, 8)
        parent = rng.choice(["", *parents])
        quotas[f"t{i}"] = RefQuota(f"t{i}", parent, False, low, high, rng.randint(1, 3), demand)
    return quotas


def reference_shares(quotas: dict[str, RefQuota], total: int) -> dict[str, tuple[int, int]]:
    """Each team's (lowest, highest) share by the reference model, level by level from the
    exact shares (a parent's share taken at its floor and its ceiling)."""
    requests = reference_requests(quotas)
    bounds: dict[str, tuple[int, int]] = {}

    def level(parent: str, low: int, high: int) -> None:
        children = [q for q in quotas.values() if q.parent == parent]
        claims = [(q.name, requests[q.name], q.min, q.weight) for q in children]
        lows, highs = reference_divide(low, claims), reference_divide(high, claims)
        for quota in children:
            bounds[quota.name] = (floor(lows[quota.name]), ceil(highs[quota.name]))
            level(quota.name, *bounds[quota.name])

    level("", total, total)
    return bounds


def schedule_all(cluster: Cluster, pods: list[Pod], rng: random.Random) -> dict[str, int]:
    """Try the pending pods in random orders until a pass binds none; bound pods by team."""
    pending = list(pods)
    while True:
        rng.shuffle(pending)
        left = []
        for pod in pending:
            try:
                cluster.schedule(pod)
            except FitError:
                left.append(pod)
        if len(left) == len(pending):
            break
        pending = left
    bound: dict[str, int] = {}
    for pod in pods:
        if pod not in pending:
            bound[pod.namespace] = bound.get(pod.namespace, 0) + 1
    return bound


@pytest.mark.parametrize("seed", range(60))
def test_each_team_ends_with_its_share_whatever_the_order(seed: int) -> None:
    rng = random.Random(seed)
    quotas = random_teams(rng)
    total = rng.randint(2, 10)
    objects = [
        team(
            q.name, min_=q.min, max_=q.max, weight=q.weight, parent=q.parent, is_parent=q.is_parent
        )
        for q in quotas.values()
    ]
    cluster = Cluster([gpu_node("gpu-1", total)], objects)
    pods = [gpu_pod(f"p{i}", q.name) for q in quotas.values() for i in range(q.demand)]
    submit(cluster, pods)
    bound = schedule_all(cluster, pods, rng)
    assert not cluster.handle.preemptions
    bounds = reference_shares(quotas, total)
    for name, quota in quotas.items():
        if quota.is_parent:
            continue
        share = cluster.plugin.fair.runtime_of(name)  # None: no pod ran a cycle
        assert share is not None or not pods
        assert bound.get(name, 0) == (0 if share is None else share.get(GPU)), (name, bound)
        low, high = bounds[name]
        assert low <= bound.get(name, 0) <= high, (name, bound, bounds)
