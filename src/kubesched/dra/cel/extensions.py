"""The CEL extension libraries of Kubernetes' base environment that device selectors reach:
strings (version 2), Kubernetes' lists and regex libraries (with CEL's `matches`), the list
(version 3) and sets extensions, and optional values. Conventions as in `library`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

import re2

from kubesched.dra.cel.library import add
from kubesched.dra.cel.values import (
    NONE,
    CelError,
    OptionalValue,
    compare,
    equals,
    int_arg,
    list_arg,
    no_such_overload,
    str_arg,
)


class _Match(Protocol):
    def group(self, index: int = 0, /) -> str: ...


class _Pattern(Protocol):
    """What the regex functions use of a compiled RE2 pattern."""

    def search(self, text: str, /) -> _Match | None: ...

    def finditer(self, text: str, /) -> Iterator[_Match]: ...


# --- strings extension (version 2) -------------------------------------------------------


def char_at(text: Any, index: Any) -> str:
    s, i = str_arg(text), int_arg(index)
    if i < 0 or i > len(s):
        raise CelError(f"index out of range: {i}")
    return s[i : i + 1]


def index_of(text: Any, sub: Any, offset: Any = 0) -> int:
    if isinstance(text, Sequence) and not isinstance(text, str):
        return _list_index_of(text, sub)
    s, needle, start = str_arg(text), str_arg(sub), int_arg(offset)
    if start < 0 or start > len(s):
        raise CelError(f"index out of range: {start}")
    return s.find(needle, start)


def last_index_of(text: Any, sub: Any, offset: Any = None) -> int:
    if isinstance(text, Sequence) and not isinstance(text, str):
        return _list_last_index_of(text, sub)
    s, needle = str_arg(text), str_arg(sub)
    if offset is None:
        return s.rfind(needle)
    end = int_arg(offset)
    if end < 0 or end > len(s):
        raise CelError(f"index out of range: {end}")
    return s.rfind(needle, 0, end + len(needle))


def lower_ascii(text: Any) -> str:
    return "".join(c.lower() if c.isascii() else c for c in str_arg(text))


def upper_ascii(text: Any) -> str:
    return "".join(c.upper() if c.isascii() else c for c in str_arg(text))


def replace(text: Any, old: Any, new: Any, limit: Any = -1) -> str:
    count = int_arg(limit)
    return str_arg(text).replace(str_arg(old), str_arg(new), count if count >= 0 else -1)


def split(text: Any, sep: Any, limit: Any = -1) -> list[str]:
    s, separator, count = str_arg(text), str_arg(sep), int_arg(limit)
    if count == 0:
        return []
    if separator == "":
        parts = list(s)
        if count > 0 and len(parts) > count:
            parts = [*parts[: count - 1], "".join(parts[count - 1 :])]
        return parts
    return s.split(separator, count - 1 if count > 0 else -1)


def substring(text: Any, start: Any, end: Any = None) -> str:
    s, begin = str_arg(text), int_arg(start)
    stop = len(s) if end is None else int_arg(end)
    if begin < 0 or begin > len(s):
        raise CelError(f"index out of range: {begin}")
    if stop < 0 or stop > len(s):
        raise CelError(f"index out of range: {stop}")
    if begin > stop:
        raise CelError(f"invalid substring range. start: {begin}, end: {stop}")
    return s[begin:stop]


def trim(text: Any) -> str:
    return str_arg(text).strip()


def join(items: Any, sep: Any = "") -> str:
    return str_arg(sep).join(str_arg(item) for item in list_arg(items))


def quote(text: Any) -> str:
    escaped = str_arg(text).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def reverse(value: Any) -> Any:
    if isinstance(value, str):
        return value[::-1]
    return list(reversed(list_arg(value)))


# --- Kubernetes lists library --------------------------------------------------------------


def is_sorted(items: Any) -> bool:
    values = list_arg(items)
    return all(compare(values[i], values[i + 1]) <= 0 for i in range(len(values) - 1))


def list_sum(items: Any) -> Any:
    values = list_arg(items)
    if not values:
        return 0
    total = values[0]
    for value in values[1:]:
        total = add(total, value)
    return total


def list_min(items: Any) -> Any:
    values = list_arg(items)
    if not values:
        raise CelError("min(list) called on an empty list")
    best = values[0]
    for value in values[1:]:
        if compare(value, best) < 0:
            best = value
    return best


def list_max(items: Any) -> Any:
    values = list_arg(items)
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
    for item in list_arg(items):
        if not any(equals(item, seen) for seen in out):
            out.append(item)
    return out


def flatten(items: Any, depth: Any = 1) -> list[Any]:
    levels = int_arg(depth)
    if levels < 0:
        raise CelError("level must be non-negative")
    out: list[Any] = []
    for item in list_arg(items):
        if levels > 0 and isinstance(item, list | tuple):
            out.extend(flatten(item, levels - 1))
        else:
            out.append(item)
    return out


def list_slice(items: Any, start: Any, end: Any) -> list[Any]:
    values, begin, stop = list_arg(items), int_arg(start), int_arg(end)
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
    values = list(list_arg(items))
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
    values = list_arg(items)
    return OptionalValue(values[0]) if values else NONE


def last(items: Any) -> OptionalValue:
    values = list_arg(items)
    return OptionalValue(values[-1]) if values else NONE


def lists_range(count: Any) -> list[int]:
    return list(range(int_arg(count)))


# --- regex library ------------------------------------------------------------------------


_REGEX_CACHE: dict[str, _Pattern] = {}


def _regex(pattern: str) -> _Pattern:
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
    return _regex(str_arg(pattern)).search(str_arg(text)) is not None


def find(text: Any, pattern: Any) -> str:
    match = _regex(str_arg(pattern)).search(str_arg(text))
    return match.group(0) if match else ""


def find_all(text: Any, pattern: Any, limit: Any = -1) -> list[str]:
    count = int_arg(limit)
    if count == 0:
        return []
    found = [m.group(0) for m in _regex(str_arg(pattern)).finditer(str_arg(text))]
    return found[:count] if count > 0 else found


# --- sets extension -----------------------------------------------------------------------


def sets_contains(items: Any, wanted: Any) -> bool:
    values = list_arg(items)
    return all(any(equals(v, w) for v in values) for w in list_arg(wanted))


def sets_equivalent(a: Any, b: Any) -> bool:
    return sets_contains(a, b) and sets_contains(b, a)


def sets_intersects(a: Any, b: Any) -> bool:
    values = list_arg(a)
    return any(any(equals(v, w) for v in values) for w in list_arg(b))


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
