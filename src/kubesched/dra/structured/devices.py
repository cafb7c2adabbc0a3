"""Taking one device for a request (upstream `allocateDevice` and its rollback): it must
be free (or shareable), tolerate its taints, fit the claim's constraints, the pool's
shared counters and, for consumable capacity, what is left of its capacity. Each change
is recorded so backtracking undoes it in reverse order."""

from __future__ import annotations

from collections.abc import Callable

from kubesched.dra.structured import capacity as cap
from kubesched.dra.structured.pools import Pool
from kubesched.dra.structured.requests import Requests
from kubesched.dra.structured.results import DeviceResult
from kubesched.dra.structured.state import (
    Candidate,
    RequestData,
    RequestKey,
    Undo,
    claim_name,
)
from kubesched.dra.structured.types import (
    AllocationError,
    ConsumedCapacity,
    DeviceID,
    add_capacity,
)
from kubesched.model.dra import Device, DeviceTaint
from kubesched.model.dra_claims import DeviceRequestSpec, DeviceToleration, ResourceClaim
from kubesched.model.node import DO_NOT_SCHEDULE_EFFECTS
from kubesched.model.quantity import Quantity

TAINT_EFFECTS_PREVENTING_ALLOCATION = DO_NOT_SCHEDULE_EFFECTS
"""A device taint with one of these effects keeps the device from being allocated."""


