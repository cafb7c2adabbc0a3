"""Kubernetes' quantity and semver CEL libraries (`quantity()`, `isGreaterThan`, `semver()`,
`major`, ...). Conventions as in `library`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

from kubesched.dra.cel.values import (
    CelError,
    Semver,
    int_arg,
    no_such_overload,
    normalize_semver,
    quantity_arg,
    semver_arg,
    str_arg,
)
from kubesched.model.quantity import Quantity, QuantityError

# --- quantity library ---------------------------------------------------------------------


_QUANTITY_SYNTAX: Final = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)


def quantity(text: Any) -> Quantity:
    try:
        return Quantity.parse(str_arg(text))
    except QuantityError:
        raise CelError(_QUANTITY_SYNTAX) from None


def is_quantity(text: Any) -> bool:
    try:
        Quantity.parse(str_arg(text))
    except QuantityError:
        return False
    return True


def sign(value: Any) -> int:
    return quantity_arg(value).sign()


def is_greater_than(a: Any, b: Any) -> bool:
    if isinstance(a, Semver):
        return a.compare(semver_arg(b)) == 1
    return quantity_arg(a).value > quantity_arg(b).value


def is_less_than(a: Any, b: Any) -> bool:
    if isinstance(a, Semver):
        return a.compare(semver_arg(b)) == -1
    return quantity_arg(a).value < quantity_arg(b).value


def compare_to(a: Any, b: Any) -> int:
    if isinstance(a, Semver):
        return a.compare(semver_arg(b))
    x, y = quantity_arg(a).value, quantity_arg(b).value
    return (x > y) - (x < y)


def as_approximate_float(value: Any) -> float:
    return float(quantity_arg(value).value)


def as_integer(value: Any) -> int:
    whole = quantity_arg(value).as_int64()
    if whole is None:
        raise CelError("cannot convert value to integer")
    return whole


def is_integer(value: Any) -> bool:
    return quantity_arg(value).as_int64() is not None


def quantity_add(a: Any, b: Any) -> Quantity:
    q = quantity_arg(a)
    if isinstance(b, Quantity):
        return q + b
    return Quantity(q.value + Decimal(int_arg(b)), q.format)


def quantity_sub(a: Any, b: Any) -> Quantity:
    q = quantity_arg(a)
    if isinstance(b, Quantity):
        return q - b
    return Quantity(q.value - Decimal(int_arg(b)), q.format)


# --- semver library -----------------------------------------------------------------------


def semver(text: Any, normalize: Any = False) -> Semver:
    if not isinstance(normalize, bool):
        raise no_such_overload()
    return normalize_semver(str_arg(text)) if normalize else Semver.parse(str_arg(text))


def is_semver(text: Any, normalize: Any = False) -> bool:
    try:
        semver(text, normalize)
    except CelError as exc:
        if str(exc) == "no such overload":
            raise
        return False
    return True


def major(value: Any) -> int:
    return semver_arg(value).major


def minor(value: Any) -> int:
    return semver_arg(value).minor


def patch(value: Any) -> int:
    return semver_arg(value).patch
