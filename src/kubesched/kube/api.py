"""The request surface every other layer uses to reach the API server.

`KubeApi` is a Protocol so leader election, events and the binder can be tested against
an in-memory fake; `kubesched.kube.client.KubeClient` is the real implementation.
Paths are API paths such as `/api/v1/namespaces/ns/pods/p/binding`; bodies are raw JSON
dicts. Every call has a timeout (the client's default when `timeout` is None) and raises
`kubesched.kube.errors.ApiError` (or a subclass) on failure.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
MERGE_PATCH = "application/merge-patch+json"


class KubeApi(Protocol):
    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]: ...

    async def post(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]: ...

    async def put(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]: ...

    async def patch(
        self,
        path: str,
        body: dict[str, Any] | list[Any],
        *,
        content_type: str = STRATEGIC_MERGE_PATCH,
        timeout: float | None = None,
    ) -> dict[str, Any]: ...

    async def delete(
        self, path: str, *, body: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]: ...


class WatchApi(KubeApi, Protocol):
    """A KubeApi that can also stream a watch (see `KubeClient.watch`)."""

    def watch(
        self, path: str, *, params: dict[str, str], inactivity_timeout: float
    ) -> AsyncIterator[dict[str, Any]]: ...
