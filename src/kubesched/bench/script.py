"""A test case that is a sequence of scheduler_perf ops rather than "initial pods, then
measured pods" (`Workload.script`): scheduler_perf's `event_handling/` cases make pods
unschedulable first, then send the event that makes them schedulable (nodes created or
updated, pods deleted or updated), with barriers between the stages.

    createNodes   -> CreateNodes(factory, count)
    createPods    -> CreatePods(group)                (`skipWaitToCompletion`: never waited for)
    updateAny     -> Update(path, change, count, rate, subresources)
    deletePods    -> DeletePods(namespace, selector, rate)  (in the background)
    barrier       -> Barrier(groups, attempted)       (Attempted, or every pod bound)

`steps` run during the measured phase; the measured pods are those of `namespaces` that
carry `selector` (upstream's `startCollectingMetrics` namespaces and labelSelector), `count`
of them.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.bench.barrier import wait_attempted, wait_bound
from kubesched.bench.contenders import NULL_BINDER
from kubesched.bench.load import create_all
from kubesched.bench.templates import node_default
from kubesched.bench.workloads import PodGroup, Workload
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import Conflict, NotFound

WARM_UP_NODE = "bench-warm-up-node"
NO_NULL_BINDER = "the null binder ignores the filters that hold these pods back"
BARRIER_POLL_SECONDS = 0.25
UPDATE_RETRIES = 5


@dataclass(frozen=True, slots=True)
class CreateNodes:
    """`count` nodes, the i-th `factory(i)`."""

    factory: Callable[[int], dict[str, Any]]
    count: int


@dataclass(frozen=True, slots=True)
class CreatePods:
    """The pods of `group`, not waited for."""

    group: PodGroup


@dataclass(frozen=True, slots=True)
class Update:
    """upstream's `updateAny`: object i (`path(i)`) read, changed in place by `change(i,
    obj)`, written back to each of `subresources` in turn ("" the object itself, "status",
    "resize"), one object every 1/`rate` s, in order."""

    path: Callable[[int], str]
    change: Callable[[int, dict[str, Any]], None]
    count: int
    rate: float
    subresources: tuple[str, ...] = ("",)


@dataclass(frozen=True, slots=True)
class DeletePods:
    """upstream's `deletePods` with `skipWaitToCompletion`: the pods of `namespace` that
    carry `selector`, as listed when it starts, deleted one every 1/`rate` s in the
    background (the script goes on at once)."""

    namespace: str
    selector: str
    rate: float


@dataclass(frozen=True, slots=True)
class Barrier:
    """upstream's `barrier`: wait until every pod of `groups` was attempted (`attempted`)
    or is bound."""

    groups: tuple[PodGroup, ...]
    attempted: bool = False


Step = CreateNodes | CreatePods | Update | DeletePods | Barrier


@dataclass(frozen=True, slots=True)
class Script:
    """What a scripted case runs (see the module's docstring); `own_nodes`: every node of
    the case comes from its steps, so the runner's warm-up node (`WARM_UP_NODE`, the
    workload's one node) and warm-up pod are deleted before the measured phase."""

    steps: tuple[Step, ...]
    namespaces: tuple[str, ...]
    count: int
    selector: str = ""
    own_nodes: bool = False

    def measured(self) -> PodGroup:
        """The workload's `measured` group: the count and namespaces of the pods the run
        measures (the steps create them)."""
        return PodGroup(_made_by_steps, self.count, self.namespaces[0], "", self.namespaces)


def _made_by_steps(name: str, namespace: str, _scheduler: str) -> dict[str, Any]:
    raise AssertionError(f"{namespace}/{name}: a scripted case's pods come from its steps")


def warm_up_node(_index: int) -> dict[str, Any]:
    """The one node of a case with `own_nodes`, for the runner's warm-up pod."""
    return node_default(WARM_UP_NODE, {})


def scripted_workload(script: Script, **fields: Any) -> Workload:
    """The workload of a scripted case, which the null binder skips (`NO_NULL_BINDER`);
    without `nodes` in `fields` every node comes from the steps (`own_nodes`), one warm-up
    node meanwhile."""
    defaults: dict[str, Any] = {"nodes": 1, "node_factory": warm_up_node, "initial": ()}
    return Workload(
        name="",
        namespaces=script.namespaces,
        measured=script.measured(),
        script=script,
        unsupported=((NULL_BINDER, NO_NULL_BINDER),),
        **(defaults | fields),
    )


@dataclass(frozen=True, slots=True)
class ScriptSettings:
    """How the script creates objects and how long a barrier may stall."""

    scheduler: str
    concurrency: int
    stall_timeout: float


async def run_prelude(client: KubeClient, script: Script, warm_up_pod: str) -> None:
    """Before the measured phase: with `own_nodes`, delete the warm-up pod (its path) and
    node."""
    if script.own_nodes:
        await _delete(client, warm_up_pod)
        await _delete(client, f"/api/v1/nodes/{WARM_UP_NODE}")


async def run_steps(client: KubeClient, script: Script, settings: ScriptSettings) -> None:
    """Run the measured phase's steps in order; background deletions are awaited last."""
    background: list[asyncio.Task[None]] = []
    try:
        for step in script.steps:
            if isinstance(step, DeletePods):
                background.append(asyncio.create_task(_delete_pods(client, step)))
            else:
                await _run_step(client, step, settings)
        await asyncio.gather(*background)
    finally:
        for task in background:
            task.cancel()


async def _run_step(client: KubeClient, step: Step, settings: ScriptSettings) -> None:
    if isinstance(step, CreateNodes):
        nodes = (("/api/v1/nodes", step.factory(i)) for i in range(step.count))
        await create_all(client, nodes, concurrency=settings.concurrency)
    elif isinstance(step, CreatePods):
        pods = step.group.pods(settings.scheduler)
        await create_all(client, pods, concurrency=settings.concurrency)
    elif isinstance(step, Update):
        await _update_all(client, step)
    elif isinstance(step, Barrier):
        wait = wait_attempted if step.attempted else wait_bound
        await wait(
            client,
            step.groups,
            stall_timeout=settings.stall_timeout,
            poll=BARRIER_POLL_SECONDS,
        )


async def _update_all(client: KubeClient, step: Update) -> None:
    started = time.monotonic()
    for index in range(step.count):
        delay = started + index / step.rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        change = functools.partial(step.change, index)
        await update_one(client, step.path(index), change, step.subresources)


async def update_one(
    client: KubeClient,
    path: str,
    change: Callable[[dict[str, Any]], None],
    subresources: Sequence[str],
) -> None:
    """Read `path`, `change` it, write it to each subresource in turn; a conflict (another
    writer, e.g. the scheduler's status patch) starts over from a fresh read."""
    for attempt in range(UPDATE_RETRIES):
        obj = await client.get(path, timeout=30)
        change(obj)
        try:
            for subresource in subresources:
                target = f"{path}/{subresource}" if subresource else path
                written = await client.put(target, obj, timeout=30)
                obj["metadata"]["resourceVersion"] = written["metadata"]["resourceVersion"]
        except Conflict:
            if attempt == UPDATE_RETRIES - 1:
                raise
            continue
        return


async def _delete_pods(client: KubeClient, step: DeletePods) -> None:
    path = f"/api/v1/namespaces/{step.namespace}/pods"
    listing = await client.get(path, params={"labelSelector": step.selector}, timeout=60)
    started = time.monotonic()
    for index, pod in enumerate(listing.get("items") or ()):
        delay = started + (index + 1) / step.rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        await _delete(client, f"{path}/{pod['metadata']['name']}")


async def _delete(client: KubeClient, path: str) -> None:
    try:
        await client.delete(path, body={"gracePeriodSeconds": 0}, timeout=30)
    except NotFound:
        return
