"""DeviceTaintRules applied to ResourceSlices (upstream `resourceslice/tracker`
`applyPatches`): each rule's taint is appended to the taints of every device its selector
names (driver, pool, device; an unset field matches any, a rule without a selector none).
The allocator then treats those taints as the devices' own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kubesched.model.dra import ResourceSlice
from kubesched.model.dra_classes import DeviceTaintRule


def apply_taint_rules(slice_: ResourceSlice, rules: Sequence[DeviceTaintRule]) -> ResourceSlice:
    """The slice with the rules' taints added (the same object when none applies)."""
    devices = list(slice_.devices)
    changed = False
    for rule in rules:
        if not rule.has_selector:
            continue
        if rule.driver is not None and rule.driver != slice_.driver:
            continue
        if rule.pool is not None and rule.pool != slice_.pool.name:
            continue
        for index, device in enumerate(devices):
            if rule.device is not None and rule.device != device.name:
                continue
            devices[index] = replace(device, taints=(*device.taints, rule.taint))
            changed = True
    return replace(slice_, devices=tuple(devices)) if changed else slice_


def patched_slices(
    slices: Sequence[ResourceSlice], rules: Sequence[DeviceTaintRule]
) -> list[ResourceSlice]:
    """Every slice with the DeviceTaintRules applied (DRADeviceTaintRules)."""
    if not rules:
        return list(slices)
    return [apply_taint_rules(s, rules) for s in slices]
