"""VolumeBinding's Score (upstream `buildScorerFunction`): per storage class, requested over
capacity as utilization 0..100 through the `shape`, averaged over the classes (rounded)."""

from __future__ import annotations

from collections.abc import Callable

from kubesched.plugins.helper.shape import MAX_UTILIZATION
from kubesched.plugins.volume_binding.matching import PodVolumes


def node_score(shape: Callable[[int], int], volumes: PodVolumes) -> int:
    """Static bindings when there are any, else the provisions with a known capacity."""
    classes: dict[str, list[int]] = {}
    if volumes.static_bindings:
        for volume, claim in volumes.static_bindings:
            used = classes.setdefault(volume.storage_class, [0, 0])
            used[0] += claim.requested_bytes
            used[1] += volume.capacity_bytes
    else:
        for claim, capacity in volumes.provisions:
            if capacity is None:
                continue
            used = classes.setdefault(claim.storage_class, [0, 0])
            used[1] = capacity.capacity_bytes or 0
            used[0] += claim.requested_bytes
    if not classes:
        return 0
    total = sum(_class_score(shape, requested, cap) for requested, cap in classes.values())
    return round_half_away(total / len(classes))


def _class_score(shape: Callable[[int], int], requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return shape(MAX_UTILIZATION)
    return shape(requested * MAX_UTILIZATION // capacity)


def round_half_away(value: float) -> int:
    """Go's `math.Round` (halves away from zero)."""
    return int(value + 0.5) if value >= 0 else -int(-value + 0.5)
