"""The pods a workload creates without waiting for them (`Workload.unwaited`, upstream's
`skipWaitToCompletion`), and scheduler_perf's `barrier` op with `stageRequirement:
Attempted` after them, as the API server shows it: wait until every pod of the groups has
been through the scheduler once, i.e. is bound or carries `PodScheduled=False` with reason
`Unschedulable` (both schedulers write it after a failed attempt) or `SchedulingGated` (the
API server writes it for a gated pod, whose queueing it cannot show: for those the barrier
only proves they exist, and the scheduler's one pod watch delivers them before the
measured pods).

Upstream reads the scheduler's own metrics; a benchmark contender is another process, so
the barrier polls the pods' conditions (once a second; a stall fails the run).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kubesched.bench.load import create_all
from kubesched.bench.workloads import PodGroup
from kubesched.errors import KubeschedError
from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all

if TYPE_CHECKING:
    from kubesched.bench.runner import BenchSettings

POLL_SECONDS = 1.0
ATTEMPTED_REASONS = frozenset({"Unschedulable", "SchedulingGated"})


class BarrierStalled(KubeschedError):
    """The pods were not all attempted within the stall timeout."""


def attempted(pod: dict[str, Any]) -> bool:
    """Whether the scheduler has been through `pod` once (see the module's docstring)."""
    if (pod.get("spec") or {}).get("nodeName"):
        return True
    return any(
        condition.get("type") == "PodScheduled"
        and condition.get("status") == "False"
        and condition.get("reason") in ATTEMPTED_REASONS
        for condition in (pod.get("status") or {}).get("conditions") or ()
    )


async def wait_attempted(
    client: KubeClient,
    groups: Sequence[PodGroup],
    *,
    stall_timeout: float,
    poll: float = POLL_SECONDS,
) -> None:
    """Return once every pod of `groups` was attempted; raise `BarrierStalled` when their
    count stops rising for `stall_timeout` seconds."""
    await _wait_pods(client, groups, attempted, stall_timeout=stall_timeout, poll=poll)


def bound(pod: dict[str, Any]) -> bool:
    """Whether `pod` has a node."""
    return bool((pod.get("spec") or {}).get("nodeName"))


async def wait_bound(
    client: KubeClient,
    groups: Sequence[PodGroup],
    *,
    stall_timeout: float,
    poll: float = POLL_SECONDS,
) -> None:
    """Return once every pod of `groups` is bound (upstream's `barrier` with its default
    stage); raise `BarrierStalled` as `wait_attempted` does."""
    await _wait_pods(client, groups, bound, stall_timeout=stall_timeout, poll=poll)


async def _wait_pods(
    client: KubeClient,
    groups: Sequence[PodGroup],
    done_with: Callable[[dict[str, Any]], bool],
    *,
    stall_timeout: float,
    poll: float,
) -> None:
    wanted = {(g.namespace_of(i), f"{g.prefix}{i}") for g in groups for i in range(g.count)}
    namespaces = sorted({namespace for namespace, _name in wanted})
    stage = "attempted by the scheduler" if done_with is attempted else "bound"
    last, last_change = -1, time.monotonic()
    while True:
        done = 0
        for namespace in namespaces:
            path = f"/api/v1/namespaces/{namespace}/pods"
            for pod in await list_all(client, path, timeout=60):
                name = (pod.get("metadata") or {}).get("name", "")
                done += (namespace, name) in wanted and done_with(pod)
        if done >= len(wanted):
            return
        if done != last:
            last, last_change = done, time.monotonic()
        elif time.monotonic() - last_change > stall_timeout:
            raise BarrierStalled(f"stalled: {done}/{len(wanted)} pods {stage}")
        await asyncio.sleep(poll)


async def create_unwaited(client: KubeClient, settings: BenchSettings) -> None:
    """Create the workload's `unwaited` pods; with `attempted_barrier`, wait until the
    scheduler attempted each."""
    workload, scheduler = settings.workload, settings.limits.scheduler_name
    pods = itertools.chain.from_iterable(g.pods(scheduler) for g in workload.unwaited)
    await create_all(client, pods, concurrency=settings.create_concurrency)
    if workload.attempted_barrier:
        await wait_attempted(client, workload.unwaited, stall_timeout=settings.stall_timeout)
