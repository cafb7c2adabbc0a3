"""Consumable capacity (DRAConsumableCapacity, DRAFractionalCapacityRange): what a request
consumes of a device's capacities under their request policies, and whether it still fits
(upstream incubating `consumable_capacity.go`).

A missing request takes the policy's default (else the whole capacity); a request below a
range's minimum rounds up to it, then up to the next step; with valid values, up to the
next valid value. A rounded value outside the policy, or beyond what remains, does not fit.
Steps of whole units use integer arithmetic, fractional ones (100m) milli-units.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from kubesched.dra.structured.types import ConsumedCapacity
from kubesched.errors import KubeschedError
from kubesched.model.dra import CapacityRequestPolicy, DeviceCapacity
from kubesched.model.quantity import INT64_MAX, Quantity

NOT_REPRESENTABLE = "capacity request cannot be represented in the device's range arithmetic"
NEGATIVE = "capacity value is negative"


class CapacityError(KubeschedError):
    """A request that cannot be represented (fatal for the allocation)."""


def fits(
    current: Mapping[str, Quantity],
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    allocating: Mapping[str, Quantity] | None,
    fractional: bool,
) -> bool:
    """upstream `CmpRequestOverCapacity`; CapacityError for an unrepresentable request."""
    if requests and any(name not in capacity for name in requests):
        return False
    consumed: dict[str, Quantity] = {}
    for name, cap in capacity.items():
        try:
            amount = consumed_amount(requests.get(name) if requests else None, cap, fractional)
        except CapacityError as exc:
            raise CapacityError(f'capacity "{name}": {exc}') from None
        if amount.sign() < 0:
            raise CapacityError(f'capacity "{name}": {NEGATIVE}')
        consumed[name] = amount
    for name, cap in capacity.items():
        amount = consumed[name]
        if violates_policy(amount, cap.request_policy, fractional):
            return False
        total = amount.value + (current[name].value if name in current else 0)
        if allocating and name in allocating:
            total += allocating[name].value
        if total > cap.value.value:
            return False
    return True


def consumed_capacity(
    requests: Mapping[str, Quantity] | None,
    capacity: Mapping[str, DeviceCapacity],
    fractional: bool,
) -> ConsumedCapacity:
    """upstream `GetConsumedCapacityFromRequest`."""
    out: ConsumedCapacity = {}
    for name, cap in capacity.items():
        try:
            out[name] = consumed_amount(requests.get(name) if requests else None, cap, fractional)
        except CapacityError as exc:
            raise CapacityError(f'capacity "{name}": {exc}') from None
    return out


def consumed_amount(requested: Quantity | None, cap: DeviceCapacity, fractional: bool) -> Quantity:
    policy = cap.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    if policy.valid_range_set and policy.min is not None:
        return _round_up_range(requested, policy, fractional)
    if policy.valid_values_set:
        return next((v for v in policy.valid_values if requested.value <= v.value), requested)
    return requested


def _milli(q: Quantity) -> int | None:
    """`safeMilliValue`: the value in milli-units when that is exact."""
    milli = q.milli_value()
    return milli if Decimal(milli) / 1000 == q.value else None


def _use_milli(policy: CapacityRequestPolicy, fractional: bool) -> bool:
    if not fractional:
        return False
    for q in (policy.min, policy.max, policy.step):
        if q is not None and _milli(q) is None:
            return False
    step = _milli(policy.step) if policy.step is not None else None
    return not (step is not None and step < 1)


def _round_up_range(
    requested: Quantity, policy: CapacityRequestPolicy, fractional: bool
) -> Quantity:
    assert policy.min is not None
    if requested.value < policy.min.value:
        return policy.min
    step = policy.step
    if step is None:
        return requested
    if _use_milli(policy, fractional):
        requested_milli = _milli(requested)
        if requested_milli is None:
            raise CapacityError(
                f"{NOT_REPRESENTABLE}: request {requested} is not a representable milli value"
            )
        step_milli, min_milli = step.milli_value(), policy.min.milli_value()
        n = _ceil_div(requested_milli - min_milli, step_milli)
        if n > (INT64_MAX - min_milli) // step_milli:
            raise CapacityError(
                f"{NOT_REPRESENTABLE}: rounding request {requested} up to the next step passes "
                "the milli-value range"
            )
        value = min_milli + step_milli * n
        return Quantity(Decimal(value) / 1000, step.format)
    if requested.value > INT64_MAX:
        raise CapacityError(f"{NOT_REPRESENTABLE}: request {requested} exceeds MaxInt64")
    step_int, min_int = step.int_value(), policy.min.int_value()
    n = _ceil_div(requested.int_value() - min_int, step_int)
    if min_int >= 0 and n > (INT64_MAX - min_int) // step_int:
        raise CapacityError(
            f"{NOT_REPRESENTABLE}: rounding request {requested} up to the next step passes MaxInt64"
        )
    return Quantity(min_int + step_int * n, step.format)


def _ceil_div(added: int, step: int) -> int:
    """Go's `added/step`, plus one when a remainder is left."""
    return _go_div(added, step) + (1 if _go_mod(added, step) != 0 else 0)


def _go_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _go_mod(a: int, b: int) -> int:
    return a - _go_div(a, b) * b


def violates_policy(
    requested: Quantity, policy: CapacityRequestPolicy | None, fractional: bool
) -> bool:
    if policy is None or (policy.default is not None and requested.value == policy.default.value):
        return False
    if policy.valid_range_set:
        return _outside_range(requested, policy, fractional)
    if policy.valid_values:
        return not any(requested.value == v.value for v in policy.valid_values)
    return False


def _outside_range(requested: Quantity, policy: CapacityRequestPolicy, fractional: bool) -> bool:
    """Above the maximum, or not a whole number of steps from the minimum."""
    if policy.max is not None and requested.value > policy.max.value:
        return True
    if policy.step is None:
        return False
    minimum = policy.min or Quantity(0)
    if _use_milli(policy, fractional):
        milli = _milli(requested)
        return (
            milli is None or _go_mod(milli - minimum.milli_value(), policy.step.milli_value()) != 0
        )
    return _go_mod(requested.int_value() - minimum.int_value(), policy.step.int_value()) != 0
