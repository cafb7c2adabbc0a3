"""How many devices of a DeviceClass a node has, and how many of them are in use: what
NodeResourcesFit and NodeResourcesBalancedAllocation score for an extended resource that a
DeviceClass backs on a node that does not offer it itself (DRAExtendedResource; upstream
`calculateDRAExtendedResourceAllocatableRequest`, which reads the scheduler's shared DRA
manager).

The counts come from the DynamicResources family, which holds the parsed slices, classes
and allocated devices; this module is only the meeting point, so that the plugin families
stay independent: DynamicResources provides a source when it is imported (the in-tree
registry imports every family), the scorers ask for one. Without DynamicResources' listers
(the plugin disabled in every profile) every count is 0 and the scorers leave the resource
out, as they do for a resource a node lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from kubesched.framework import Handle
from kubesched.model import Node


class DeviceCounts(Protocol):
    """One scoring cycle's view of the devices (slices and allocations as they were when
    it was taken)."""

    def of_class(self, node: Node, device_class: str) -> tuple[int, int]:
        """(devices of `device_class` the node's slices offer, how many are allocated);
        (0, 0) for an unknown class or when a selector cannot be evaluated (logged)."""
        ...


CountsSource = Callable[[], DeviceCounts]
"""Takes a fresh view; called once per scoring cycle that needs one."""

_PROVIDERS: list[Callable[[Handle], CountsSource]] = []


def provide(factory: Callable[[Handle], CountsSource]) -> None:
    """DynamicResources registers how a Handle's counts are taken (the last one wins)."""
    _PROVIDERS[:] = [factory]


def counts_source(handle: Handle) -> CountsSource | None:
    """The source for the scheduler behind `handle`, or None when no family provides one."""
    return _PROVIDERS[-1](handle) if _PROVIDERS else None
