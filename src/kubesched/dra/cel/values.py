"""CEL values as cel-go represents them for Kubernetes: Python ints, floats, strings, bytes,
lists and dicts, plus `Uint`, `Semver`, `OptionalValue` and `model.quantity.Quantity`.

Errors are raised as `CelError` with cel-go's message texts (`no such key: x`, `no such
overload`, `division by zero`, ...), so what a user reads matches kube-scheduler's events.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from kubesched.errors import KubeschedError
from kubesched.model.quantity import Quantity

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
UINT64_MAX: Final = 2**64 - 1


class CelError(KubeschedError):
    """A CEL evaluation error (a cel-go error value)."""


class CostLimitExceeded(CelError):
    def __init__(self) -> None:
        super().__init__("operation cancelled: actual cost limit exceeded")


class Interrupted(CelError):
    def __init__(self, cause: str) -> None:
        super().__init__(f"operation interrupted: {cause}")


NO_SUCH_OVERLOAD: Final = "no such overload"


def no_such_overload() -> CelError:
    return CelError(NO_SUCH_OVERLOAD)


class Uint(int):
    """A CEL `uint` (a distinct type from `int`)."""

    __slots__ = ()


def check_int(value: int) -> int:
    if value < INT64_MIN or value > INT64_MAX:
        raise CelError("integer overflow")
    return value


def check_uint(value: int) -> Uint:
    if value < 0 or value > UINT64_MAX:
        raise CelError("unsigned integer overflow")
    return Uint(value)


_SEMVER = re.compile(
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


@dataclass(frozen=True, slots=True)
class Semver:
    """A semantic version as github.com/blang/semver/v4 parses and orders it."""

    cel_type_name: ClassVar[str] = "kubernetes.Semver"
    major: int
    minor: int
    patch: int
    pre: tuple[str | int, ...] = ()
    build: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Semver:
        match = _SEMVER.match(text)
        if match is None:
            raise CelError(_semver_problem(text))
        major, minor, patch, pre, build = match.groups()
        pre_parts: list[str | int] = []
        for part in pre.split(".") if pre else ():
            if part.isdigit():
                if len(part) > 1 and part[0] == "0":
                    raise CelError(
                        f"Numeric PreRelease version must not contain leading zeroes {part!r}"
                    )
                pre_parts.append(int(part))
            else:
                pre_parts.append(part)
        return cls(
            int(major),
            int(minor),
            int(patch),
            tuple(pre_parts),
            tuple(build.split(".")) if build else (),
        )

    def compare(self, other: Semver) -> int:
        mine = (self.major, self.minor, self.patch)
        theirs = (other.major, other.minor, other.patch)
        if mine != theirs:
            return -1 if mine < theirs else 1
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre)
        for a, b in zip(self.pre, other.pre, strict=False):
            if a == b:
                continue
            if isinstance(a, int) and isinstance(b, int):
                return -1 if a < b else 1
            if isinstance(a, str) and isinstance(b, str):
                return -1 if a < b else 1
            return -1 if isinstance(a, int) else 1  # numeric identifiers sort first
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text


def _semver_problem(text: str) -> str:
    parts = text.split(".", 2)
    if len(parts) != 3:
        return "No Major.Minor.Patch elements found"
    for label, part in zip(("major", "minor"), parts[:2], strict=False):
        if not part.isdigit():
            return f"Invalid character(s) found in {label} number {part!r}"
        if len(part) > 1 and part[0] == "0":
            return f"{label.capitalize()} number must not contain leading zeroes {part!r}"
    return f"Invalid semantic version {text!r}"


def normalize_semver(text: str) -> Semver:
    """`semver(s, true)`: a leading `v` dropped, leading zeroes trimmed, missing minor and
    patch filled with 0 (apiserver's `normalizeAndParse`)."""
    text = text.removeprefix("v")
    parts = text.split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            trimmed = part.lstrip("0")
            if not trimmed or not trimmed[0].isdigit():
                trimmed = "0" + trimmed
            parts[i] = trimmed
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise CelError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return Semver.parse(".".join(parts))


class OptionalValue:
    """A CEL `optional_type` value (`optional.of(x)`, `a.?b`)."""

    __slots__ = ("value",)
    _MISSING: Final = object()
    cel_type_name: ClassVar[str] = "optional_type"

    def __init__(self, value: Any = _MISSING) -> None:
        self.value = value

    @property
    def has_value(self) -> bool:
        return self.value is not OptionalValue._MISSING

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OptionalValue):
            return False
        if not self.has_value or not other.has_value:
            return self.has_value == other.has_value
        return equals(self.value, other.value)

    def __hash__(self) -> int:
        return 0


NONE: Final = OptionalValue()


class CelType:
    """A type value (`type(x)`, `int`, `string`)."""

    __slots__ = ("name",)
    cel_type_name: ClassVar[str] = "type"

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


