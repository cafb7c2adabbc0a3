"""Claim constraints (upstream incubating `constraint.go` and `matchAttributeConstraint`):
`matchAttribute` (all devices of the named requests share the attribute's value) and
`distinctAttribute` (no two share it). Both are monotonic: once a device is refused,
adding more cannot help, which lets the search prune."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesched.dra.structured.types import DeviceID
from kubesched.model.dra import Device, DeviceAttribute

_SCALAR_KINDS = ("string", "int", "bool", "version")


def lookup_attribute(device: Device, device_id: DeviceID, name: str) -> DeviceAttribute | None:
    """A fully qualified attribute, or its bare id when the domain is the driver's."""
    found = device.attributes.get(name)
    if found is not None:
        return found
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id.driver:
        return None
    return device.attributes.get(ident)


@dataclass(slots=True)
class _Constraint:
    request_names: frozenset[str]
    attribute_name: str

    def applies(self, request: str, subrequest: str) -> bool:
        if not self.request_names:
            return True
        if not subrequest:
            return request in self.request_names
        return request in self.request_names or f"{request}/{subrequest}" in self.request_names


@dataclass(slots=True)
class MatchAttribute(_Constraint):
    attribute: DeviceAttribute | None = None
    count: int = 0

    def add(self, request: str, subrequest: str, device: Device, device_id: DeviceID) -> bool:
        if not self.applies(request, subrequest):
            return True
        attribute = lookup_attribute(device, device_id, self.attribute_name)
        if attribute is None:
            return False
        if self.count == 0:
            self.attribute, self.count = attribute, 1
            return True
        if attribute.kind not in _SCALAR_KINDS:
            return False
        assert self.attribute is not None
        if self.attribute.kind != attribute.kind or self.attribute.value != attribute.value:
            return False
        self.count += 1
        return True

    def remove(self, request: str, subrequest: str, _device: Device, _device_id: DeviceID) -> None:
        if self.applies(request, subrequest):
            self.count -= 1


@dataclass(slots=True)
class DistinctAttribute(_Constraint):
    attributes: list[DeviceAttribute] = field(default_factory=list)

    def add(self, request: str, subrequest: str, device: Device, device_id: DeviceID) -> bool:
        if not self.applies(request, subrequest):
            return True
        attribute = lookup_attribute(device, device_id, self.attribute_name)
        if attribute is None:
            return False
        if self.attributes and attribute.kind not in _SCALAR_KINDS:
            return False
        for seen in self.attributes:
            if seen.kind == attribute.kind and seen.value == attribute.value:
                return False
        self.attributes.append(attribute)
        return True

    def remove(self, request: str, subrequest: str, _device: Device, _device_id: DeviceID) -> None:
        if self.applies(request, subrequest):
            self.attributes.pop()


Constraint = MatchAttribute | DistinctAttribute
