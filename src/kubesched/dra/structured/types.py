"""What the structured-parameters allocator takes and gives besides the API objects: device
ids, the allocated state, the feature set and its errors (upstream
`k8s.io/dynamic-resource-allocation/structured`, v0.37.2)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from kubesched.errors import KubeschedError
from kubesched.model.dra_claims import DeviceRequestAllocationResult
from kubesched.model.quantity import Quantity

ALLOCATION_RESULTS_MAX_SIZE = 32
"""`resourceapi.AllocationResultsMaxSize`: devices per claim."""


class DeviceID(NamedTuple):
    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


class SharedDeviceID(NamedTuple):
    """A share of a device that allows multiple allocations (consumable capacity)."""

    driver: str
    pool: str
    device: str
    share_id: str = ""

    @property
    def device_id(self) -> DeviceID:
        return DeviceID(self.driver, self.pool, self.device)


ConsumedCapacity = dict[str, Quantity]
"""Capacity name -> amount consumed."""


class DeviceSet(Protocol):
    """The devices in use: a set, or a view that need not copy one (the manager's)."""

    def __contains__(self, device: object, /) -> bool: ...
    def __iter__(self) -> Iterator[DeviceID]: ...
    def add(self, device: DeviceID, /) -> None: ...
    def discard(self, device: DeviceID, /) -> None: ...


@dataclass(slots=True)
class AllocatedState:
    """Devices in use by claims already allocated or in flight (upstream
    `schedulerapi.AllocatedState`)."""

    allocated_devices: DeviceSet = field(default_factory=set[DeviceID])
    allocated_shared_device_ids: set[SharedDeviceID] = field(default_factory=set)
    aggregated_capacity: dict[DeviceID, ConsumedCapacity] = field(default_factory=dict)
    pool_versions: Mapping[tuple[str, str], int] | None = None
    """kubesched's, for the allocation memo (`memo`): when set, for a pool (driver, pool
    name) outside `changed_pools`, a number that is the same only while the pool's devices
    in `allocated_devices` are (0: none ever were)."""
    changed_pools: AbstractSet[tuple[str, str]] = frozenset()
    """Pools whose allocated devices `pool_versions` does not tell: compare them device by
    device."""

    def is_allocated(self, device: DeviceID) -> bool:
        """Fully allocated, or partly consumed through a share (`IsDeviceAllocated`)."""
        if device in self.allocated_devices or device in self.aggregated_capacity:
            return True
        return any(shared.device_id == device for shared in self.allocated_shared_device_ids)


def add_capacity(into: ConsumedCapacity, added: Mapping[str, Quantity]) -> None:
    for name, amount in added.items():
        current = into.get(name)
        into[name] = amount if current is None else current + amount


@dataclass(frozen=True, slots=True)
class Features:
    """The allocator's optional behaviour; the defaults are kube-scheduler v1.37.2's
    default feature gates (`pkg/features/kube_features.go`)."""

    admin_access: bool = True
    """DRAAdminAccess (GA)."""
    prioritized_list: bool = True
    """DRAPrioritizedList (GA)."""
    partitionable_devices: bool = True
    """DRAPartitionableDevices (beta, on)."""
    device_taints: bool = True
    """DRADeviceTaints (GA)."""
    device_binding_and_status: bool = True
    """DRADeviceBindingConditions (beta, on) and DRAResourceClaimDeviceStatus (GA)."""
    consumable_capacity: bool = True
    """DRAConsumableCapacity (beta, on)."""
    fractional_capacity_range: bool = True
    """DRAFractionalCapacityRange (beta, on)."""
    list_type_attributes: bool = False
    """DRAListTypeAttributes (alpha, off)."""
    optional_node_operations: bool = False
    """DRAOptionalNodeOperations (alpha, off)."""
    derived_attributes: bool = False
    """DRADerivedAttributes (alpha, off)."""
    compatibility_groups: bool = False
    """DRADeviceCompatibilityGroups (alpha, off)."""

    def unsupported(self) -> tuple[str, ...]:
        """The gates on here that the allocator does not implement (upstream's
        experimental variant has them)."""
        gates = (
            ("DRAListTypeAttributes", self.list_type_attributes),
            ("DRAOptionalNodeOperations", self.optional_node_operations),
            ("DRADerivedAttributes", self.derived_attributes),
            ("DRADeviceCompatibilityGroups", self.compatibility_groups),
        )
        return tuple(name for name, on in gates if on)


ALL_FEATURES_OFF = Features(
    admin_access=False,
    prioritized_list=False,
    partitionable_devices=False,
    device_taints=False,
    device_binding_and_status=False,
    consumable_capacity=False,
    fractional_capacity_range=False,
)


class AllocationError(KubeschedError):
    """Allocation cannot proceed on any node (a fatal problem of the input, such as a CEL
    runtime error or an unknown DeviceClass); the scheduler reports it as an error."""


class NodeAllocationError(AllocationError):
    """Allocation failed on this node only (upstream `ErrFailedAllocationOnNode`): the text
    explains why the node is unschedulable."""


def add_allocated_claim(
    state: AllocatedState,
    results: Iterable[DeviceRequestAllocationResult],
    *,
    consumable_capacity: bool = True,
) -> None:
    """Adds the devices of one claim's `status.allocation` (upstream
    `foreachAllocatedDevice`): admin-access results hold no device; a result with a share
    id is a share (with its consumed capacity), any other takes the whole device."""
    for result in results:
        if result.admin_access:
            continue
        device = DeviceID(result.driver, result.pool, result.device)
        if consumable_capacity and result.share_id is not None:
            state.allocated_shared_device_ids.add(SharedDeviceID(*device, result.share_id))
            if result.consumed_capacity is not None:
                add_capacity(
                    state.aggregated_capacity.setdefault(device, {}), result.consumed_capacity
                )
            continue
        state.allocated_devices.add(device)
