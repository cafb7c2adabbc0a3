"""Dynamic resource allocation (resource.k8s.io/v1): ResourceSlices, DeviceClasses and
DeviceTaintRules reduced to what the structured-parameters allocator reads.

Decoding checks the shapes the allocator relies on and raises `DRAObjectError` with one line
naming the object and the field (`ResourceSlice gpu-1: spec.devices[0].capacity.memory.value:
invalid quantity 'x' ...`), never a traceback. Field presence is kept where upstream's Go code
tells nil from empty (`allNodes`, `bindingConditions`, ...). The claim side is `dra_claims`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.model.quantity import Quantity, QuantityError

ATTRIBUTE_KINDS = ("int", "bool", "string", "version")
LIST_ATTRIBUTE_KINDS = ("ints", "bools", "strings", "versions")
"""The list-valued attributes of the alpha DRAListTypeAttributes gate."""


class DRAObjectError(KubeschedError, ValueError):
    """A DRA object the allocator cannot read: one line naming the object and the field."""


class Reader:
    """Reads fields of one object, raising DRAObjectError with the object's name and path."""

    __slots__ = ("what",)

    def __init__(self, kind: str, name: str) -> None:
        self.what = f"{kind} {name or '<unnamed>'}"

    def fail(self, path: str, problem: str) -> DRAObjectError:
        return DRAObjectError(f"{self.what}: {path}: {problem}")

    def mapping(self, raw: Any, path: str) -> Mapping[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            raise self.fail(path, f"expected an object, got {type(raw).__name__}")
        return raw

    def items(self, raw: Any, path: str) -> list[Any]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self.fail(path, f"expected a list, got {type(raw).__name__}")
        return raw

    def string(self, raw: Any, path: str, *, default: str = "") -> str:
        if raw is None:
            return default
        if not isinstance(raw, str):
            raise self.fail(path, f"expected a string, got {type(raw).__name__}")
        return raw

    def optional_string(self, raw: Any, path: str) -> str | None:
        return None if raw is None else self.string(raw, path)

    def strings(self, raw: Any, path: str) -> tuple[str, ...]:
        return tuple(self.string(v, f"{path}[{i}]") for i, v in enumerate(self.items(raw, path)))

    def optional_bool(self, raw: Any, path: str) -> bool | None:
        if raw is None:
            return None
        if not isinstance(raw, bool):
            raise self.fail(path, f"expected true or false, got {raw!r}")
        return raw

    def integer(self, raw: Any, path: str, *, default: int = 0) -> int:
        if raw is None:
            return default
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise self.fail(path, f"expected an integer, got {raw!r}")
        return raw

    def quantity(self, raw: Any, path: str) -> Quantity:
        if raw is None:
            raise self.fail(path, "missing quantity")
        try:
            return Quantity.parse(raw)
        except QuantityError as exc:
            raise self.fail(path, str(exc)) from None

    def optional_quantity(self, raw: Any, path: str) -> Quantity | None:
        return None if raw is None else self.quantity(raw, path)

    def node_selector(self, raw: Any, path: str) -> Mapping[str, Any] | None:
        if raw is None:
            return None
        selector = self.mapping(raw, path)
        self.items(selector.get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms")
        return selector


@dataclass(frozen=True, slots=True)
class DeviceAttribute:
    """One typed attribute value: `kind` is int, bool, string or version (or a list kind of
    the alpha DRAListTypeAttributes gate, with a tuple value); "" when no value is set."""

    kind: str
    value: int | bool | str | tuple[Any, ...] | None


def _attribute(reader: Reader, raw: Any, path: str) -> DeviceAttribute:
    attr = reader.mapping(raw, path)
    for kind in ATTRIBUTE_KINDS:
        if attr.get(kind) is not None:
            value = attr[kind]
            if kind == "int":
                return DeviceAttribute(kind, reader.integer(value, f"{path}.int"))
            if kind == "bool":
                return DeviceAttribute(kind, reader.optional_bool(value, f"{path}.bool"))
            return DeviceAttribute(kind, reader.string(value, f"{path}.{kind}"))
    for kind in LIST_ATTRIBUTE_KINDS:
        if attr.get(kind) is not None:
            return DeviceAttribute(kind, tuple(reader.items(attr[kind], f"{path}.{kind}")))
    return DeviceAttribute("", None)


@dataclass(frozen=True, slots=True)
class CapacityRequestPolicy:
    default: Quantity | None = None
    valid_values: tuple[Quantity, ...] = ()
    valid_values_set: bool = False
    """Whether `validValues` was given (upstream checks the slice for nil)."""
    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None
    valid_range_set: bool = False


@dataclass(frozen=True, slots=True)
class DeviceCapacity:
    value: Quantity
    request_policy: CapacityRequestPolicy | None = None


def _request_policy(reader: Reader, raw: Any, path: str) -> CapacityRequestPolicy | None:
    if raw is None:
        return None
    policy = reader.mapping(raw, path)
    values_raw = policy.get("validValues")
    range_raw = policy.get("validRange")
    valid_range = reader.mapping(range_raw, f"{path}.validRange")
    return CapacityRequestPolicy(
        default=reader.optional_quantity(policy.get("default"), f"{path}.default"),
        valid_values=tuple(
            reader.quantity(v, f"{path}.validValues[{i}]")
            for i, v in enumerate(reader.items(values_raw, f"{path}.validValues"))
        ),
        valid_values_set=values_raw is not None,
        min=reader.optional_quantity(valid_range.get("min"), f"{path}.validRange.min"),
        max=reader.optional_quantity(valid_range.get("max"), f"{path}.validRange.max"),
        step=reader.optional_quantity(valid_range.get("step"), f"{path}.validRange.step"),
        valid_range_set=range_raw is not None,
    )


@dataclass(frozen=True, slots=True)
class DeviceTaint:
    key: str
    value: str = ""
    effect: str = ""
    time_added: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "effect": self.effect}
        if self.value:
            out["value"] = self.value
        if self.time_added is not None:
            out["timeAdded"] = self.time_added
        return out


def read_taint(reader: Reader, raw: Any, path: str) -> DeviceTaint:
    taint = reader.mapping(raw, path)
    return DeviceTaint(
        key=reader.string(taint.get("key"), f"{path}.key"),
        value=reader.string(taint.get("value"), f"{path}.value"),
        effect=reader.string(taint.get("effect"), f"{path}.effect"),
        time_added=reader.optional_string(taint.get("timeAdded"), f"{path}.timeAdded"),
    )


@dataclass(frozen=True, slots=True)
class CounterSet:
    name: str
    counters: Mapping[str, Quantity]


@dataclass(frozen=True, slots=True)
class DeviceCounterConsumption:
    counter_set: str
    counters: Mapping[str, Quantity]
    compatibility_groups: tuple[str, ...] = ()


def _counters(reader: Reader, raw: Any, path: str) -> dict[str, Quantity]:
    counters = reader.mapping(raw, path)
    return {
        name: reader.quantity(reader.mapping(c, f"{path}.{name}").get("value"), f"{path}.{name}")
        for name, c in counters.items()
    }


@dataclass(frozen=True, slots=True, eq=False)
class Device:
    """One device of a slice (compared by identity: the allocator keys caches by it)."""

    name: str
    attributes: Mapping[str, DeviceAttribute] = field(default_factory=dict)
    capacity: Mapping[str, DeviceCapacity] = field(default_factory=dict)
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str | None = None
    node_selector: Mapping[str, Any] | None = None
    all_nodes: bool | None = None
    taints: tuple[DeviceTaint, ...] = ()
    binds_to_node: bool = False
    binding_conditions: tuple[str, ...] | None = None
    binding_failure_conditions: tuple[str, ...] | None = None
    allow_multiple_allocations: bool | None = None


def _device(reader: Reader, raw: Any, path: str) -> Device:
    dev = reader.mapping(raw, path)
    attributes = reader.mapping(dev.get("attributes"), f"{path}.attributes")
    capacity = reader.mapping(dev.get("capacity"), f"{path}.capacity")
    consumes = reader.items(dev.get("consumesCounters"), f"{path}.consumesCounters")
    conditions = dev.get("bindingConditions")
    failure_conditions = dev.get("bindingFailureConditions")
    return Device(
        name=reader.string(dev.get("name"), f"{path}.name"),
        attributes={
            name: _attribute(reader, value, f"{path}.attributes.{name}")
            for name, value in attributes.items()
        },
        capacity={
            name: _capacity(reader, value, f"{path}.capacity.{name}")
            for name, value in capacity.items()
        },
        consumes_counters=tuple(
            _consumption(reader, c, f"{path}.consumesCounters[{i}]") for i, c in enumerate(consumes)
        ),
        node_name=reader.optional_string(dev.get("nodeName"), f"{path}.nodeName"),
        node_selector=reader.node_selector(dev.get("nodeSelector"), f"{path}.nodeSelector"),
        all_nodes=reader.optional_bool(dev.get("allNodes"), f"{path}.allNodes"),
        taints=tuple(
            read_taint(reader, t, f"{path}.taints[{i}]")
            for i, t in enumerate(reader.items(dev.get("taints"), f"{path}.taints"))
        ),
        binds_to_node=bool(reader.optional_bool(dev.get("bindsToNode"), f"{path}.bindsToNode")),
        binding_conditions=None
        if conditions is None
        else reader.strings(conditions, f"{path}.bindingConditions"),
        binding_failure_conditions=None
        if failure_conditions is None
        else reader.strings(failure_conditions, f"{path}.bindingFailureConditions"),
        allow_multiple_allocations=reader.optional_bool(
            dev.get("allowMultipleAllocations"), f"{path}.allowMultipleAllocations"
        ),
    )


def _capacity(reader: Reader, raw: Any, path: str) -> DeviceCapacity:
    cap = reader.mapping(raw, path)
    return DeviceCapacity(
        value=reader.quantity(cap.get("value"), f"{path}.value"),
        request_policy=_request_policy(reader, cap.get("requestPolicy"), f"{path}.requestPolicy"),
    )


def _consumption(reader: Reader, raw: Any, path: str) -> DeviceCounterConsumption:
    consumption = reader.mapping(raw, path)
    return DeviceCounterConsumption(
        counter_set=reader.string(consumption.get("counterSet"), f"{path}.counterSet"),
        counters=_counters(reader, consumption.get("counters"), f"{path}.counters"),
        compatibility_groups=reader.strings(
            consumption.get("compatibilityGroups"), f"{path}.compatibilityGroups"
        ),
    )


@dataclass(frozen=True, slots=True)
class ResourcePool:
    name: str
    generation: int = 0
    resource_slice_count: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class ResourceSlice:
    name: str
    driver: str
    pool: ResourcePool
    resource_version: str = ""
    node_name: str | None = None
    node_selector: Mapping[str, Any] | None = None
    all_nodes: bool | None = None
    per_device_node_selection: bool | None = None
    devices: tuple[Device, ...] = ()
    shared_counters: tuple[CounterSet, ...] = ()

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ResourceSlice:
        reader, meta = metadata("ResourceSlice", obj)
        name = meta.get("name") or ""
        spec = reader.mapping(obj.get("spec"), "spec")
        pool = reader.mapping(spec.get("pool"), "spec.pool")
        counter_sets = reader.items(spec.get("sharedCounters"), "spec.sharedCounters")
        return cls(
            name=name,
            resource_version=meta.get("resourceVersion") or "",
            driver=reader.string(spec.get("driver"), "spec.driver"),
            pool=ResourcePool(
                name=reader.string(pool.get("name"), "spec.pool.name"),
                generation=reader.integer(pool.get("generation"), "spec.pool.generation"),
                resource_slice_count=reader.integer(
                    pool.get("resourceSliceCount"), "spec.pool.resourceSliceCount"
                ),
            ),
            node_name=reader.optional_string(spec.get("nodeName"), "spec.nodeName"),
            node_selector=reader.node_selector(spec.get("nodeSelector"), "spec.nodeSelector"),
            all_nodes=reader.optional_bool(spec.get("allNodes"), "spec.allNodes"),
            per_device_node_selection=reader.optional_bool(
                spec.get("perDeviceNodeSelection"), "spec.perDeviceNodeSelection"
            ),
            devices=tuple(
                _device(reader, d, f"spec.devices[{i}]")
                for i, d in enumerate(reader.items(spec.get("devices"), "spec.devices"))
            ),
            shared_counters=tuple(
                CounterSet(
                    name=reader.string(
                        reader.mapping(c, f"spec.sharedCounters[{i}]").get("name"),
                        f"spec.sharedCounters[{i}].name",
                    ),
                    counters=_counters(reader, c.get("counters"), f"spec.sharedCounters[{i}]"),
                )
                for i, c in enumerate(counter_sets)
            ),
        )


@dataclass(frozen=True, slots=True)
class DeviceSelector:
    """`selectors[]`: only CEL selectors exist; None marks an unknown (future) selector kind."""

    expression: str | None


def selectors(reader: Reader, raw: Any, path: str) -> tuple[DeviceSelector, ...]:
    out = []
    for i, item in enumerate(reader.items(raw, path)):
        cel = reader.mapping(item, f"{path}[{i}]").get("cel")
        if cel is None:
            out.append(DeviceSelector(None))
            continue
        expression = reader.mapping(cel, f"{path}[{i}].cel").get("expression")
        out.append(DeviceSelector(reader.string(expression, f"{path}[{i}].cel.expression")))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class DeviceConfiguration:
    """A `config[]` entry as written (`{"opaque": {"driver": ..., "parameters": ...}}`),
    copied into the allocation result unchanged."""

    raw: Mapping[str, Any]


def metadata(kind: str, obj: Any) -> tuple[Reader, Mapping[str, Any]]:
    """The object's reader (named after it) and its checked `metadata`."""
    if not isinstance(obj, Mapping):
        raise DRAObjectError(f"{kind}: expected an object, got {type(obj).__name__}")
    meta = obj.get("metadata")
    if meta is not None and not isinstance(meta, Mapping):
        raise DRAObjectError(f"{kind}: metadata: expected an object, got {type(meta).__name__}")
    meta = meta or {}
    name = meta.get("name")
    name = name if isinstance(name, str) else ""
    namespace = meta.get("namespace")
    shown = f"{namespace}/{name}" if isinstance(namespace, str) and namespace else name
    reader = Reader(kind, shown)
    for key in ("name", "namespace", "resourceVersion", "uid", "creationTimestamp"):
        reader.string(meta.get(key), f"metadata.{key}")
    return reader, meta
