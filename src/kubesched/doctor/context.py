"""`Context`: what every check receives — the API, the target, one wall-clock instant,
and the Leases read once and shared between checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from kubesched.doctor.inventory import SchedulerLease, get_lease, list_scheduler_leases
from kubesched.doctor.target import Target
from kubesched.kube.api import KubeApi


@dataclass(slots=True, kw_only=True)
class Context:
    """The inputs of one doctor run. `now` is fixed for the run so ages agree."""

    api: KubeApi
    target: Target
    now: datetime
    server: str = ""
    _leases: list[SchedulerLease] | None = field(default=None, init=False)
    _own: dict[str, SchedulerLease | None] = field(default_factory=dict, init=False)

    async def scheduler_leases(self) -> list[SchedulerLease]:
        """All scheduler Leases of the cluster (read on first use)."""
        if self._leases is None:
            self._leases = await list_scheduler_leases(self.api)
        return self._leases

    async def lease(self, namespace: str, name: str) -> SchedulerLease | None:
        """One Lease by name (read on first use; None when absent)."""
        key = f"{namespace}/{name}"
        if key not in self._own:
            self._own[key] = await get_lease(self.api, namespace=namespace, name=name)
        return self._own[key]

    async def own_lease(self) -> SchedulerLease | None:
        """The target's Lease, or None when it does not exist."""
        return await self.lease(self.target.lease_namespace, self.target.lease_name)
