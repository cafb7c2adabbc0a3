"""Structured-parameters allocation of DRA devices (upstream
`k8s.io/dynamic-resource-allocation/structured`, the incubating variant)."""

from kubesched.dra.structured.allocator import Allocator
from kubesched.dra.structured.pools import (
    NodePredicate,
    compile_node_selector,
    node_matches,
)
from kubesched.dra.structured.taint_rules import (
    apply_taint_rules,
    patched_slices,
)
from kubesched.dra.structured.types import (
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocatedState,
    AllocationError,
    DeviceID,
    Features,
    NodeAllocationError,
    SharedDeviceID,
    add_allocated_claim,
)

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "AllocatedState",
    "AllocationError",
    "Allocator",
    "DeviceID",
    "Features",
    "NodeAllocationError",
    "NodePredicate",
    "SharedDeviceID",
    "add_allocated_claim",
    "apply_taint_rules",
    "compile_node_selector",
    "node_matches",
    "patched_slices",
]
