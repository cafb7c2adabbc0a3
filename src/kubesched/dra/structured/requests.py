"""The claims checked before the search (upstream's first loop of `Allocate` and
`validateDeviceRequest`): features each request needs, its DeviceClass, how many devices
it wants (for `All`, which ones), the device limit per claim and the constraints."""

from __future__ import annotations

import sys

from kubesched.dra.structured import capacity as cap
from kubesched.dra.structured.constraints import (
    Constraint,
    DistinctAttribute,
    MatchAttribute,
)
from kubesched.dra.structured.selection import Selection
from kubesched.dra.structured.state import (
    Candidate,
    RequestData,
    RequestKey,
    claim_name,
)
from kubesched.dra.structured.types import (
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocationError,
    DeviceID,
)
from kubesched.model.dra import Device
from kubesched.model.dra_claims import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    DeviceRequest,
    DeviceRequestSpec,
    ResourceClaim,
)


class Requests(Selection):
    def check_claim(self, claim_index: int, claim: ResourceClaim) -> int:
        """Records the claim's requests and constraints; returns the fewest devices it needs."""
        name = claim_name(claim)
        min_per_claim = 0
        for request_index, request in enumerate(claim.requests):
            self._check_features(name, request)
            minimum = self._record_request(claim_index, request_index, request, name)
            if minimum > ALLOCATION_RESULTS_MAX_SIZE - min_per_claim:
                raise AllocationError(
                    f"claim {name}, request {request.name}: adding {minimum} devices exceeds the "
                    f"claim limit of {ALLOCATION_RESULTS_MAX_SIZE}, with {min_per_claim} already "
                    "accounted for"
                )
            min_per_claim += minimum
        self.constraints[claim_index] = _constraints(claim, name)
        return min_per_claim

    def _check_features(self, name: str, request: DeviceRequest) -> None:
        if request.first_available and not self.features.prioritized_list:
            raise AllocationError(
                f"claim {name}, request {request.name}: has subrequests, but the "
                "DRAPrioritizedList feature is disabled"
            )
        if self.features.consumable_capacity:
            return
        if request.exactly is not None and request.exactly.capacity_requests is not None:
            raise AllocationError(
                f"claim {name}, request {request.name}: has capacity requests, but the "
                "DRAConsumableCapacity feature is disabled"
            )
        for sub in request.first_available:
            if sub.capacity_requests is not None:
                raise AllocationError(
                    f"claim {name}, subrequest {sub.name}: has capacity requests, but the "
                    "DRAConsumableCapacity feature is disabled"
                )

    def _record_request(
        self, claim_index: int, request_index: int, request: DeviceRequest, name: str
    ) -> int:
        if not request.first_available:
            if request.exactly is None:
                raise AllocationError(
                    f"claim {name}, request {request.name}: missing device class name "
                    "(unsupported request type?)"
                )
            data = self._validate((claim_index, request_index, 0), request.exactly, None)
            self.request_data[(claim_index, request_index, 0)] = data
            return data.num_devices
        minimum = sys.maxsize
        for sub_index, sub in enumerate(request.first_available):
            key = (claim_index, request_index, sub_index)
            data = self._validate(key, sub, request.name)
            self.request_data[key] = data
            minimum = min(minimum, data.num_devices)
        return minimum

    def _validate(
        self, key: RequestKey, request: DeviceRequestSpec, parent: str | None
    ) -> RequestData:
        name = claim_name(self.claims[key[0]])
        prefix = f"claim {name}, request {request.name}"
        if request.has_derived_attributes:
            raise AllocationError(
                f"{prefix}: cannot handle request with derived attributes, the feature is disabled"
            )
        for i, selector in enumerate(request.selectors):
            if selector.expression is None:
                raise AllocationError(
                    f"{prefix}, selector #{i}: CEL expression empty (unsupported selector type?)"
                )
        if not self.features.admin_access and request.admin_access is not None:
            raise AllocationError(
                f"{prefix}: admin access is requested, but the feature is disabled"
            )
        if not request.device_class_name:
            raise AllocationError(
                f"{prefix}: missing device class name (unsupported request type?)"
            )
        device_class = self.a.device_class(request.device_class_name)
        if device_class is None:
            raise AllocationError(
                f"{prefix}: could not retrieve device class {request.device_class_name}: "
                f'deviceclass.resource.k8s.io "{request.device_class_name}" not found'
            )
        data = RequestData(request, parent, device_class)
        if request.allocation_mode == ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = request.count
        elif request.allocation_mode == ALLOCATION_MODE_ALL:
            data.all_devices = self._all_devices(key, data, name)
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(f"{prefix}: unsupported count mode {request.allocation_mode}")
        return data

    def _all_devices(self, key: RequestKey, data: RequestData, name: str) -> list[Candidate]:
        """Every selectable device of the node's pools; refuses incomplete or invalid pools."""
        devices = []
        prefix = (
            f"claim {name}, request {data.request.name}: asks for all devices, but resource pool"
        )
        for pool in self.pools:
            if pool.is_incomplete:
                raise AllocationError(f"{prefix} {pool} is currently being updated")
            if pool.is_invalid:
                raise AllocationError(f"{prefix} {pool} is currently invalid")
            for slice_ in pool.slices_targeting_node:
                for index, device in enumerate(slice_.devices):
                    if not self.selectable(key, data, slice_, index):
                        continue
                    if self.features.consumable_capacity and not self._fits_statically(
                        data, device, name
                    ):
                        continue
                    device_id = DeviceID(slice_.driver, slice_.pool.name, device.name)
                    devices.append(Candidate(device_id, device, slice_, pool))
        return devices

    def _fits_statically(self, data: RequestData, device: Device, name: str) -> bool:
        """Its capacity alone (what others consume is checked when taking it), so a device
        that matches but lacks room stays in the list and `All` fails."""
        try:
            return cap.fits(
                {},
                data.request.capacity_requests,
                device.capacity,
                None,
                self.features.fractional_capacity_range,
            )
        except cap.CapacityError as exc:
            raise AllocationError(
                f"claim {name}, request {data.request.name}: checking capacity for device "
                f"{device.name}: {exc}"
            ) from None


def _constraints(claim: ResourceClaim, name: str) -> list[Constraint]:
    out: list[Constraint] = []
    for i, constraint in enumerate(claim.constraints):
        names = frozenset(constraint.requests)
        if constraint.match_attribute is not None:
            out.append(MatchAttribute(names, constraint.match_attribute))
        elif constraint.distinct_attribute is not None:
            out.append(DistinctAttribute(names, constraint.distinct_attribute))
        else:
            raise AllocationError(
                f"claim {name}, constraint #{i}: empty constraint (unsupported constraint type?)"
            )
    return out
