"""An allocation's `status.allocation`: the devices, the configs of their classes and
claim, and the node selector (upstream incubating `Allocate`'s result assembly and
`createNodeSelector`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kubesched.dra.structured.types import (
    AllocationError,
    ConsumedCapacity,
    DeviceID,
)
from kubesched.model.dra import Device, ResourceSlice
from kubesched.model.dra_claims import (
    CONFIG_SOURCE_CLAIM,
    CONFIG_SOURCE_CLASS,
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceRequestAllocationResult,
    DeviceToleration,
    ResourceClaim,
)

if TYPE_CHECKING:
    from kubesched.dra.structured.state import RunState as _Run


@dataclass(frozen=True, slots=True)
class DeviceResult:
    request: str
    """The request's name, or the subrequest's when `parent` is set."""
    parent: str | None
    id: DeviceID
    device: Device
    slice: ResourceSlice
    share_id: str | None = None
    consumed_capacity: ConsumedCapacity | None = None
    admin_access: bool | None = None

    @property
    def request_name(self) -> str:
        return f"{self.parent}/{self.request}" if self.parent is not None else self.request


def _tolerations(claim: ResourceClaim, result: DeviceResult) -> tuple[DeviceToleration, ...]:
    wanted = result.parent if result.parent is not None else result.request
    for request in claim.requests:
        if request.name != wanted:
            continue
        if result.parent is None:
            return request.exactly.tolerations if request.exactly else ()
        for sub in request.first_available:
            if sub.name == result.request:
                return sub.tolerations
    return ()


def build_allocation(
    run: _Run, claim_index: int, claim: ResourceClaim, devices: Sequence[DeviceResult]
) -> AllocationResult:
    binding = run.features.device_binding_and_status
    results = tuple(
        DeviceRequestAllocationResult(
            request=d.request_name,
            driver=d.id.driver,
            pool=d.id.pool,
            device=d.id.device,
            admin_access=d.admin_access,
            tolerations=_tolerations(claim, d),
            binding_conditions=d.device.binding_conditions if binding else None,
            binding_failure_conditions=d.device.binding_failure_conditions if binding else None,
            share_id=d.share_id,
            consumed_capacity=dict(d.consumed_capacity) if d.consumed_capacity else None,
        )
        for d in devices
    )
    configs = _class_configs(run, claim_index, claim) + _claim_configs(run, claim_index, claim)
    configs = [_all_requests_cleared(run, claim_index, claim, c) for c in configs]
    try:
        selector = node_selector(devices, run.node.name)
    except AllocationError as exc:
        raise AllocationError(f"create NodeSelector for claim {claim.name}: {exc}") from None
    return AllocationResult(results=results, config=tuple(configs), node_selector=selector)


def _selected(run: _Run, claim_index: int, request_index: int) -> Any:
    data = run.request_data[(claim_index, request_index, 0)]
    if data.parent is not None:
        data = run.request_data[(claim_index, request_index, data.selected_subrequest)]
    return data


def _class_configs(
    run: _Run, claim_index: int, claim: ResourceClaim
) -> list[DeviceAllocationConfiguration]:
    out: list[DeviceAllocationConfiguration] = []
    ranges: dict[str, tuple[int, int]] = {}
    for request_index in range(len(claim.requests)):
        data = _selected(run, claim_index, request_index)
        device_class = data.device_class
        if device_class is None:
            continue
        if device_class.name in ranges:
            start, end = ranges[device_class.name]
            for i in range(start, end):
                c = out[i]
                out[i] = DeviceAllocationConfiguration(c.source, (*c.requests, data.name), c.config)
            continue
        start = len(out)
        out.extend(
            DeviceAllocationConfiguration(CONFIG_SOURCE_CLASS, (data.name,), config)
            for config in device_class.config
        )
        ranges[device_class.name] = (start, len(out))
    return out


def _selected_subrequest_name(
    run: _Run, claim_index: int, request_index: int, claim: ResourceClaim
) -> str | None:
    data = run.request_data[(claim_index, request_index, 0)]
    if data.parent is None:
        return None
    request = claim.requests[request_index]
    return f"{request.name}/{request.first_available[data.selected_subrequest].name}"


def _claim_configs(
    run: _Run, claim_index: int, claim: ResourceClaim
) -> list[DeviceAllocationConfiguration]:
    out = []
    for entry in claim.config:
        if not entry.requests:
            out.append(DeviceAllocationConfiguration(CONFIG_SOURCE_CLAIM, (), entry.config))
            continue
        for request_index, request in enumerate(claim.requests):
            sub_name = _selected_subrequest_name(run, claim_index, request_index, claim)
            if request.name in entry.requests or (
                sub_name is not None and sub_name in entry.requests
            ):
                out.append(
                    DeviceAllocationConfiguration(CONFIG_SOURCE_CLAIM, entry.requests, entry.config)
                )
                break
    return out


def _all_requests_cleared(
    run: _Run, claim_index: int, claim: ResourceClaim, config: DeviceAllocationConfiguration
) -> DeviceAllocationConfiguration:
    """A config naming every request applies to all: its requests are dropped."""
    if not config.requests:
        return config
    for request_index, request in enumerate(claim.requests):
        if request.name in config.requests:
            continue
        sub_name = _selected_subrequest_name(run, claim_index, request_index, claim)
        if sub_name is not None and sub_name in config.requests:
            continue
        return config
    return DeviceAllocationConfiguration(config.source, (), config.config)


def node_selector(devices: Sequence[DeviceResult], node_name: str) -> Mapping[str, Any] | None:
    """The node selector of an allocation: the node itself when a device is local to it
    (or binds to it), else the union of the slices' selector requirements, else None."""
    fields: list[Mapping[str, Any]] = []
    expressions: list[Mapping[str, Any]] = []
    for d in devices:
        if d.slice.per_device_node_selection:
            name, selector = d.device.node_name, d.device.node_selector
        else:
            name, selector = d.slice.node_name, d.slice.node_selector
        if name is not None or d.device.binds_to_node:
            return {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": [node_name]}
                        ]
                    }
                ]
            }
        if selector is None:
            continue
        terms = selector.get("nodeSelectorTerms") or []
        if len(terms) == 1:
            _add_new(terms[0].get("matchFields") or (), fields)
            _add_new(terms[0].get("matchExpressions") or (), expressions)
        elif len(terms) > 1:
            raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
    if not fields and not expressions:
        return None
    term: dict[str, Any] = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


def _add_new(requirements: Sequence[Mapping[str, Any]], into: list[Mapping[str, Any]]) -> None:
    for requirement in requirements:
        values = set(requirement.get("values") or ())
        if not any(
            existing.get("key") == requirement.get("key")
            and existing.get("operator") == requirement.get("operator")
            and set(existing.get("values") or ()) == values
            for existing in into
        ):
            into.append(requirement)
