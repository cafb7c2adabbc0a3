"""`LeaseLock`: get / create / update of one Lease through the `KubeApi` protocol.

Optimistic concurrency as client-go's LeaseLock: the lock keeps the last Lease object it
read or wrote, and an update sends that object's resourceVersion, so a 409 `Conflict`
means somebody else wrote the Lease since we last looked. Every request is bounded by
`request_timeout` (client-go uses max(1 s, renewDeadline / 2)); a request that does not
answer in time raises `ConnectionFailed`, like any other failure of the API.
"""

from __future__ import annotations

import asyncio
import socket
import uuid
from collections.abc import Awaitable
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ConnectionFailed
from kubesched.leaderelection.record import (
    API_VERSION,
    KIND,
    LeaseRecord,
    lease_path,
    leases_path,
)


def new_identity(hostname: str | None = None) -> str:
    """A unique holder identity, `<hostname>_<uuid4>`, as kube-scheduler builds it."""
    return f"{hostname or socket.gethostname()}_{uuid.uuid4()}"


class LockNotInitializedError(KubeschedError, RuntimeError):
    """`update` was called before `get` or `create` read the Lease."""


class LeaseLock:
    """One Lease used as a leader election lock by the holder `identity`."""

    def __init__(
        self,
        api: KubeApi,
        *,
        namespace: str,
        name: str,
        identity: str,
        scheduler_names: tuple[str, ...],
        request_timeout: float = 5.0,
    ) -> None:
        self._api = api
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self.scheduler_names = tuple(scheduler_names)
        self.request_timeout = request_timeout
        self._lease: dict[str, Any] | None = None

    def describe(self) -> str:
        """`namespace/name`, for logs and messages."""
        return f"{self.namespace}/{self.name}"

    @property
    def resource_version(self) -> str:
        """The resourceVersion of the last Lease read or written ("" before the first)."""
        if self._lease is None:
            return ""
        return str((self._lease.get("metadata") or {}).get("resourceVersion") or "")

    def lease_ref(self) -> dict[str, str]:
        """An object reference to the Lease, for events about it (`regarding`)."""
        metadata = (self._lease or {}).get("metadata") or {}
        ref = {"apiVersion": API_VERSION, "kind": KIND}
        ref |= {"namespace": self.namespace, "name": self.name}
        if metadata.get("uid"):
            ref["uid"] = str(metadata["uid"])
        return ref

    def our_record(self, **fields: Any) -> LeaseRecord:
        """A record naming this lock's scheduler names, with the given spec fields."""
        return LeaseRecord(scheduler_names=self.scheduler_names, **fields)

    async def get(self) -> LeaseRecord:
        """Read the Lease; raises `NotFound` when it does not exist."""
        path = lease_path(self.namespace, self.name)
        lease = await self._bounded(self._api.get(path, timeout=self.request_timeout), path)
        return self._remember(lease)

    async def create(self, record: LeaseRecord) -> LeaseRecord:
        """Create the Lease; raises `AlreadyExists` when another candidate was faster."""
        path = leases_path(self.namespace)
        body = record.new_lease(namespace=self.namespace, name=self.name)
        lease = await self._bounded(self._api.post(path, body, timeout=self.request_timeout), path)
        return self._remember(lease)

    async def update(self, record: LeaseRecord) -> LeaseRecord:
        """Write `record` over the last Lease seen; raises `Conflict` when that is stale."""
        if self._lease is None:
            raise LockNotInitializedError("lease not read yet: call get or create first")
        path = lease_path(self.namespace, self.name)
        body = record.apply_to(self._lease)
        lease = await self._bounded(self._api.put(path, body, timeout=self.request_timeout), path)
        return self._remember(lease)

    def _remember(self, lease: dict[str, Any]) -> LeaseRecord:
        self._lease = lease
        return LeaseRecord.from_lease(lease)

    async def _bounded(self, request: Awaitable[dict[str, Any]], path: str) -> dict[str, Any]:
        """Await `request`, giving up after `request_timeout` even if the client does not."""
        try:
            async with asyncio.timeout(self.request_timeout):
                return await request
        except TimeoutError:
            raise ConnectionFailed(
                f"no answer within {self.request_timeout:g}s", path=path
            ) from None
