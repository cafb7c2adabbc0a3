"""Kubernetes' DRA CEL environment (`k8s.io/dynamic-resource-allocation/cel` v0.37.2): the
`device` variable with `driver`, `allowMultipleAllocations`, `attributes` and `capacity`.

Attributes and capacities are addressed by domain then id: a name without a domain belongs
to the device's driver (`device.attributes["gpu.example.com"].model` reads the attribute
`model` of a gpu.example.com device), and an unknown domain reads as an empty map, so only
a missing id fails (`no such key: model`). Versions are `semver` values, capacities
`quantity` values. The scheduler compiles stored expressions (every field and function of
the newest environment) and evaluates under a runtime cost limit of 1,000,000 units.

`CelCache` compiles each expression once; `Selector.matches(device, driver)` answers for
one device, with upstream's error texts.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kubesched.dra.cel.compiler import compile_expression
from kubesched.dra.cel.program import CompileError, Program, Run
from kubesched.dra.cel.values import (
    CelError,
    DefaultMap,
    Semver,
    type_name,
)
from kubesched.errors import KubeschedError
from kubesched.model.dra import Device

SELECTOR_MAX_COST: Final = 1_000_000
"""`resourceapi.CELSelectorExpressionMaxCost`."""
_VARIABLES: Final = frozenset({"device"})
_EMPTY: Final[Mapping[str, Any]] = {}
_NO_SUCH_KEY_HINT: Final = (
    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
    "with has() for optional fields"
)


def split_qualified_name(name: str, default_domain: str) -> tuple[str, str]:
    """`domain/id`, or the default domain and the whole name."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (default_domain, name)


def device_variable(device: Device, driver: str) -> dict[str, Any]:
    """The `device` value an expression sees; CelError for an attribute CEL cannot hold."""
    attributes: dict[str, dict[str, Any]] = {}
    for name, attr in device.attributes.items():
        if attr.kind == "version":
            try:
                value: Any = Semver.parse(str(attr.value))
            except CelError as exc:
                raise CelError(f"attribute {name}: parse semantic version: {exc}") from None
        elif attr.kind == "versions":
            try:
                value = [Semver.parse(str(v)) for v in _items(attr.value)]
            except CelError as exc:
                raise CelError(f"attribute {name}: parse semantic version: {exc}") from None
        elif attr.kind in ("ints", "bools", "strings"):
            value = list(_items(attr.value))
        elif attr.kind:
            value = attr.value
        else:
            raise CelError(f"attribute {name}: unsupported attribute value")
        domain, ident = split_qualified_name(name, driver)
        attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict[str, Any]] = {}
    for name, cap in device.capacity.items():
        domain, ident = split_qualified_name(name, driver)
        capacity.setdefault(domain, {})[ident] = cap.value
    return {
        "driver": driver,
        "allowMultipleAllocations": bool(device.allow_multiple_allocations),
        "attributes": DefaultMap(attributes, _EMPTY),
        "capacity": DefaultMap(capacity, _EMPTY),
    }


def _items(value: object) -> tuple[object, ...]:
    """A list attribute's values (the model parses each list kind into a tuple)."""
    return value if isinstance(value, tuple) else ()


def enhance_runtime_error(message: str) -> str:
    """upstream `cel.EnhanceRuntimeError`: a missing key suggests optional chaining."""
    if "no such key:" in message and not message.endswith(_NO_SUCH_KEY_HINT):
        return message + _NO_SUCH_KEY_HINT
    return message


class DeviceSelectorError(KubeschedError):
    """An expression failed for a device (`str()` is cel-go's message)."""


@dataclass(frozen=True, slots=True)
class Selector:
    """A compiled device selector; `error` is set when it does not compile."""

    expression: str
    program: Program | None
    error: str | None = None

    def matches(
        self,
        variables: Mapping[str, Any],
        *,
        cost_limit: int = SELECTOR_MAX_COST,
        deadline: float | None = None,
    ) -> bool:
        """The selector's answer for one `device` variable (`device_variable`); raises
        DeviceSelectorError with the runtime error's text."""
        assert self.program is not None
        try:
            result = self.program.evaluate(variables, Run(cost_limit, deadline))
        except CelError as exc:
            raise DeviceSelectorError(str(exc)) from None
        except RecursionError:
            raise DeviceSelectorError("max recursion depth exceeded") from None
        if not isinstance(result, bool):
            kind = type_name(result)
            raise DeviceSelectorError(
                f"CEL result of type {kind} could not be converted to bool: "
                f"type conversion error from {kind} to 'bool'"
            )
        return result


def compile_selector(expression: str) -> Selector:
    try:
        program = compile_expression(expression, _VARIABLES)
    except CompileError as exc:
        return Selector(expression, None, f"compilation failed: {exc}")
    except RecursionError:
        return Selector(expression, None, "compilation failed: expression nested too deeply")
    kind = program.output_type
    if kind not in ("bool", "dyn"):
        return Selector(expression, None, f"must evaluate to bool or the unknown type, not {kind}")
    return Selector(expression, program)


class CelCache:
    """Compiled selectors by expression, least recently used dropped past `max_entries`.
    Like upstream's cache it keeps only what compiled; a failing expression is compiled
    again when next asked for."""

    def __init__(self, max_entries: int = 1024, max_results: int = 200_000) -> None:
        self._max = max_entries
        self._entries: OrderedDict[str, Selector] = OrderedDict()
        self._max_results = max_results
        self._results: dict[tuple[str, int, str], tuple[object, bool]] = {}

    def known_result(self, expression: str, device: object, driver: str) -> bool | None:
        """What `expression` answered for this very device object of `driver` (None: not
        evaluated yet). A selector reads only the device's fields and its driver, and a
        parsed device never changes (a changed slice is parsed into new devices), so the
        answer holds across scheduling cycles; errors are never remembered."""
        found = self._results.get((expression, id(device), driver))
        if found is None or found[0] is not device:
            return None
        return found[1]

    def remember(self, expression: str, device: object, driver: str, result: bool) -> None:
        if len(self._results) >= self._max_results:
            self._results.clear()  # devices of slices long gone; start again
        self._results[expression, id(device), driver] = (device, result)

    def get_or_compile(self, expression: str) -> Selector:
        found = self._entries.get(expression)
        if found is not None:
            self._entries.move_to_end(expression)
            return found
        selector = compile_selector(expression)
        if selector.error is None:
            self._entries[expression] = selector
            if len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return selector
