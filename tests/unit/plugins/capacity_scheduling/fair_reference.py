"""An independent reference model of the quota tree's runtime shares, small enough to be
obviously correct: Koordinator's iteration (guarantees first, then what is left shared by
weight, what a satisfied quota leaves shared again) run in exact fractions, without
rounding, and the requests summed up the tree by plain recursion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class RefQuota:
    """One quota of one resource."""

    name: str
    parent: str  # "" for the cluster
    is_parent: bool
    min: int
    max: int
    weight: int
    demand: int  # what its own pods ask for (0 for a parent)


def reference_divide(
    total: int, claims: Sequence[tuple[str, int, int, int]]
) -> dict[str, Fraction]:
    """(name, request, min, weight) claims on `total`: each one's exact share."""
    share = {name: Fraction(min(request, guarantee)) for name, request, guarantee, _ in claims}
    granted = sum(share.values(), Fraction(0))
    if granted > total:
        return {name: amount * total / granted for name, amount in share.items()}
    left = total - granted
    active = [c for c in claims if c[3] > 0 and c[1] > share[c[0]]]
    while left > 0 and active:
        weights = sum(c[3] for c in active)
        given, left = left, Fraction(0)
        for name, _, _, weight in active:
            share[name] += given * weight / weights
        for name, request, _, _ in active:
            if share[name] > request:
                left += share[name] - request
                share[name] = Fraction(request)
        active = [c for c in active if share[c[0]] < c[1]]
    return share


def reference_requests(quotas: Mapping[str, RefQuota]) -> dict[str, int]:
    """Each quota's request: its demand plus its children's requests, at most its max."""

    def request(name: str) -> int:
        quota = quotas[name]
        children = [q.name for q in quotas.values() if q.parent == name]
        return min(quota.max, quota.demand + sum(request(child) for child in children))

    return {name: request(name) for name in quotas}
