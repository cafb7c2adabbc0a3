"""The devices of a DeviceClass on a node and how many are allocated, for the scorers of
NodeResourcesFit and NodeResourcesBalancedAllocation, as upstream's
`calculateDRAResourceTotals` counts them, over the scheduler's shared DRA manager
(`Handle.shared_dra_manager()`) and the DRA library's CEL environment: every slice that
serves the node (its node name, all nodes, its node selector; per device under
perDeviceNodeSelection; whatever its pool's generation), each device the class's CEL
selectors accept, allocated when a claim holds it whole or a share of it, claims in flight
included.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from kubesched.dra.cel import CelCache, DeviceSelectorError, device_variable
from kubesched.dra.cel.values import CelError
from kubesched.dra.structured import AllocatedState, AllocationError, DeviceID, node_matches
from kubesched.errors import KubeschedError
from kubesched.framework import SharedDRAManager
from kubesched.framework.logkv import kv
from kubesched.model import Node
from kubesched.model.dra import Device, ResourceSlice
from kubesched.model.dra_classes import DeviceClass

log = logging.getLogger(__name__)


class _CountError(KubeschedError):
    pass


class SlicesByNode:
    """The slices grouped by the node they name, the others apart; kept while the
    manager's list of slices is the same one."""

    def __init__(self) -> None:
        self._of: object = None
        self._grouped: tuple[dict[str, list[ResourceSlice]], list[ResourceSlice]] = ({}, [])

    def of(
        self, slices: Sequence[ResourceSlice]
    ) -> tuple[dict[str, list[ResourceSlice]], list[ResourceSlice]]:
        if slices is not self._of:
            by_node: dict[str, list[ResourceSlice]] = {}
            others: list[ResourceSlice] = []
            for slice_ in slices:
                named = slice_.node_name and not slice_.all_nodes
                if named and not slice_.per_device_node_selection:
                    by_node.setdefault(slice_.node_name or "", []).append(slice_)
                else:
                    others.append(slice_)
            self._of, self._grouped = slices, (by_node, others)
        return self._grouped


class DeviceCountsView:
    """The slices and allocated devices as one scoring cycle found them."""

    def __init__(
        self, manager: SharedDRAManager, cel_cache: CelCache, slices: SlicesByNode
    ) -> None:
        self._manager = manager
        self._cel = cel_cache
        self._state: AllocatedState = manager.allocated_state()
        self._by_node, self._others = slices.of(manager.slices_with_taint_rules())

    def of_class(self, node: Node, device_class: str) -> tuple[int, int]:
        found = self._manager.device_class(device_class)
        if found is None:
            return 0, 0
        try:
            return self._count(node, found)
        except _CountError as exc:
            log.warning(
                "Failed to calculate DRA resource capacity and allocated",
                extra=kv(node=node.name, deviceClass=device_class, err=exc),
            )
            return 0, 0

    def _count(self, node: Node, device_class: DeviceClass) -> tuple[int, int]:
        total = allocated = 0
        for slice_ in (*self._by_node.get(node.name, ()), *self._others):
            driver, pool = slice_.driver, slice_.pool.name
            for device in self._devices(slice_, node):
                if not self._class_accepts(device_class, device, driver):
                    continue
                total += 1
                if self._state.is_allocated(DeviceID(driver, pool, device.name)):
                    allocated += 1
        return total, allocated

    def _devices(self, slice_: ResourceSlice, node: Node) -> Sequence[Device]:
        """The slice's devices that serve the node (upstream's early filtering)."""
        try:
            if slice_.per_device_node_selection:
                return [
                    device
                    for device in slice_.devices
                    if device.all_nodes
                    or device.node_name == node.name
                    or (
                        device.node_selector is not None
                        and node_matches(
                            node,
                            device.node_name or "",
                            bool(device.all_nodes),
                            device.node_selector,
                        )
                    )
                ]
            if slice_.all_nodes or (not slice_.node_name and slice_.node_selector is None):
                return slice_.devices
            if slice_.node_name:
                return slice_.devices if slice_.node_name == node.name else ()
            assert slice_.node_selector is not None
            return (
                slice_.devices
                if node_matches(node, "", all_nodes=False, selector=slice_.node_selector)
                else ()
            )
        except AllocationError as exc:
            raise _CountError(str(exc)) from None

    def _class_accepts(self, device_class: DeviceClass, device: Device, driver: str) -> bool:
        """All of the class's CEL selectors accept the device; an error fails the count."""
        for selector in device_class.selectors:
            expression = selector.expression
            if expression is None:
                continue
            known = self._cel.known_result(expression, device, driver)
            if known is None:
                compiled = self._cel.get_or_compile(expression)
                if compiled.error is not None:
                    raise _CountError(compiled.error)
                try:
                    known = compiled.matches({"device": device_variable(device, driver)})
                except (DeviceSelectorError, CelError) as exc:
                    raise _CountError(str(exc)) from None
                self._cel.remember(expression, device, driver, known)
            if not known:
                return False
        return True


class DraTotals:
    """Where each scoring cycle's counts come from (upstream `getDRAPreScoredParams`): the
    shared DRA manager, with the compiled selectors, their answers per device and the
    slices grouped by node kept across cycles."""

    def __init__(self, manager: SharedDRAManager) -> None:
        self._manager = manager
        self._cel_cache = CelCache()
        self._slices = SlicesByNode()

    def view(self) -> DeviceCountsView:
        """The slices and allocated devices as they are now (called once per scoring
        cycle that needs them)."""
        return DeviceCountsView(self._manager, self._cel_cache, self._slices)
