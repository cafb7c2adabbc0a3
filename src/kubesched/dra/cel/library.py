"""The functions of Kubernetes' CEL base environment that device selectors reach: CEL's
standard functions, the strings extension (v2), the Kubernetes lists, regex, quantity and
semver libraries, `sets.*`, the list extension's simple members and optional values.

Each entry takes already evaluated arguments (the receiver first for member functions) and
raises `CelError` with cel-go's texts. Macros (`has`, `all`, `cel.bind`, ...) are in
`compiler`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

import re2  # type: ignore[import-untyped]

from kubesched.dra.cel.values import (
    INT64_MAX,
    INT64_MIN,
    NONE,
    CelError,
    CelType,
    OptionalValue,
    Semver,
    Uint,
    check_int,
    check_uint,
    compare,
    equals,
    is_number,
    no_such_overload,
    normalize_semver,
    type_name,
)
from kubesched.model.quantity import Quantity, QuantityError

Function = Callable[..., Any]


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise no_such_overload()
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool | Uint):
        raise no_such_overload()
    return value


def _quantity(value: Any) -> Quantity:
    if not isinstance(value, Quantity):
        raise no_such_overload()
    return value


def _semver(value: Any) -> Semver:
    if not isinstance(value, Semver):
        raise no_such_overload()
    return value


def _list(value: Any) -> Sequence[Any]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise no_such_overload()
    return value


# --- standard ----------------------------------------------------------------------------


def size(value: Any) -> int:
    if isinstance(value, str | bytes | Mapping | Sequence):
        return len(value)
    raise no_such_overload()


_REGEX_CACHE: dict[str, Any] = {}


def _regex(pattern: str) -> Any:
    compiled = _REGEX_CACHE.get(pattern)
    if compiled is None:
        try:
            compiled = re2.compile(pattern)
        except re2.error as exc:
            raise CelError(f"error parsing regexp: {exc}") from None
        if len(_REGEX_CACHE) > 256:
            _REGEX_CACHE.clear()
        _REGEX_CACHE[pattern] = compiled
    return compiled


def matches(text: Any, pattern: Any) -> bool:
    return _regex(_string(pattern)).search(_string(text)) is not None


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


# --- strings extension (version 2) -------------------------------------------------------


def char_at(text: Any, index: Any) -> str:
    s, i = _string(text), _int(index)
    if i < 0 or i > len(s):
        raise CelError(f"index out of range: {i}")
    return s[i : i + 1]


def index_of(text: Any, sub: Any, offset: Any = 0) -> int:
    if isinstance(text, Sequence) and not isinstance(text, str):
        return _list_index_of(text, sub)
    s, needle, start = _string(text), _string(sub), _int(offset)
    if start < 0 or start > len(s):
        raise CelError(f"index out of range: {start}")
    return s.find(needle, start)


def last_index_of(text: Any, sub: Any, offset: Any = None) -> int:
    if isinstance(text, Sequence) and not isinstance(text, str):
        return _list_last_index_of(text, sub)
    s, needle = _string(text), _string(sub)
    if offset is None:
        return s.rfind(needle)
    end = _int(offset)
    if end < 0 or end > len(s):
        raise CelError(f"index out of range: {end}")
    return s.rfind(needle, 0, end + len(needle))


def lower_ascii(text: Any) -> str:
    return "".join(c.lower() if c.isascii() else c for c in _string(text))


def upper_ascii(text: Any) -> str:
    return "".join(c.upper() if c.isascii() else c for c in _string(text))


def replace(text: Any, old: Any, new: Any, limit: Any = -1) -> str:
    count = _int(limit)
    return _string(text).replace(_string(old), _string(new), count if count >= 0 else -1)


def split(text: Any, sep: Any, limit: Any = -1) -> list[str]:
    s, separator, count = _string(text), _string(sep), _int(limit)
    if count == 0:
        return []
    if separator == "":
        parts = list(s)
        if count > 0 and len(parts) > count:
            parts = [*parts[: count - 1], "".join(parts[count - 1 :])]
        return parts
    return s.split(separator, count - 1 if count > 0 else -1)


def substring(text: Any, start: Any, end: Any = None) -> str:
    s, begin = _string(text), _int(start)
    stop = len(s) if end is None else _int(end)
    if begin < 0 or begin > len(s):
        raise CelError(f"index out of range: {begin}")
    if stop < 0 or stop > len(s):
        raise CelError(f"index out of range: {stop}")
    if begin > stop:
        raise CelError(f"invalid substring range. start: {begin}, end: {stop}")
    return s[begin:stop]


def trim(text: Any) -> str:
    return _string(text).strip()


def join(items: Any, sep: Any = "") -> str:
    return _string(sep).join(_string(item) for item in _list(items))


def quote(text: Any) -> str:
    escaped = _string(text).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def reverse(value: Any) -> Any:
    if isinstance(value, str):
        return value[::-1]
    return list(reversed(_list(value)))


# --- Kubernetes lists library --------------------------------------------------------------


def is_sorted(items: Any) -> bool:
    values = _list(items)
    return all(compare(values[i], values[i + 1]) <= 0 for i in range(len(values) - 1))


def list_sum(items: Any) -> Any:
    values = _list(items)
    if not values:
        return 0
    total = values[0]
    for value in values[1:]:
        total = add(total, value)
    return total


def list_min(items: Any) -> Any:
    values = _list(items)
    if not values:
        raise CelError("min(list) called on an empty list")
    best = values[0]
    for value in values[1:]:
        if compare(value, best) < 0:
            best = value
    return best


def list_max(items: Any) -> Any:
    values = _list(items)
    if not values:
        raise CelError("max(list) called on an empty list")
    best = values[0]
    for value in values[1:]:
        if compare(value, best) > 0:
            best = value
    return best


def _list_index_of(items: Sequence[Any], wanted: Any) -> int:
    return next((i for i, item in enumerate(items) if equals(item, wanted)), -1)


def _list_last_index_of(items: Sequence[Any], wanted: Any) -> int:
    found = -1
    for i, item in enumerate(items):
        if equals(item, wanted):
            found = i
    return found


def includes(target: Any, wanted: Any) -> bool:
    if isinstance(target, Sequence) and not isinstance(target, str | bytes):
        return any(equals(item, wanted) for item in target)
    return equals(target, wanted)


# --- list extension (version 3) -----------------------------------------------------------


def distinct(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in _list(items):
        if not any(equals(item, seen) for seen in out):
            out.append(item)
    return out


def flatten(items: Any, depth: Any = 1) -> list[Any]:
    levels = _int(depth)
    if levels < 0:
        raise CelError("level must be non-negative")
    out: list[Any] = []
    for item in _list(items):
        if levels > 0 and isinstance(item, list | tuple):
            out.extend(flatten(item, levels - 1))
        else:
            out.append(item)
    return out


def list_slice(items: Any, start: Any, end: Any) -> list[Any]:
    values, begin, stop = _list(items), _int(start), _int(end)
    if begin < 0 or stop < 0:
        raise CelError(f"cannot slice({begin}, {stop}), negative indexes not supported")
    if begin > stop:
        raise CelError(
            f"cannot slice({begin}, {stop}), start index must be less than or equal to end index"
        )
    if stop > len(values):
        raise CelError(f"cannot slice({begin}, {stop}), list is length {len(values)}")
    return list(values[begin:stop])


def list_sort(items: Any) -> list[Any]:
    values = list(_list(items))
    for value in values[1:]:
        compare(values[0], value)  # a heterogeneous list cannot be sorted
    return sorted(values, key=_SortKey)


class _SortKey:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: _SortKey) -> bool:
        return compare(self.value, other.value) < 0


def first(items: Any) -> OptionalValue:
    values = _list(items)
    return OptionalValue(values[0]) if values else NONE


def last(items: Any) -> OptionalValue:
    values = _list(items)
    return OptionalValue(values[-1]) if values else NONE


def lists_range(count: Any) -> list[int]:
    return list(range(_int(count)))


# --- regex library ------------------------------------------------------------------------


def find(text: Any, pattern: Any) -> str:
    match = _regex(_string(pattern)).search(_string(text))
    return match.group(0) if match else ""


def find_all(text: Any, pattern: Any, limit: Any = -1) -> list[str]:
    count = _int(limit)
    if count == 0:
        return []
    found = [m.group(0) for m in _regex(_string(pattern)).finditer(_string(text))]
    return found[:count] if count > 0 else found


# --- sets extension -----------------------------------------------------------------------


def sets_contains(items: Any, wanted: Any) -> bool:
    values = _list(items)
    return all(any(equals(v, w) for v in values) for w in _list(wanted))


def sets_equivalent(a: Any, b: Any) -> bool:
    return sets_contains(a, b) and sets_contains(b, a)


def sets_intersects(a: Any, b: Any) -> bool:
    values = _list(a)
    return any(any(equals(v, w) for v in values) for w in _list(b))


# --- quantity library ---------------------------------------------------------------------


_QUANTITY_SYNTAX: Final = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)


def quantity(text: Any) -> Quantity:
    try:
        return Quantity.parse(_string(text))
    except QuantityError:
        raise CelError(_QUANTITY_SYNTAX) from None


def is_quantity(text: Any) -> bool:
    try:
        Quantity.parse(_string(text))
    except QuantityError:
        return False
    return True


def sign(value: Any) -> int:
    return _quantity(value).sign()


def is_greater_than(a: Any, b: Any) -> bool:
    if isinstance(a, Semver):
        return a.compare(_semver(b)) == 1
    return _quantity(a).value > _quantity(b).value


def is_less_than(a: Any, b: Any) -> bool:
    if isinstance(a, Semver):
        return a.compare(_semver(b)) == -1
    return _quantity(a).value < _quantity(b).value


def compare_to(a: Any, b: Any) -> int:
    if isinstance(a, Semver):
        return a.compare(_semver(b))
    x, y = _quantity(a).value, _quantity(b).value
    return (x > y) - (x < y)


def as_approximate_float(value: Any) -> float:
    return float(_quantity(value).value)


def as_integer(value: Any) -> int:
    whole = _quantity(value).as_int64()
    if whole is None:
        raise CelError("cannot convert value to integer")
    return whole


def is_integer(value: Any) -> bool:
    return _quantity(value).as_int64() is not None


def quantity_add(a: Any, b: Any) -> Quantity:
    q = _quantity(a)
    if isinstance(b, Quantity):
        return q + b
    return Quantity(q.value + Decimal(_int(b)), q.format)


def quantity_sub(a: Any, b: Any) -> Quantity:
    q = _quantity(a)
    if isinstance(b, Quantity):
        return q - b
    return Quantity(q.value - Decimal(_int(b)), q.format)


# --- semver library -----------------------------------------------------------------------


def semver(text: Any, normalize: Any = False) -> Semver:
    if not isinstance(normalize, bool):
        raise no_such_overload()
    return normalize_semver(_string(text)) if normalize else Semver.parse(_string(text))


def is_semver(text: Any, normalize: Any = False) -> bool:
    try:
        semver(text, normalize)
    except CelError as exc:
        if str(exc) == "no such overload":
            raise
        return False
    return True


def major(value: Any) -> int:
    return _semver(value).major


def minor(value: Any) -> int:
    return _semver(value).minor


def patch(value: Any) -> int:
    return _semver(value).patch


# --- optional values ----------------------------------------------------------------------


def optional_of(value: Any) -> OptionalValue:
    return OptionalValue(value)


def optional_none() -> OptionalValue:
    return NONE


def optional_of_non_zero(value: Any) -> OptionalValue:
    zero = value in (0, "", b"", False, None) or (
        isinstance(value, Sequence | Mapping) and not isinstance(value, str | bytes) and not value
    )
    return NONE if zero and not isinstance(value, OptionalValue) else OptionalValue(value)


def _optional(value: Any) -> OptionalValue:
    if not isinstance(value, OptionalValue):
        raise no_such_overload()
    return value


def has_value(value: Any) -> bool:
    return _optional(value).has_value


def optional_value(value: Any) -> Any:
    opt = _optional(value)
    if not opt.has_value:
        raise CelError("optional.none() dereference")
    return opt.value


def or_value(value: Any, default: Any) -> Any:
    opt = _optional(value)
    return opt.value if opt.has_value else default


def optional_or(value: Any, other: Any) -> OptionalValue:
    opt = _optional(value)
    return opt if opt.has_value else _optional(other)


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


GLOBALS: Final[dict[str, Function]] = {
    "size": size,
    "matches": matches,
    "int": to_int,
    "uint": to_uint,
    "double": to_double,
    "string": to_string,
    "bool": to_bool,
    "bytes": to_bytes,
    "type": cel_type,
    "dyn": dyn,
    "quantity": quantity,
    "isQuantity": is_quantity,
    "sign": sign,
    "semver": semver,
    "isSemver": is_semver,
    "sets.contains": sets_contains,
    "sets.equivalent": sets_equivalent,
    "sets.intersects": sets_intersects,
    "strings.quote": quote,
    "lists.range": lists_range,
    "optional.of": optional_of,
    "optional.none": optional_none,
    "optional.ofNonZeroValue": optional_of_non_zero,
}

MEMBERS: Final[dict[str, Function]] = {
    "size": size,
    "contains": lambda s, sub: _string(sub) in _string(s),
    "startsWith": lambda s, prefix: _string(s).startswith(_string(prefix)),
    "endsWith": lambda s, suffix: _string(s).endswith(_string(suffix)),
    "matches": matches,
    "charAt": char_at,
    "indexOf": index_of,
    "lastIndexOf": last_index_of,
    "lowerAscii": lower_ascii,
    "upperAscii": upper_ascii,
    "replace": replace,
    "split": split,
    "substring": substring,
    "trim": trim,
    "join": join,
    "reverse": reverse,
    "isSorted": is_sorted,
    "sum": list_sum,
    "min": list_min,
    "max": list_max,
    "includes": includes,
    "distinct": distinct,
    "flatten": flatten,
    "slice": list_slice,
    "sort": list_sort,
    "first": first,
    "last": last,
    "find": find,
    "findAll": find_all,
    "sign": sign,
    "isGreaterThan": is_greater_than,
    "isLessThan": is_less_than,
    "compareTo": compare_to,
    "asApproximateFloat": as_approximate_float,
    "asInteger": as_integer,
    "isInteger": is_integer,
    "add": quantity_add,
    "sub": quantity_sub,
    "major": major,
    "minor": minor,
    "patch": patch,
    "hasValue": has_value,
    "value": optional_value,
    "orValue": or_value,
    "or": optional_or,
}

NAMESPACES: Final = frozenset(name.split(".", 1)[0] for name in GLOBALS if "." in name)
TYPE_IDENTIFIERS: Final = {
    "int": CelType("int"),
    "uint": CelType("uint"),
    "double": CelType("double"),
    "string": CelType("string"),
    "bool": CelType("bool"),
    "bytes": CelType("bytes"),
    "list": CelType("list"),
    "map": CelType("map"),
    "null_type": CelType("null_type"),
    "type": CelType("type"),
}
RESULT_TYPES: Final = {
    "size": "int",
    "int": "int",
    "uint": "uint",
    "double": "double",
    "string": "string",
    "bool": "bool",
    "bytes": "bytes",
    "quantity": "kubernetes.Quantity",
    "semver": "kubernetes.Semver",
    "isQuantity": "bool",
    "isSemver": "bool",
    "matches": "bool",
    "contains": "bool",
    "startsWith": "bool",
    "endsWith": "bool",
    "isGreaterThan": "bool",
    "isLessThan": "bool",
    "compareTo": "int",
    "isInteger": "bool",
    "asInteger": "int",
    "asApproximateFloat": "double",
    "major": "int",
    "minor": "int",
    "patch": "int",
    "indexOf": "int",
    "lastIndexOf": "int",
    "lowerAscii": "string",
    "upperAscii": "string",
    "trim": "string",
    "substring": "string",
    "charAt": "string",
    "replace": "string",
    "join": "string",
    "find": "string",
    "split": "list(string)",
    "findAll": "list(string)",
    "isSorted": "bool",
    "includes": "bool",
    "hasValue": "bool",
    "sets.contains": "bool",
    "sets.equivalent": "bool",
    "sets.intersects": "bool",
    "add": "kubernetes.Quantity",
    "sub": "kubernetes.Quantity",
    "sign": "int",
}
"""Result types the compiler's output-type check knows (anything else is dyn)."""
