"""Create many API objects as fast as the API server accepts them (bounded concurrency),
or at a fixed rate; transient failures (connection, 429, 5xx) are retried."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kubesched.kube.client import KubeClient
from kubesched.kube.errors import AlreadyExists, ApiError, ConnectionFailed, TooManyRequests

RETRIES = 5


async def create_one(client: KubeClient, path: str, body: dict[str, Any]) -> None:
    """POST `body` to `path`; an object that already exists (a retried create) is fine."""
    for attempt in range(RETRIES):
        try:
            await client.post(path, body, timeout=60)
        except AlreadyExists:
            return
        except ApiError as exc:
            if not _transient(exc) or attempt == RETRIES - 1:
                raise
            await asyncio.sleep(0.2 * 2**attempt)
        else:
            return


def _transient(exc: ApiError) -> bool:
    return isinstance(exc, ConnectionFailed | TooManyRequests) or exc.status >= 500


async def create_all(
    client: KubeClient,
    items: Iterable[tuple[str, dict[str, Any]]],
    *,
    concurrency: int,
    rate: float = 0.0,
    at: Sequence[float] = (),
    on_created: Callable[[], None] | None = None,
) -> None:
    """Create every `(path, body)`; at most `concurrency` at once, at most `rate` per second
    when `rate` > 0, else the i-th not before `at[i]` seconds after the start when `at` is
    given. The first error that is not transient is raised."""
    iterator = iter(items)
    started = time.monotonic()
    issued = 0

    async def worker() -> None:
        nonlocal issued
        for path, body in iterator:
            if rate > 0 or issued < len(at):
                due = started + (issued / rate if rate > 0 else at[issued])
                issued += 1
                delay = due - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            await create_one(client, path, body)
            if on_created is not None:
                on_created()

    async with asyncio.TaskGroup() as group:
        for _ in range(max(concurrency, 1)):
            group.create_task(worker())
