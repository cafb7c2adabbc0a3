"""Whether a device is selectable for a request: its class's and the request's CEL
selectors, and per-device node selection (upstream `isSelectable`, `selectorsMatch`).
The answer is cached per device and request for the call."""

from __future__ import annotations

from typing import Any

from kubesched.dra.cel import DeviceSelectorError, enhance_runtime_error
from kubesched.dra.structured.pools import node_matches
from kubesched.dra.structured.state import (
    RequestData,
    RequestKey,
    RunState,
    claim_name,
)
from kubesched.dra.structured.types import AllocationError, DeviceID
from kubesched.model.dra import Device, DeviceSelector, ResourceSlice


class Selection(RunState):
    def selectable(
        self, key: RequestKey, data: RequestData, slice_: ResourceSlice, index: int
    ) -> bool:
        device = slice_.devices[index]
        if not self.features.device_binding_and_status and device.binding_conditions:
            return False
        device_id = DeviceID(slice_.driver, slice_.pool.name, device.name)
        match_key = (device_id, *key)
        cached = self.match_cache.get(match_key)
        if cached is not None:
            return cached
        result = True
        if data.device_class is not None:
            owner = f"class {data.device_class.name}"
            result = self._match(device, device_id, data.device_class.selectors, owner)
        if result:
            owner = f"claim {claim_name(self.claims[key[0]])}"
            result = self._match(device, device_id, data.request.selectors, owner)
        if result and slice_.per_device_node_selection:
            result = node_matches(
                self.node, device.node_name or "", bool(device.all_nodes), device.node_selector
            )
        self.match_cache[match_key] = result
        return result

    def _match(
        self, device: Device, device_id: DeviceID, selectors: tuple[DeviceSelector, ...], owner: str
    ) -> bool:
        cache = self.a.cel_cache
        for i, selector in enumerate(selectors):
            expression = selector.expression or ""
            matched = cache.known_result(expression, device, device_id.driver)
            if matched is None:
                matched = self._evaluate(device, device_id, expression, i, owner)
                cache.remember(expression, device, device_id.driver, matched)
            if not matched:
                return False
        return True

    def _evaluate(
        self, device: Device, device_id: DeviceID, expression: str, index: int, owner: str
    ) -> bool:
        compiled = self.a.cel_cache.get_or_compile(expression)
        if compiled.error is not None:
            raise AllocationError(
                f"{owner}: selector #{index}: CEL compile error: {compiled.error}"
            )
        try:
            return compiled.matches(self._input(device, device_id), deadline=self.deadline)
        except DeviceSelectorError as exc:
            raise AllocationError(
                f"{owner}: selector #{index} on device {device_id}: CEL runtime error: "
                f"{enhance_runtime_error(str(exc))}"
            ) from None

    def _input(self, device: Device, device_id: DeviceID) -> dict[str, Any]:
        try:
            return self.device_input(device, device_id.driver)
        except Exception as exc:
            raise DeviceSelectorError(str(exc)) from None
