"""Paged lists for doctor's checks (the shared helper, with doctor's request timeout)."""

from __future__ import annotations

from typing import Any

from kubesched.kube.api import KubeApi
from kubesched.kube.paging import list_all as _list_all

REQUEST_TIMEOUT_SECONDS = 15.0


async def list_all(
    api: KubeApi, path: str, *, params: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Every item of the collection at `path`, following `metadata.continue`."""
    return await _list_all(api, path, params=params, timeout=REQUEST_TIMEOUT_SECONDS)
