"""Kubernetes resource quantities (`500m`, `1Gi`, `2e3`) as exact numbers.

Scheduling compares CPU in millicores and everything else in whole units, rounded up like
`resource.Quantity.MilliValue()` / `Value()` upstream.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE]?)$")


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


@lru_cache(maxsize=4096)
def parse_quantity(text: str | float) -> Decimal:
    """Return the exact value of a quantity string such as `100m`, `1.5Gi` or `2e3`."""
    if isinstance(text, int | float):
        return Decimal(str(text))
    match = _QUANTITY.match(text.strip())
    if match is None:
        raise QuantityError(
            f"invalid quantity {text!r}: expected a number with a suffix such as m, Ki, Gi, k, G"
        )
    number, suffix = match.groups()
    try:
        value = Decimal(number)
    except InvalidOperation as exc:
        raise QuantityError(f"invalid quantity {text!r}: {number!r} is not a number") from exc
    if suffix in _BINARY:
        return value * _BINARY[suffix]
    if suffix and suffix[0] in "eE":
        return value * (Decimal(10) ** int(suffix[1:]))
    return value * _DECIMAL[suffix]


def milli_value(text: str | float) -> int:
    """Quantity in thousandths, rounded up (CPU requests are compared in millicores)."""
    return math.ceil(parse_quantity(text) * 1000)


def value(text: str | float) -> int:
    """Quantity in whole units, rounded up (memory and storage in bytes, extended resources)."""
    return math.ceil(parse_quantity(text))
