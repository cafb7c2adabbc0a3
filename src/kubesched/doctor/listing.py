"""Paged lists (`limit` + `continue`) so a large cluster is read in bounded pieces."""

from __future__ import annotations

from typing import Any

from kubesched.kube.api import KubeApi

PAGE_SIZE = 500
REQUEST_TIMEOUT_SECONDS = 15.0


async def list_all(
    api: KubeApi, path: str, *, params: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Every item of the collection at `path`, following `metadata.continue`."""
    items: list[dict[str, Any]] = []
    query = {**(params or {}), "limit": str(PAGE_SIZE)}
    while True:
        page = await api.get(path, params=query, timeout=REQUEST_TIMEOUT_SECONDS)
        items.extend(page.get("items") or [])
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return items
        query = {**query, "continue": str(token)}
