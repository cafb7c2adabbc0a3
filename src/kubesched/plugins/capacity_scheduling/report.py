"""What CapacityScheduling can tell about each quota, for metrics and `kubesched explain`:
used, min, max, borrowed (used beyond `min`) and, with a quota tree, the runtime share.

Plain data, no Prometheus: `kubesched.scheduler.quota_metrics` turns the rows into the
`kubesched_elastic_quota_resource` family at scrape time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kubesched.model import Resource
from kubesched.model.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from kubesched.plugins.capacity_scheduling.quota import UPPER_BOUND_OF_MAX, QuotaInfo

USED, MIN, MAX, BORROWED, RUNTIME = "used", "min", "max", "borrowed", "runtime"
KINDS = (USED, MIN, MAX, BORROWED, RUNTIME)


def _bounded_max(info: QuotaInfo, name: str) -> int | None:
    """`max` of one resource, None when the quota leaves it unlimited."""
    scalar = name not in (CPU, MEMORY, EPHEMERAL_STORAGE)
    if scalar and name not in info.max.scalar:
        return None
    amount = info.max.get(name)
    return None if amount >= UPPER_BOUND_OF_MAX else amount


@dataclass(frozen=True, slots=True)
class QuotaRow:
    """One namespace's ElasticQuota as the plugin holds it now."""

    name: str
    namespace: str
    info: QuotaInfo
    runtime: Resource | None = None
    """The runtime share (quota trees only)."""

    def names(self) -> list[str]:
        """The resources the quota names or its pods use."""
        named = {*self.info.used.names(), *self.info.min.names(), *self.info.max.names()}
        if self.runtime is not None:
            named.update(self.runtime.names())
        return sorted(named)

    def amount(self, kind: str, name: str) -> int | None:
        """One value (cpu in millicores); None for an unlimited `max` or no runtime share."""
        info = self.info
        if kind == USED:
            return info.used.get(name)
        if kind == MIN:
            return info.min.get(name)
        if kind == MAX:
            return _bounded_max(info, name)
        if kind == BORROWED:
            return max(0, info.used.get(name) - info.min.get(name))
        return None if self.runtime is None else self.runtime.get(name)

    def amounts(self) -> Iterator[tuple[str, str, int]]:
        """(resource, kind, amount) for every value there is."""
        for name in self.names():
            for kind in KINDS:
                amount = self.amount(kind, name)
                if amount is not None:
                    yield name, kind, amount
