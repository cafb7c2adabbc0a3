"""Paged lists (`limit` + `continue`), so a large collection is read in bounded pieces.

Used by the one-shot readers (`doctor`, `explain`, the benchmark's checks); the informers
page their own initial list because they also keep its resourceVersion.
"""

from __future__ import annotations

from typing import Any, Protocol

PAGE_SIZE = 500


class Getter(Protocol):
    """The one call a paged list needs (any `KubeApi`, or a read-only wrapper of one)."""

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]: ...


async def list_all(
    api: Getter,
    path: str,
    *,
    params: dict[str, str] | None = None,
    timeout: float | None = None,
    page_size: int = PAGE_SIZE,
) -> list[dict[str, Any]]:
    """Every item of the collection at `path`, following `metadata.continue`."""
    items: list[dict[str, Any]] = []
    query = {**(params or {}), "limit": str(page_size)}
    while True:
        page = await api.get(path, params=query, timeout=timeout)
        items.extend(page.get("items") or [])
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return items
        query = {**query, "continue": str(token)}
