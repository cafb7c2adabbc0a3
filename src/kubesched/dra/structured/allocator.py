"""The structured-parameters allocator: devices for a pod's claims on one node.

It follows upstream's *incubating* variant (`structured/internal/incubating`, v0.37.2), the
one kube-scheduler v1.37.2 runs with its default feature gates: the stable variant lacks
DRADeviceBindingConditions and DRAConsumableCapacity, and the experimental one is picked only
for alpha gates. The search is the same exhaustive first-fit: claims in order, requests in
order, for each wanted device the pools (driver, pool name), their slices (by name) and the
devices in slice order, with a start position so one request tries combinations, not
permutations; a `firstAvailable` request tries its subrequests in order. Constraints, taints,
counters and capacity are checked as each device is taken and undone on backtracking, so the
first full solution, and each error text, is upstream's.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from kubesched.dra.cel import CelCache, device_variable
from kubesched.dra.structured.pools import Pool, gather_pools
from kubesched.dra.structured.results import build_allocation
from kubesched.dra.structured.search import Search
from kubesched.dra.structured.state import MaxSizeExceeded
from kubesched.dra.structured.types import (
    AllocatedState,
    AllocationError,
    Features,
    NodeAllocationError,
)
from kubesched.model import Node
from kubesched.model.dra import Device, ResourceSlice
from kubesched.model.dra_claims import AllocationResult, ResourceClaim
from kubesched.model.dra_classes import DeviceClass
from kubesched.model.quantity import Quantity

ClassGetter = Callable[[str], DeviceClass | None]
PoolsCache = dict[str, tuple[Node, list[Pool]]]
"""Node name -> (the node object, its pools)."""


class Allocator:
    """Allocates claims on one node at a time; build one per scheduling cycle over the
    cycle's slices, classes and allocated state (upstream `NewAllocator`)."""

    def __init__(
        self,
        *,
        features: Features,
        allocated_state: AllocatedState,
        device_class: ClassGetter,
        slices: Sequence[ResourceSlice],
        cel_cache: CelCache,
        share_id: Callable[[], str] = lambda: str(uuid.uuid4()),
        pools_cache: PoolsCache | None = None,
    ) -> None:
        """`pools_cache`: the pools gathered per node, kept by the caller across allocators
        over the very same `slices` (pools depend only on the node, the slices and the
        features)."""
        unsupported = features.unsupported()
        if unsupported:
            gates = ", ".join(unsupported)
            raise AllocationError(
                f"internal error: no allocator available for feature set with {gates}"
            )
        self.features = features
        self.allocated_state = allocated_state
        self.device_class = device_class
        self.cel_cache = cel_cache
        self.share_id = share_id
        self.pools_cache = pools_cache
        self.all_slices = list(slices)
        self.slices_on_node: dict[str, list[ResourceSlice]] = {}
        self.slices_shared: list[ResourceSlice] = []
        for slice_ in self.all_slices:
            if slice_.node_name:
                self.slices_on_node.setdefault(slice_.node_name, []).append(slice_)
            else:
                self.slices_shared.append(slice_)
        self.available_counters: dict[tuple[str, str], dict[str, dict[str, Quantity]]] = {}
        self.device_inputs: dict[int, tuple[Device, dict[str, Any]]] = {}
        self.num_allocate_one_invocations = 0

    def allocate(
        self, node: Node, claims: Sequence[ResourceClaim], *, deadline: float | None = None
    ) -> list[AllocationResult] | None:
        """One allocation result per claim, or None when the claims do not fit on this node
        (including while a pool is being updated). AllocationError for a fatal problem,
        NodeAllocationError when only this node is to blame."""
        run = _Run(self, node, claims, deadline)
        return run.allocate()

    def device_input(self, device: Device, driver: str) -> dict[str, Any]:
        """The `device` CEL variable of a device, built once per allocator."""
        found = self.device_inputs.get(id(device))
        if found is None or found[0] is not device:
            found = (device, {"device": device_variable(device, driver)})
            self.device_inputs[id(device)] = found
        return found[1]


class _Run(Search):
    """One `Allocate` call."""

    def allocate(self) -> list[AllocationResult] | None:
        self.pools = self._pools()
        min_total = sum(self.check_claim(i, claim) for i, claim in enumerate(self.claims))
        with _recursion_room(min_total + 4 * sum(len(c.requests) + 1 for c in self.claims)):
            try:
                done = self.allocate_one((0, 0, 0), 0, sub=False, start=(0, 0, 0))
            except MaxSizeExceeded:
                raise AllocationError("allocation max size exceeded") from None
        if not done:
            if any(pool.is_invalid for pool in self.pools):
                raise NodeAllocationError("invalid resource pools were encountered")
            return None
        return [
            build_allocation(self, claim_index, claim, self.results[claim_index])
            for claim_index, claim in enumerate(self.claims)
        ]

    def _pools(self) -> list[Pool]:
        cache = self.a.pools_cache
        known = cache.get(self.node.name) if cache is not None else None
        if known is not None and known[0] is self.node:
            return known[1]
        node_slices = [*self.a.slices_on_node.get(self.node.name, ()), *self.a.slices_shared]
        try:
            pools = gather_pools(node_slices, self.node, self.features, self.a.all_slices)
        except AllocationError as exc:
            raise AllocationError(f"gather pool information: {exc}") from None
        if cache is not None:
            cache[self.node.name] = (self.node, pools)
        return pools


@contextmanager
def _recursion_room(depth: int) -> Iterator[None]:
    """The search recurses once per device taken; make room for deep pods."""
    needed = depth * 3 + 200
    current = sys.getrecursionlimit()
    if needed <= current:
        yield
        return
    sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        sys.setrecursionlimit(current)
