"""The LeastNUMANodes scoring strategy without the framework (scheduler-plugins'
`least_numa.go`): the fewer NUMA zones a pod (or its widest container) needs, the higher the
node's score, with half a step more when those zones are the closest possible ones.

Scores every node whatever its topology-manager policy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from kubesched.plugins.node_resource_topology.fit import is_suitable
from kubesched.plugins.node_resource_topology.scoring import MAX_NODE_SCORE, MIN_NODE_SCORE
from kubesched.plugins.node_resource_topology.topology import NUMANode

MAX_DISTANCE = 255
"""The ACPI SLIT value for an unknown distance."""


def normalize(numa_count: int, min_distance: bool, max_numa_nodes: int) -> int:
    """`100 - count * (100 // maxNUMANodes)`, plus half a step for the closest zones."""
    step = MAX_NODE_SCORE // max_numa_nodes
    score = MAX_NODE_SCORE - numa_count * step
    return score + step // 2 if min_distance else score


def only_non_numa(numa_nodes: Sequence[NUMANode], requests: Mapping[str, int]) -> bool:
    """No zone lists any of the requested resources."""
    return not any(name in numa.resources for name in requests for numa in numa_nodes)


def average_distance(numa_nodes: Sequence[NUMANode], indexes: Sequence[int]) -> float:
    """The mean distance over every ordered pair of the zones (a missing cost counts 255)."""
    if not indexes:
        return MAX_DISTANCE
    total = 0
    for first in indexes:
        for second in indexes:
            costs = numa_nodes[first].costs
            total += costs.get(numa_nodes[second].numa_id, MAX_DISTANCE)
    return total / (len(indexes) * len(indexes))


def _fits(
    qos: str, numa_nodes: Sequence[NUMANode], requests: Mapping[str, int], indexes: Sequence[int]
) -> bool:
    """Every zone lists every requested resource and together they hold the requests."""
    if any(name not in numa_nodes[i].resources for i in indexes for name in requests):
        return False
    for name, amount in requests.items():
        if amount == 0:
            continue
        combined = sum(numa_nodes[i].resources[name] for i in indexes)
        if not is_suitable(qos, name, amount, combined):
            return False
    return True


def _suitable_combination(
    qos: str, numa_nodes: Sequence[NUMANode], requests: Mapping[str, int], size: int
) -> tuple[tuple[int, ...] | None, bool]:
    """The first fitting combination of `size` zone indexes at the smallest distance among
    all of that size (True), else the closest fitting one (False), else None."""
    candidates = list(combinations(range(len(numa_nodes)), size))
    best_possible = min(
        (average_distance(numa_nodes, c) for c in candidates), default=float(MAX_DISTANCE)
    )
    best_possible = min(best_possible, float(MAX_DISTANCE))
    chosen, chosen_distance = None, 256.0
    for candidate in candidates:
        if not _fits(qos, numa_nodes, requests, candidate):
            continue
        distance = average_distance(numa_nodes, candidate)
        if distance == best_possible:
            return candidate, True
        if distance < chosen_distance:
            chosen, chosen_distance = candidate, distance
    return chosen, False


def numa_nodes_required(
    qos: str, numa_nodes: Sequence[NUMANode], requests: Mapping[str, int]
) -> tuple[list[int] | None, bool]:
    """The NUMA ids of the fewest zones that hold `requests` (None when all of them cannot),
    and whether they are the closest such zones."""
    for size in range(1, len(numa_nodes) + 1):
        chosen, closest = _suitable_combination(qos, numa_nodes, requests, size)
        if chosen is not None:
            return sorted(numa_nodes[i].numa_id for i in chosen), closest
    return None, False


def subtract_from(
    numa_nodes: Sequence[NUMANode], requests: Mapping[str, int], ids: list[int]
) -> None:
    """Take the requests from the zones in order, each zone giving what it has
    (`subtractFromNUMAs`; the NUMA ids index the zone list, as upstream)."""
    for name, amount in requests.items():
        left = amount
        for numa_id in ids:
            if left == 0:
                break
            if numa_id >= len(numa_nodes):
                continue
            zone = numa_nodes[numa_id].resources
            if name in zone:
                taken = min(left, zone[name])
                zone[name] -= taken
                left -= taken


def pod_scope(
    qos: str, numa_nodes: Sequence[NUMANode], requests: Mapping[str, int], max_numa_nodes: int
) -> int:
    if only_non_numa(numa_nodes, requests):
        return MAX_NODE_SCORE
    ids, closest = numa_nodes_required(qos, numa_nodes, requests)
    if ids is None:
        return MIN_NODE_SCORE
    return normalize(len(ids), closest, max_numa_nodes)


def container_scope(
    qos: str,
    numa_nodes: Sequence[NUMANode],
    containers: Sequence[Mapping[str, int]],
    max_numa_nodes: int,
) -> int:
    """The widest container decides; every container must be at the closest zones for the
    half step. `numa_nodes` is changed: pass a copy."""
    widest, all_closest = 0, True
    for requests in containers:
        if only_non_numa(numa_nodes, requests):
            continue
        ids, closest = numa_nodes_required(qos, numa_nodes, requests)
        if ids is None:
            return MIN_NODE_SCORE
        all_closest = all_closest and closest
        widest = max(widest, len(ids))
        subtract_from(numa_nodes, requests, ids)
    if widest == 0:
        return MAX_NODE_SCORE
    return normalize(widest, all_closest, max_numa_nodes)
