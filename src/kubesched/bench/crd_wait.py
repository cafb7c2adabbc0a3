"""A CustomResourceDefinition installed for a benchmark run and waited for: the API server
serves a new CRD's resource a moment after the create returns (its discovery document lists
the resource once the handler is up), and objects posted before that fail with 404.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
SERVED_TIMEOUT = 60.0
POLL_INTERVAL = 0.2


class CrdSetupError(KubeschedError):
    """A benchmark's CRD could not be installed or was never served."""


async def install_crd(
    client: KubeClient,
    crd: dict[str, Any],
    *,
    group_path: str,
    plural: str,
    timeout: float = SERVED_TIMEOUT,
) -> None:
    """Create `crd` (one already there is kept) and wait until `group_path` (`/apis/<group>/
    <version>`) serves `plural`."""
    try:
        await client.post(CRD_PATH, crd)
    except ApiError as error:
        if error.status != 409:
            raise
    kind = crd["spec"]["names"]["kind"]
    await wait_until_served(client, group_path, plural, what=f"the {kind} CRD", timeout=timeout)


async def wait_until_served(
    client: KubeClient, group_path: str, plural: str, *, what: str, timeout: float = SERVED_TIMEOUT
) -> None:
    """Poll `group_path`'s discovery until it lists `plural`; `CrdSetupError` naming `what`
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not await served(client, group_path, plural):
        if time.monotonic() > deadline:
            raise CrdSetupError(f"{what} was not served within {timeout:g} s")
        await asyncio.sleep(POLL_INTERVAL)


async def served(client: KubeClient, group_path: str, plural: str) -> bool:
    """Whether `group_path`'s discovery document lists `plural` (an error: not yet)."""
    try:
        group = await client.get(group_path, timeout=10)
    except ApiError:
        return False
    return any(r.get("name") == plural for r in group.get("resources") or ())