_TYPE_NAMES: Final[tuple[tuple[type | tuple[type, ...], str], ...]] = (
    (bool, "bool"),
    (Uint, "uint"),
    (int, "int"),
    (float, "double"),
    (str, "string"),
    (bytes, "bytes"),
    (type(None), "null_type"),
    (Mapping, "map"),
    (Sequence, "list"),
    (Quantity, "kubernetes.Quantity"),
)


def type_name(value: Any) -> str:
    """The CEL type name of a value (`int`, `list`, `kubernetes.Quantity`, ...)."""
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return getattr(value, "cel_type_name", type(value).__name__)


_GO_TYPE_NAMES: Final = {
    "bool": "types.Bool",
    "int": "types.Int",
    "uint": "types.Uint",
    "double": "types.Double",
    "string": "types.String",
    "bytes": "types.Bytes",
    "null_type": "types.Null",
    "kubernetes.Quantity": "cel.Quantity",
    "kubernetes.Semver": "cel.Semver",
    "optional_type": "*types.Optional",
    "type": "*types.Type",
}


def go_type_name(value: Any) -> str:
    """The Go type cel-go names in `got '...', expected iterable type`."""
    return _GO_TYPE_NAMES.get(type_name(value), type_name(value))


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def equals(a: Any, b: Any) -> bool:
    """CEL heterogeneous equality: numbers compare by value across int, uint and double;
    other values of different types are unequal; lists and maps compare deeply."""
    if is_number(a) and is_number(b):
        return bool(a == b)
    kind = type_name(a)
    if kind != type_name(b):
        return False
    if kind == "list":
        return len(a) == len(b) and all(equals(x, y) for x, y in zip(a, b, strict=True))
    if kind == "map":
        return _maps_equal(a, b)
    return bool(a == b)


def _maps_equal(a: Mapping[Any, Any], b: Mapping[Any, Any]) -> bool:
    if len(a) != len(b):
        return False
    for key, value in a.items():
        other = _map_get(b, key)
        if other is _MISSING or not equals(value, other):
            return False
    return True


_MISSING: Final = object()


def _map_get(mapping: Mapping[Any, Any], key: Any) -> Any:
    if key in mapping:
        return mapping[key]
    if is_number(key):  # numeric keys match across int and uint
        for candidate, value in mapping.items():
            if is_number(candidate) and candidate == key:
                return value
    return _MISSING


def map_lookup(mapping: Mapping[Any, Any], key: Any) -> Any:
    """`m[key]`: `no such key: <key>` when absent (a DefaultMap answers its default)."""
    if isinstance(key, float | bytes | list | dict) or key is None:
        raise CelError(f"unsupported key type: {type_name(key)}")
    found = _map_get(mapping, key)
    if found is _MISSING:
        if isinstance(mapping, DefaultMap):
            return mapping.default
        raise CelError(f"no such key: {format_key(key)}")
    return found


def format_key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


class DefaultMap(dict[str, Any]):
    """A map whose lookup of an absent key yields `default` while `in` and iteration see
    only its real keys: upstream's `device.attributes` and `device.capacity`, where an
    unknown domain reads as an empty map."""

    __slots__ = ("default",)

    def __init__(self, items: Mapping[str, Any], default: Any) -> None:
        super().__init__(items)
        self.default = default


def compare(a: Any, b: Any) -> int:
    """`<`, `<=`, `>`, `>=` operands: numbers across types (CrossTypeNumericComparisons),
    strings, bytes and bools; anything else is `no such overload`."""
    comparable = (is_number(a) and is_number(b)) or (
        type(a) is type(b) and isinstance(a, str | bytes | bool)
    )
    if not comparable:
        raise no_such_overload()
    order: int = (a > b) - (a < b)
    return order


def truthy(value: Any) -> bool:
    """A condition's value: only bools qualify."""
    if isinstance(value, bool):
        return value
    raise no_such_overload()


# --- function arguments ----------------------------------------------------------------


def str_arg(value: Any) -> str:
    """A function's argument as a string, or `no such overload`."""
    if not isinstance(value, str):
        raise no_such_overload()
    return value


def int_arg(value: Any) -> int:
    """An `int` argument (not a bool or a `uint`), or `no such overload`."""
    if not isinstance(value, int) or isinstance(value, bool | Uint):
        raise no_such_overload()
    return value


def quantity_arg(value: Any) -> Quantity:
    """A `kubernetes.Quantity` argument, or `no such overload`."""
    if not isinstance(value, Quantity):
        raise no_such_overload()
    return value


def semver_arg(value: Any) -> Semver:
    """A `kubernetes.Semver` argument, or `no such overload`."""
    if not isinstance(value, Semver):
        raise no_such_overload()
    return value


def list_arg(value: Any) -> Sequence[Any]:
    """A list argument, or `no such overload`."""
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise no_such_overload()
    return value
