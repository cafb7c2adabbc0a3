"""Kubernetes resource quantities (`500m`, `1Gi`, `2e3`) as exact numbers.

Scheduling compares CPU in millicores and everything else in whole units, rounded up like
`resource.Quantity.MilliValue()` / `Value()` upstream.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from kubesched.errors import KubeschedError

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


class QuantityError(KubeschedError, ValueError):
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
    if len(suffix) > 1 and suffix[0] in "eE":
        return value * (Decimal(10) ** int(suffix[1:]))
    return value * _DECIMAL[suffix]


def milli_value(text: str | float) -> int:
    """Quantity in thousandths, rounded up (CPU requests are compared in millicores)."""
    return math.ceil(parse_quantity(text) * 1000)


def value(text: str | float) -> int:
    """Quantity in whole units, rounded up (memory and storage in bytes, extended resources)."""
    return math.ceil(parse_quantity(text))


BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"
_DECIMAL_SUFFIXES = {
    -9: "n",
    -6: "u",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
}
_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_NANO = Decimal("1e-9")
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def _format_of(text: str) -> str:
    stripped = text.strip()
    if stripped[-2:] in _BINARY:
        return BINARY_SI
    if re.search(r"[eE][+-]?[0-9]+$", stripped):
        return DECIMAL_EXPONENT
    return DECIMAL_SI


class Quantity:
    """An exact `resource.Quantity`: its value and the format its canonical text uses
    (BinarySI `Ki`..`Ei`, DecimalSI `n`..`E`, DecimalExponent `e3`), as Go prints it."""

    __slots__ = ("format", "value")

    def __init__(self, value: Decimal | int, format: str = DECIMAL_SI) -> None:  # noqa: A002
        self.value = Decimal(value)
        self.format = format

    @classmethod
    def parse(cls, text: str | float) -> Quantity:
        """`resource.ParseQuantity`; QuantityError for text that is none."""
        if isinstance(text, bool) or not isinstance(text, str | int | float):
            raise QuantityError(f"invalid quantity {text!r}: expected a string such as 1Gi")
        if isinstance(text, int | float):
            return cls(Decimal(str(text)), DECIMAL_SI)
        return cls(parse_quantity(text), _format_of(text))

    @classmethod
    def milli(cls, milli: int, format: str = DECIMAL_SI) -> Quantity:  # noqa: A002
        return cls(Decimal(milli) / 1000, format)

    def milli_value(self) -> int:
        """`MilliValue()`: thousandths, rounded up away from zero."""
        return _round_away(self.value * 1000)

    def int_value(self) -> int:
        """`Value()`: whole units, rounded up away from zero."""
        return _round_away(self.value)

    def as_int64(self) -> int | None:
        """`AsInt64()`: the value when it is a whole number that fits an int64."""
        if self.value != self.value.to_integral_value():
            return None
        whole = int(self.value)
        return whole if INT64_MIN <= whole <= INT64_MAX else None

    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def __add__(self, other: Quantity) -> Quantity:
        return Quantity(self.value + other.value, self.format)

    def __sub__(self, other: Quantity) -> Quantity:
        return Quantity(self.value - other.value, self.format)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __le__(self, other: Quantity) -> bool:
        return self.value <= other.value

    def __gt__(self, other: Quantity) -> bool:
        return self.value > other.value

    def __ge__(self, other: Quantity) -> bool:
        return self.value >= other.value

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __str__(self) -> str:
        """The canonical text of `Quantity.String()`."""
        value = self.value
        if value == 0:
            return "0"
        fmt = self.format
        if fmt == BINARY_SI and (abs(value) < 1024 or value != value.to_integral_value()):
            fmt = DECIMAL_SI
        if fmt == BINARY_SI:
            whole, power = int(value), 0
            while power < len(_BINARY_SUFFIXES) - 1 and whole % 1024 == 0:
                whole //= 1024
                power += 1
            return f"{whole}{_BINARY_SUFFIXES[power]}"
        return _decimal_text(value, exponent_form=fmt == DECIMAL_EXPONENT)


def _round_away(value: Decimal) -> int:
    return math.ceil(value) if value >= 0 else math.floor(value)


def _decimal_text(value: Decimal, *, exponent_form: bool) -> str:
    """Mantissa and a power-of-1000 exponent, as Go's canonical form: values finer than
    nano are rounded up to the next nano."""
    nanos = _round_away(value / _NANO)
    exponent = -9
    while nanos % 1000 == 0 and exponent < 18:
        nanos //= 1000
        exponent += 3
    if exponent_form:
        return f"{nanos}e{exponent}" if exponent else str(nanos)
    return f"{nanos}{_DECIMAL_SUFFIXES[exponent]}"
