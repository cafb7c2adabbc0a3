"""scheduler_perf's steady-state `createPods` (`steadyState: true`, executor.go
`createPodsSteadily`): `count` pods are created, and every pod seen bound is deleted at once
(grace period 0) and replaced by a new one, so that the scheduler's queue never runs dry and
the cluster stays near its starting utilization; it runs until cancelled (the runner stops
it after the workload's duration).

Upstream deletes and re-creates in one loop; here `WORKERS` pods are replaced concurrently,
so that the benchmark client (Python, one thread) never sets the pace.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any

from kubesched.bench.load import create_all, create_one
from kubesched.bench.workloads import PodGroup
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError, NotFound

WORKERS = 8


class SteadyPods:
    """Keeps `group.count` pods of `group` pending; `bound(name)` is the tracker's hook."""

    def __init__(self, client: KubeClient, group: PodGroup, scheduler: str) -> None:
        self._client = client
        self._group = group
        self._scheduler = scheduler
        self._indexes = itertools.count()
        self._bound: asyncio.Queue[str] = asyncio.Queue()
        self._path = f"/api/v1/namespaces/{group.namespace}/pods"

    def bound(self, name: str) -> None:
        self._bound.put_nowait(name)

    def _next(self) -> tuple[str, dict[str, Any]]:
        name = f"{self._group.prefix}{next(self._indexes)}"
        return self._path, self._group.template(name, self._group.namespace, self._scheduler)

    def _seed(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for _ in range(self._group.count):
            yield self._next()

    async def run(self, *, concurrency: int) -> None:
        """Seed the pods, then replace every bound one until cancelled."""
        await create_all(self._client, self._seed(), concurrency=concurrency)
        async with asyncio.TaskGroup() as group:
            for _ in range(WORKERS):
                group.create_task(self._replace())

    async def _replace(self) -> None:
        while True:
            name = await self._bound.get()
            body = {"gracePeriodSeconds": 0, "propagationPolicy": "Background"}
            try:
                await self._client.delete(f"{self._path}/{name}", body=body, timeout=30)
            except NotFound:
                pass
            except ApiError:
                await asyncio.sleep(0.1)
                self._bound.put_nowait(name)  # retried by the next free worker
                continue
            path, pod = self._next()
            await create_one(self._client, path, pod)
