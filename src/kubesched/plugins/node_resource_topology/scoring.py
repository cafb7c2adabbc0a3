"""NodeResourceTopologyMatch's scores per NUMA zone without the framework (scheduler-plugins'
`score.go`, `most_allocated.go`, `least_allocated.go`, `balanced_allocation.go`): a node's
score is its lowest non-zero zone score, for the pod's effective request (pod scope) or the
truncated mean over its containers (container scope).

Requests and zone amounts are milli-values; the formulas use Go's `Quantity.Value()`, the
whole units rounded up (a 500m cpu request counts as 1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from kubesched.plugins.node_resource_topology.topology import NUMANode

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0

Strategy = Callable[[Mapping[str, int], Mapping[str, int], Mapping[str, int]], int]
"""(requested, available on the zone, weights) -> the zone's score."""


def whole_units(milli: int) -> int:
    """Go's `Quantity.Value()` of a milli-value: rounded up."""
    return -(-milli // 1000)


def weight_of(weights: Mapping[str, int], name: str) -> int:
    """A resource's weight: 1 when not configured or below 1."""
    weight = weights.get(name, 1)
    return max(weight, 1)


def _go_div(numerator: int, denominator: int) -> int:
    """Go's integer division, truncating toward zero."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def _allocated_score(requested: int, capacity: int, *, least: bool) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    used = whole_units(requested)
    total = whole_units(capacity)
    return _go_div(((total - used) if least else used) * MAX_NODE_SCORE, total)


def _weighted(
    requested: Mapping[str, int],
    available: Mapping[str, int],
    weights: Mapping[str, int],
    *,
    least: bool,
) -> int:
    score = weight_sum = 0
    for name, amount in requested.items():
        weight = weight_of(weights, name)
        score += _allocated_score(amount, available.get(name, 0), least=least) * weight
        weight_sum += weight
    return _go_div(score, weight_sum) if weight_sum else 0


def most_allocated(
    requested: Mapping[str, int], available: Mapping[str, int], weights: Mapping[str, int]
) -> int:
    """Weighted mean of `requested * 100 / available` per resource (0 where it does not fit)."""
    return _weighted(requested, available, weights, least=False)


def least_allocated(
    requested: Mapping[str, int], available: Mapping[str, int], weights: Mapping[str, int]
) -> int:
    """Weighted mean of `(available - requested) * 100 / available` per resource."""
    return _weighted(requested, available, weights, least=True)


def balanced_allocation(
    requested: Mapping[str, int], available: Mapping[str, int], weights: Mapping[str, int]
) -> int:
    """`(1 - variance of the requested fractions) * 100`, truncated; 0 when one does not fit.
    Weights are not used (as upstream)."""
    del weights
    fractions = []
    for name, amount in requested.items():
        total = whole_units(available.get(name, 0))
        fraction = 1.0 if total == 0 else whole_units(amount) / total
        if fraction > 1:
            return 0
        fractions.append(fraction)
    return int((1 - sample_variance(fractions)) * MAX_NODE_SCORE)


def sample_variance(values: Sequence[float]) -> float:
    """gonum's `stat.Variance` without weights, in the same float operations: the corrected
    two-pass sum over `n - 1`. Fewer than two values give NaN upstream (a score Go converts
    to an undefined integer); Score only sees Guaranteed pods, whose every container asks
    cpu and memory, so here they give 0."""
    count = len(values)
    if count < 2:
        return 1.0
    mean = _plain_sum(values) / count
    squares = compensation = 0.0
    for value in values:
        delta = value - mean
        squares += delta * delta
        compensation += delta
    return (squares - compensation * compensation / count) / (count - 1)


def _plain_sum(values: Sequence[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def score_for_each_numa(
    requested: Mapping[str, int],
    numa_nodes: Sequence[NUMANode],
    strategy: Strategy,
    weights: Mapping[str, int],
) -> int:
    """The lowest non-zero zone score (0 when every zone scores 0): a zone that scores 0
    would not be picked by the kubelet (`scoreForEachNUMANode`)."""
    lowest = 0
    for numa in numa_nodes:
        score = strategy(requested, numa.resources, weights)
        if lowest == 0 or (score != 0 and score < lowest):
            lowest = score
    return lowest


def container_scope_score(
    containers: Sequence[Mapping[str, int]],
    numa_nodes: Sequence[NUMANode],
    strategy: Strategy,
    weights: Mapping[str, int],
) -> int:
    """The mean of each container's score (init containers first), truncated."""
    scores = [score_for_each_numa(c, numa_nodes, strategy, weights) for c in containers]
    if not scores:
        return MIN_NODE_SCORE
    return int(_plain_sum([float(s) for s in scores]) / len(scores))