class Devices(Requests):
    def in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.a.allocated_state.allocated_devices or bool(
            self.allocating.get(device_id)
        )

    def _capacity_in_use(self, device_id: DeviceID) -> bool:
        state = self.a.allocated_state
        if device_id in state.aggregated_capacity or device_id in self.allocating_capacity:
            return True
        return any(s.device_id == device_id for s in state.allocated_shared_device_ids)

    def fits_remaining(
        self, data: RequestData, device: Device, device_id: DeviceID, claim: ResourceClaim
    ) -> bool:
        """The request's capacity on top of what allocated and in-flight shares consume."""
        try:
            return cap.fits(
                self.a.allocated_state.aggregated_capacity.get(device_id, {}),
                data.request.capacity_requests,
                device.capacity,
                self.allocating_capacity.get(device_id),
                self.features.fractional_capacity_range,
            )
        except cap.CapacityError as exc:
            raise AllocationError(
                f"claim {claim_name(claim)}, request {data.request.name}: checking capacity for "
                f"device {device_id}: {exc}"
            ) from None

    def allocate_device(self, key: RequestKey, candidate: Candidate, *, must: bool) -> Undo | None:
        """Takes the device if it is free and every check passes: returns the undo, or
        None (with nothing changed) when it cannot be taken. With `must` (All mode), a
        violated constraint is an error: such a claim can never be allocated."""
        data = self.request_data[key]
        multiple = self.features.consumable_capacity and bool(
            candidate.device.allow_multiple_allocations
        )
        if not self._free(key[0], data.request, candidate, multiple):
            return None
        undo: list[Undo] = []

        def rollback() -> None:
            while undo:
                undo.pop()()

        try:
            if not self._take(key, data, candidate, multiple, undo, must=must):
                rollback()
                return None
        except BaseException:
            rollback()
            raise
        return rollback

    def _free(
        self, claim_index: int, request: DeviceRequestSpec, candidate: Candidate, multiple: bool
    ) -> bool:
        device_id, admin = candidate.id, bool(request.admin_access)
        if not multiple and admin and claim_index in self.allocating.get(device_id, ()):
            return False
        if not admin and self.in_use(device_id):
            return False
        return self.features.partitionable_devices or not candidate.device.consumes_counters

    def _take(
        self,
        key: RequestKey,
        data: RequestData,
        candidate: Candidate,
        multiple: bool,
        undo: list[Undo],
        *,
        must: bool,
    ) -> bool:
        claim_index, device, device_id = key[0], candidate.device, candidate.id
        if device.consumes_counters and not (multiple and self._capacity_in_use(device_id)):
            if not self._take_counters(candidate):
                return False
            undo.append(lambda: self._release_counters(candidate))
        if self.features.device_taints and taint_prevents_allocation(device, data.request):
            return False
        if not self._add_to_constraints(key, data, candidate, undo, must=must):
            return False
        if not multiple:
            self.allocating.setdefault(device_id, set()).add(claim_index)
            undo.append(lambda: self.allocating[device_id].discard(claim_index))
        consumed: ConsumedCapacity = {}
        share_id: str | None = None
        if self.features.consumable_capacity:
            if not self._recheck_capacity(data, candidate, self.claims[claim_index]):
                return False
            if multiple:
                consumed = self._consume_capacity(key, data, candidate, undo)
                share_id = self.a.share_id()
        results = self.results[claim_index]
        results.append(
            DeviceResult(
                request=data.request.name,
                parent=data.parent,
                id=device_id,
                device=device,
                slice=candidate.slice,
                share_id=share_id,
                consumed_capacity=consumed or None,
                admin_access=True if data.request.admin_access else None,
            )
        )
        undo.append(lambda: _drop_last(results))
        return True

    def _add_to_constraints(
        self,
        key: RequestKey,
        data: RequestData,
        candidate: Candidate,
        undo: list[Undo],
        *,
        must: bool,
    ) -> bool:
        base = data.parent if data.parent is not None else data.request.name
        sub = data.request.name if data.parent is not None else ""
        device, device_id = candidate.device, candidate.id
        for constraint in self.constraints[key[0]]:
            if not constraint.add(base, sub, device, device_id):
                if must:
                    raise AllocationError(
                        f"claim {claim_name(self.claims[key[0]])}, request {data.request.name}: "
                        f"cannot add device {device_id} because a claim constraint would not be "
                        "satisfied"
                    )
                return False
            undo.append(_remover(constraint.remove, base, sub, device, device_id))
        return True

    def _recheck_capacity(
        self, data: RequestData, candidate: Candidate, claim: ResourceClaim
    ) -> bool:
        try:
            return self.fits_remaining(data, candidate.device, candidate.id, claim)
        except AllocationError as exc:
            raise AllocationError(
                str(exc).replace("checking capacity", "rechecking capacity", 1)
            ) from None

    def _consume_capacity(
        self, key: RequestKey, data: RequestData, candidate: Candidate, undo: list[Undo]
    ) -> ConsumedCapacity:
        device_id = candidate.id
        try:
            consumed = cap.consumed_capacity(
                data.request.capacity_requests,
                candidate.device.capacity,
                self.features.fractional_capacity_range,
            )
        except cap.CapacityError as exc:
            raise AllocationError(
                f"claim {claim_name(self.claims[key[0]])}, request {data.request.name}: computing "
                f"consumed capacity for device {device_id}: {exc}"
            ) from None
        existed = device_id in self.allocating_capacity
        add_capacity(self.allocating_capacity.setdefault(device_id, {}), consumed)
        undo.append(lambda: self._release_capacity(device_id, consumed, existed=existed))
        return consumed

    def _release_capacity(
        self, device_id: DeviceID, consumed: ConsumedCapacity, *, existed: bool
    ) -> None:
        """upstream `ConsumedCapacityCollection.Remove`; an entry that another share made
        stays (it marks the device as shared)."""
        entry = self.allocating_capacity.get(device_id)
        if entry is None:
            return
        for name, amount in consumed.items():
            if name in entry:
                entry[name] -= amount
        if all(q.value == 0 for q in entry.values()):
            del self.allocating_capacity[device_id]
            if existed:
                self.allocating_capacity[device_id] = {}

    # --- shared counters (partitionable devices) --------------------------------------

    def _take_counters(self, candidate: Candidate) -> bool:
        pool = candidate.pool
        available = self.a.available_counters.get(pool.id)
        if available is None:
            available = self.a.available_counters[pool.id] = self._pool_counters(pool)
        consumed = self.consumed_counters.setdefault(pool.id, {})
        for consumption in candidate.device.consumes_counters:
            counters = consumed.setdefault(consumption.counter_set, {})
            for name, amount in consumption.counters.items():
                counters[name] = counters[name] + amount if name in counters else amount
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for name, amount in counters.items():
                if amount.value < (used[name].value if name in used else 0):
                    self._release_counters(candidate)
                    return False
        return True

    def _pool_counters(self, pool: Pool) -> dict[str, dict[str, Quantity]]:
        """The pool's counters less what its allocated devices consume (negative allowed)."""
        available = {name: dict(cs.counters) for name, cs in pool.counter_sets.items()}
        for slice_ in (*pool.slices_targeting_node, *pool.slices_not_targeting_node):
            for device in slice_.devices:
                device_id = DeviceID(slice_.driver, slice_.pool.name, device.name)
                if not self.a.allocated_state.is_allocated(device_id):
                    continue
                for consumption in device.consumes_counters:
                    counters = available.get(consumption.counter_set, {})
                    for name, amount in consumption.counters.items():
                        if name in counters:
                            counters[name] -= amount
        return available

    def _release_counters(self, candidate: Candidate) -> None:
        consumed = self.consumed_counters.get(candidate.pool.id, {})
        for consumption in candidate.device.consumes_counters:
            counters = consumed.get(consumption.counter_set, {})
            for name, amount in consumption.counters.items():
                if name in counters:
                    counters[name] -= amount


def _drop_last(results: list[DeviceResult]) -> None:
    results.pop()


def _remover(
    remove: Callable[[str, str, Device, DeviceID], None],
    base: str,
    sub: str,
    device: Device,
    device_id: DeviceID,
) -> Undo:
    return lambda: remove(base, sub, device, device_id)


def taint_prevents_allocation(device: Device, request: DeviceRequestSpec) -> bool:
    """A NoSchedule or NoExecute taint that no toleration of the request tolerates (other
    effects, None included, are ignored)."""
    return any(
        taint.effect in TAINT_EFFECTS_PREVENTING_ALLOCATION
        and not any(tolerates(t, taint) for t in request.tolerations)
        for taint in device.taints
    )


def tolerates(toleration: DeviceToleration, taint: DeviceTaint) -> bool:
    """upstream `resourceclaim.ToleratesTaint`."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"
