"""ResourceClaims (resource.k8s.io/v1) reduced to what allocation reads and writes: the
requests (`exactly` or a `firstAvailable` list of subrequests), constraints and config of
`spec.devices`, and `status.allocation` / `status.reservedFor`.

`AllocationResult.to_json()` is the `status.allocation` a PreBind writes. Decoding errors are
`DRAObjectError` lines, as for the slices (`model.dra`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.model.dra import (
    DeviceConfiguration,
    DeviceSelector,
    Reader,
    metadata,
    selectors,
)
from kubesched.model.quantity import Quantity

ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
CONFIG_SOURCE_CLASS = "FromClass"
CONFIG_SOURCE_CLAIM = "FromClaim"


@dataclass(frozen=True, slots=True)
class DeviceToleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def to_json(self) -> dict[str, Any]:
        fields = (("key", self.key), ("value", self.value), ("effect", self.effect))
        out: dict[str, Any] = {"operator": self.operator, **{k: v for k, v in fields if v}}
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


@dataclass(frozen=True, slots=True)
class DeviceRequestSpec:
    """What `exactly` and a `firstAvailable` subrequest have in common; `admin_access` is
    None when unset (subrequests have none)."""

    name: str
    device_class_name: str = ""
    selectors: tuple[DeviceSelector, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity_requests: Mapping[str, Quantity] | None = None
    """`capacity.requests` (None when `capacity` is unset)."""
    has_derived_attributes: bool = False


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    name: str
    exactly: DeviceRequestSpec | None = None
    first_available: tuple[DeviceRequestSpec, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    requests: tuple[str, ...] = ()
    match_attribute: str | None = None
    distinct_attribute: str | None = None


@dataclass(frozen=True, slots=True)
class DeviceClaimConfiguration:
    requests: tuple[str, ...]
    config: DeviceConfiguration


@dataclass(frozen=True, slots=True)
class DeviceRequestAllocationResult:
    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    binding_conditions: tuple[str, ...] | None = None
    binding_failure_conditions: tuple[str, ...] | None = None
    share_id: str | None = None
    consumed_capacity: Mapping[str, Quantity] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "request": self.request,
            "driver": self.driver,
            "pool": self.pool,
            "device": self.device,
        }
        if self.admin_access is not None:
            out["adminAccess"] = self.admin_access
        if self.tolerations:
            out["tolerations"] = [t.to_json() for t in self.tolerations]
        if self.binding_conditions:
            out["bindingConditions"] = list(self.binding_conditions)
        if self.binding_failure_conditions:
            out["bindingFailureConditions"] = list(self.binding_failure_conditions)
        if self.share_id is not None:
            out["shareID"] = self.share_id
        if self.consumed_capacity:
            out["consumedCapacity"] = {k: str(v) for k, v in self.consumed_capacity.items()}
        return out


@dataclass(frozen=True, slots=True)
class DeviceAllocationConfiguration:
    source: str
    requests: tuple[str, ...]
    config: DeviceConfiguration

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, **self.config.raw}
        if self.requests:
            out["requests"] = list(self.requests)
        return out


@dataclass(frozen=True, slots=True)
class AllocationResult:
    results: tuple[DeviceRequestAllocationResult, ...] = ()
    config: tuple[DeviceAllocationConfiguration, ...] = ()
    node_selector: Mapping[str, Any] | None = None
    allocation_timestamp: str | None = None

    def to_json(self) -> dict[str, Any]:
        devices: dict[str, Any] = {}
        if self.results:
            devices["results"] = [r.to_json() for r in self.results]
        if self.config:
            devices["config"] = [c.to_json() for c in self.config]
        out: dict[str, Any] = {"devices": devices}
        if self.node_selector is not None:
            out["nodeSelector"] = self.node_selector
        if self.allocation_timestamp is not None:
            out["allocationTimestamp"] = self.allocation_timestamp
        return out


@dataclass(frozen=True, slots=True)
class ConsumerReference:
    """A `status.reservedFor` entry."""

    resource: str
    name: str
    uid: str
    api_group: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class ResourceClaim:
    namespace: str
    name: str
    uid: str = ""
    resource_version: str = ""
    deleting: bool = False
    annotations: Mapping[str, str] = field(default_factory=dict)
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[DeviceClaimConfiguration, ...] = ()
    allocation: AllocationResult | None = None
    reserved_for: tuple[ConsumerReference, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ResourceClaim:
        reader, meta = metadata("ResourceClaim", obj)
        name = meta.get("name") or ""
        annotations = reader.mapping(meta.get("annotations"), "metadata.annotations")
        spec = reader.mapping(obj.get("spec"), "spec")
        devices = reader.mapping(spec.get("devices"), "spec.devices")
        status = reader.mapping(obj.get("status"), "status")
        return cls(
            namespace=meta.get("namespace") or "",
            name=name,
            uid=meta.get("uid") or "",
            resource_version=meta.get("resourceVersion") or "",
            deleting=meta.get("deletionTimestamp") is not None,
            annotations={k: v for k, v in annotations.items() if isinstance(v, str)},
            requests=tuple(
                _request(reader, r, f"spec.devices.requests[{i}]")
                for i, r in enumerate(
                    reader.items(devices.get("requests"), "spec.devices.requests")
                )
            ),
            constraints=tuple(
                _constraint(reader, c, f"spec.devices.constraints[{i}]")
                for i, c in enumerate(
                    reader.items(devices.get("constraints"), "spec.devices.constraints")
                )
            ),
            config=tuple(
                _claim_config(reader, c, f"spec.devices.config[{i}]")
                for i, c in enumerate(reader.items(devices.get("config"), "spec.devices.config"))
            ),
            allocation=_allocation(reader, status.get("allocation"), "status.allocation"),
            reserved_for=tuple(
                _consumer(reader, c, f"status.reservedFor[{i}]")
                for i, c in enumerate(reader.items(status.get("reservedFor"), "status.reservedFor"))
            ),
        )


def _tolerations(reader: Reader, raw: Any, path: str) -> tuple[DeviceToleration, ...]:
    out = []
    for i, item in enumerate(reader.items(raw, path)):
        tol = reader.mapping(item, f"{path}[{i}]")
        seconds = tol.get("tolerationSeconds")
        out.append(
            DeviceToleration(
                key=reader.string(tol.get("key"), f"{path}[{i}].key"),
                operator=reader.string(tol.get("operator"), f"{path}[{i}].operator") or "Equal",
                value=reader.string(tol.get("value"), f"{path}[{i}].value"),
                effect=reader.string(tol.get("effect"), f"{path}[{i}].effect"),
                toleration_seconds=None
                if seconds is None
                else reader.integer(seconds, f"{path}[{i}].tolerationSeconds"),
            )
        )
    return tuple(out)


def _spec(reader: Reader, raw: Mapping[str, Any], name: str, path: str) -> DeviceRequestSpec:
    capacity = raw.get("capacity")
    capacity_requests = None
    if capacity is not None:
        requests = reader.mapping(
            reader.mapping(capacity, f"{path}.capacity").get("requests"), f"{path}.capacity"
        )
        capacity_requests = {
            k: reader.quantity(v, f"{path}.capacity.requests.{k}") for k, v in requests.items()
        }
    admin = raw.get("adminAccess")
    return DeviceRequestSpec(
        name=name,
        device_class_name=reader.string(raw.get("deviceClassName"), f"{path}.deviceClassName"),
        selectors=selectors(reader, raw.get("selectors"), f"{path}.selectors"),
        allocation_mode=reader.string(raw.get("allocationMode"), f"{path}.allocationMode")
        or ALLOCATION_MODE_EXACT_COUNT,
        count=reader.integer(raw.get("count"), f"{path}.count", default=1),
        admin_access=reader.optional_bool(admin, f"{path}.adminAccess"),
        tolerations=_tolerations(reader, raw.get("tolerations"), f"{path}.tolerations"),
        capacity_requests=capacity_requests,
        has_derived_attributes=bool(raw.get("derivedAttributes")),
    )


def _request(reader: Reader, raw: Any, path: str) -> DeviceRequest:
    req = reader.mapping(raw, path)
    name = reader.string(req.get("name"), f"{path}.name")
    exactly = req.get("exactly")
    subs = []
    for i, item in enumerate(reader.items(req.get("firstAvailable"), f"{path}.firstAvailable")):
        sub = reader.mapping(item, f"{path}.firstAvailable[{i}]")
        sub_name = reader.string(sub.get("name"), f"{path}.firstAvailable[{i}].name")
        subs.append(_spec(reader, sub, sub_name, f"{path}.firstAvailable[{i}]"))
    return DeviceRequest(
        name=name,
        exactly=None
        if exactly is None
        else _spec(reader, reader.mapping(exactly, f"{path}.exactly"), name, f"{path}.exactly"),
        first_available=tuple(subs),
    )


def _constraint(reader: Reader, raw: Any, path: str) -> DeviceConstraint:
    c = reader.mapping(raw, path)
    return DeviceConstraint(
        requests=reader.strings(c.get("requests"), f"{path}.requests"),
        match_attribute=reader.optional_string(c.get("matchAttribute"), f"{path}.matchAttribute"),
        distinct_attribute=reader.optional_string(
            c.get("distinctAttribute"), f"{path}.distinctAttribute"
        ),
    )


def _claim_config(reader: Reader, raw: Any, path: str) -> DeviceClaimConfiguration:
    c = dict(reader.mapping(raw, path))
    requests = reader.strings(c.pop("requests", None), f"{path}.requests")
    return DeviceClaimConfiguration(requests=requests, config=DeviceConfiguration(c))


def _allocation(reader: Reader, raw: Any, path: str) -> AllocationResult | None:
    if raw is None:
        return None
    alloc = reader.mapping(raw, path)
    devices = reader.mapping(alloc.get("devices"), f"{path}.devices")
    results = []
    for i, item in enumerate(reader.items(devices.get("results"), f"{path}.devices.results")):
        results.append(_result(reader, item, f"{path}.devices.results[{i}]"))
    configs = []
    for i, item in enumerate(reader.items(devices.get("config"), f"{path}.devices.config")):
        c = dict(reader.mapping(item, f"{path}.devices.config[{i}]"))
        source = reader.string(c.pop("source", None), f"{path}.devices.config[{i}].source")
        requests = reader.strings(c.pop("requests", None), f"{path}.devices.config[{i}].requests")
        configs.append(DeviceAllocationConfiguration(source, requests, DeviceConfiguration(c)))
    return AllocationResult(
        results=tuple(results),
        config=tuple(configs),
        node_selector=reader.node_selector(alloc.get("nodeSelector"), f"{path}.nodeSelector"),
        allocation_timestamp=reader.optional_string(
            alloc.get("allocationTimestamp"), f"{path}.allocationTimestamp"
        ),
    )


def _result(reader: Reader, raw: Any, path: str) -> DeviceRequestAllocationResult:
    r = reader.mapping(raw, path)
    consumed = r.get("consumedCapacity")
    conditions = r.get("bindingConditions")
    failures = r.get("bindingFailureConditions")
    return DeviceRequestAllocationResult(
        request=reader.string(r.get("request"), f"{path}.request"),
        driver=reader.string(r.get("driver"), f"{path}.driver"),
        pool=reader.string(r.get("pool"), f"{path}.pool"),
        device=reader.string(r.get("device"), f"{path}.device"),
        admin_access=reader.optional_bool(r.get("adminAccess"), f"{path}.adminAccess"),
        tolerations=_tolerations(reader, r.get("tolerations"), f"{path}.tolerations"),
        binding_conditions=None
        if conditions is None
        else reader.strings(conditions, f"{path}.bindingConditions"),
        binding_failure_conditions=None
        if failures is None
        else reader.strings(failures, f"{path}.bindingFailureConditions"),
        share_id=reader.optional_string(r.get("shareID"), f"{path}.shareID"),
        consumed_capacity=None
        if consumed is None
        else {
            k: reader.quantity(v, f"{path}.consumedCapacity.{k}")
            for k, v in reader.mapping(consumed, f"{path}.consumedCapacity").items()
        },
    )


def _consumer(reader: Reader, raw: Any, path: str) -> ConsumerReference:
    c = reader.mapping(raw, path)
    return ConsumerReference(
        resource=reader.string(c.get("resource"), f"{path}.resource"),
        name=reader.string(c.get("name"), f"{path}.name"),
        uid=reader.string(c.get("uid"), f"{path}.uid"),
        api_group=reader.string(c.get("apiGroup"), f"{path}.apiGroup"),
    )
