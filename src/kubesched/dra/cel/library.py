"""CEL's standard functions and operators as cel-go defines them for Kubernetes: `size`, the
type conversions (`int`, `uint`, `double`, `string`, `bool`, `bytes`, `type`, `dyn`), the
arithmetic operators and `in`.

Each takes already evaluated arguments (the receiver first for member functions) and raises
`CelError` with cel-go's texts. The extension libraries are in `extensions` (strings v2,
Kubernetes' lists and regex, the list and sets extensions, optional values) and `quantities`
(Kubernetes' quantity and semver libraries); `functions` names them all for the compiler,
and macros (`has`, `all`, `cel.bind`, ...) are the compiler's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from kubesched.dra.cel.values import (
    INT64_MAX,
    INT64_MIN,
    CelError,
    CelType,
    Semver,
    Uint,
    check_int,
    check_uint,
    equals,
    is_number,
    no_such_overload,
    type_name,
)
from kubesched.model.quantity import Quantity

# --- standard ----------------------------------------------------------------------------


def size(value: Any) -> int:
    if isinstance(value, str | bytes | Mapping | Sequence):
        return len(value)
    raise no_such_overload()


def to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise no_such_overload()
    if isinstance(value, int):
        return check_int(int(value))
    if isinstance(value, float):
        if math.isnan(value) or value <= INT64_MIN or value >= INT64_MAX:
            raise CelError("integer overflow")
        return int(value)
    if isinstance(value, str):
        try:
            return check_int(int(value, 10))
        except ValueError:
            raise CelError(f"cannot convert '{value}' to int") from None
    raise no_such_overload()


def to_uint(value: Any) -> Uint:
    if isinstance(value, bool):
        raise no_such_overload()
    if isinstance(value, int | float):
        if isinstance(value, float) and (math.isnan(value) or value < 0):
            raise CelError("unsigned integer overflow")
        return check_uint(int(value))
    if isinstance(value, str):
        try:
            return check_uint(int(value, 10))
        except ValueError:
            raise CelError(f"cannot convert '{value}' to uint") from None
    raise no_such_overload()


def to_double(value: Any) -> float:
    if isinstance(value, bool):
        raise no_such_overload()
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise CelError(f"cannot convert '{value}' to double") from None
    raise no_such_overload()


def to_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else f"{value:g}"
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, Quantity | Semver):
        return str(value)
    raise no_such_overload()


_BOOL_TEXTS: Final = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}


def to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        found = _BOOL_TEXTS.get(value)
        if found is None:
            raise CelError("type conversion error from 'string' to 'bool'")
        return found
    raise no_such_overload()


def to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    raise no_such_overload()


# --- arithmetic (the operators) -------------------------------------------------------------


def add(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise no_such_overload()
    if isinstance(a, Uint) and isinstance(b, Uint):
        return check_uint(a + b)
    if type(a) is int and type(b) is int:
        return check_int(a + b)
    if isinstance(a, float) and isinstance(b, float):
        return a + b
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, bytes) and isinstance(b, bytes):
        return a + b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return [*a, *b]
    raise no_such_overload()


def subtract(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise no_such_overload()
    if isinstance(a, Uint) and isinstance(b, Uint):
        return check_uint(a - b)
    if type(a) is int and type(b) is int:
        return check_int(a - b)
    if isinstance(a, float) and isinstance(b, float):
        return a - b
    raise no_such_overload()


def multiply(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise no_such_overload()
    if isinstance(a, Uint) and isinstance(b, Uint):
        return check_uint(a * b)
    if type(a) is int and type(b) is int:
        return check_int(a * b)
    if isinstance(a, float) and isinstance(b, float):
        return a * b
    raise no_such_overload()


def divide(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise no_such_overload()
    if isinstance(a, int) and isinstance(b, int) and isinstance(a, Uint) == isinstance(b, Uint):
        if b == 0:
            raise CelError("division by zero")
        quotient = abs(a) // abs(b)
        result = quotient if (a >= 0) == (b >= 0) else -quotient
        return check_uint(result) if isinstance(a, Uint) else check_int(result)
    if isinstance(a, float) and isinstance(b, float):
        if b == 0:
            return math.copysign(math.inf, a) * math.copysign(1, b) if a else math.nan
        return a / b
    raise no_such_overload()


def modulo(a: Any, b: Any) -> Any:
    if isinstance(a, bool) or isinstance(b, bool):
        raise no_such_overload()
    if isinstance(a, int) and isinstance(b, int) and isinstance(a, Uint) == isinstance(b, Uint):
        if b == 0:
            raise CelError("modulus by zero")
        remainder = abs(a) % abs(b)
        result = remainder if a >= 0 else -remainder
        return Uint(result) if isinstance(a, Uint) else result
    raise no_such_overload()


def negate(a: Any) -> Any:
    if isinstance(a, bool | Uint):
        raise no_such_overload()
    if isinstance(a, int):
        return check_int(-a)
    if isinstance(a, float):
        return -a
    raise no_such_overload()


def contains_in(item: Any, container: Any) -> bool:
    """The `in` operator."""
    if isinstance(container, Mapping):
        if isinstance(item, float | list | dict) or item is None:
            raise no_such_overload()
        if item in container:
            return True
        return is_number(item) and any(is_number(k) and k == item for k in container)
    if isinstance(container, Sequence) and not isinstance(container, str | bytes):
        return any(equals(element, item) for element in container)
    raise no_such_overload()


def cel_type(value: Any) -> CelType:
    return CelType(type_name(value))


def dyn(value: Any) -> Any:
    return value
