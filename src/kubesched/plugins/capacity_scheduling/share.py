"""Dividing one amount of one resource between the children of a quota tree's node, as
Koordinator's runtime quota calculator divides it (its `redistribution`).

Each child first gets what it asks for up to its guarantee: `min(request, min)`. What is
left goes to the children that ask for more, in proportion to their shared weight, never
beyond what a child asks for; what a satisfied child leaves is shared again by the others
(water-filling: the result is `min(request, base + weight * level)` for one `level`).

Koordinator rounds each round of that iteration; here the exact rational result is found
first and rounded once, by the largest remainder (ties by name), so the shares are integers
that add up to exactly what was divided.

When the guarantees alone exceed the amount (children's `min` above their parent's, or a
parent that gets less than its children's guarantees), each child gets a part of the amount
in proportion to its guarantee: a safe reading of a tree that promises more than it has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import floor


@dataclass(frozen=True, slots=True)
class Claim:
    """One child's claim on its parent's amount of one resource."""

    name: str
    request: int
    """What it asks for: its pods' requests, limited by its `max`."""
    guarantee: int
    """Its `min`."""
    weight: int
    """Its shared weight (Koordinator's `shared-weight`, by default its `max`)."""


def divide(total: int, claims: Sequence[Claim]) -> dict[str, int]:
    """Each claim's integer share of `total` (see the module docstring)."""
    total = max(total, 0)
    base = {claim.name: max(0, min(claim.request, claim.guarantee)) for claim in claims}
    granted = sum(base.values())
    exact = _scaled(base, total) if granted >= total else _water_fill(total - granted, claims, base)
    return round_shares(exact, floor(sum(exact.values(), Fraction(0))))


def _scaled(base: Mapping[str, int], total: int) -> dict[str, Fraction]:
    """`total` in proportion to `base` (all of `base` when it fits)."""
    granted = sum(base.values())
    if granted <= total:
        return {name: Fraction(amount) for name, amount in base.items()}
    return {name: Fraction(amount * total, granted) for name, amount in base.items()}


def _water_fill(left: int, claims: Sequence[Claim], base: Mapping[str, int]) -> dict[str, Fraction]:
    """`base` plus `left` shared by weight among the claims that ask for more."""
    shares = {name: Fraction(amount) for name, amount in base.items()}
    hungry = [c for c in claims if c.weight > 0 and c.request > base[c.name]]
    # A claim is filled once the level reaches gap / weight: take them in that order.
    hungry.sort(key=lambda c: Fraction(c.request - base[c.name], c.weight))
    weights = sum(c.weight for c in hungry)
    remaining = Fraction(left)
    level = Fraction(0)
    for claim in hungry:
        filled_at = Fraction(claim.request - base[claim.name], claim.weight)
        needed = (filled_at - level) * weights
        if needed > remaining:
            break
        remaining -= needed
        level = filled_at
        weights -= claim.weight
        shares[claim.name] = Fraction(claim.request)
    if weights:
        level += remaining / weights
    for claim in hungry:
        if shares[claim.name] < claim.request:
            shares[claim.name] = base[claim.name] + claim.weight * level
    return shares


def round_shares(exact: Mapping[str, Fraction], total: int) -> dict[str, int]:
    """Integers adding up to `total` (at most the sum of `exact`): each share's floor, and
    one more unit for the largest fractional parts (ties by name)."""
    shares = {name: floor(value) for name, value in exact.items()}
    residual = total - sum(shares.values())
    order = sorted(exact, key=lambda name: (-(exact[name] - shares[name]), name))
    for name in order[: max(residual, 0)]:
        shares[name] += 1
    return shares
