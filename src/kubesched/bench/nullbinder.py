"""The null binder: the API server's ceiling. It binds every pending pod of one scheduler
name to the next node in round-robin order, with no filtering or scoring, with the same
client limits (QPS/burst token bucket) and binding concurrency as kubesched.

The one check it makes is capacity: a node whose allocatable CPU, memory or pod count the
pod would exceed is skipped, so that the benchmark's no-overcommit check stays meaningful
for workloads that fill nodes.

Pods with ResourceClaims (the DRA test cases): the null binder does not allocate them; it
waits until the resourceclaim controller has made the claims of the pod's templates
(`status.resourceClaimStatuses`), which any scheduler must wait for too, then binds the pod
like any other, leaving its claims unallocated and unreserved. So its throughput is that of
the API server and the resourceclaim controller, without the allocation's writes (the
claim's `status.allocation` and `reservedFor`): still a ceiling.

It is started by the benchmark as its own process:

    python -m kubesched.bench.nullbinder --kubeconfig=K --scheduler-name=S --qps=Q --burst=B
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.kube.errors import ApiError, Conflict, ConnectionFailed, NotFound
from kubesched.kube.protobuf import PROTOBUF
from kubesched.model import Node, Pod, Resource

INACTIVITY_TIMEOUT = 60.0
log = logging.getLogger("kubesched.bench.nullbinder")  # its module name, also when run as __main__


class RoundRobin:
    """Node choice: the next node in turn that still has room for the pod."""

    def __init__(self, nodes: Sequence[Node]) -> None:
        self._nodes = list(nodes)
        self._free = [node.allocatable.copy() for node in self._nodes]
        self._next = 0

    @property
    def size(self) -> int:
        return len(self._nodes)

    def pick(self, pod: Pod) -> str | None:
        for step in range(len(self._nodes)):
            index = (self._next + step) % len(self._nodes)
            free = self._free[index]
            if _fits(pod.requests, free):
                free.subtract(pod.requests)
                free.allowed_pods -= 1
                self._next = index + 1
                return self._nodes[index].name
        return None

    def release(self, pod: Pod, node_name: str) -> None:
        for node, free in zip(self._nodes, self._free, strict=True):
            if node.name == node_name:
                free.add(pod.requests)
                free.allowed_pods += 1
                return


def _fits(requests: Resource, free: Resource) -> bool:
    return (
        free.allowed_pods >= 1
        and requests.milli_cpu <= free.milli_cpu
        and requests.memory <= free.memory
    )


def claims_made(pod: Pod) -> bool:
    """Whether every claim of the pod's ResourceClaimTemplates has been made."""
    made = {name for name, _claim in pod.generated_claims}
    return all(not s.template_name or s.name in made for s in pod.claim_sources)


class NullBinder:
    def __init__(self, client: KubeClient, *, scheduler_name: str, concurrency: int) -> None:
        self._client = client
        self._scheduler_name = scheduler_name
        self._slots = asyncio.Semaphore(concurrency)
        self._tasks: set[asyncio.Task[None]] = set()
        self._seen: set[str] = set()
        self._nodes = RoundRobin([])

    async def run(self) -> None:
        nodes = await self._client.get("/api/v1/nodes", timeout=60)
        self._nodes = RoundRobin([Node.from_json(obj) for obj in nodes.get("items") or ()])
        selector = f"spec.schedulerName={self._scheduler_name},spec.nodeName="
        listing = await self._client.get(
            "/api/v1/pods", params={"fieldSelector": selector}, timeout=60
        )
        for obj in listing.get("items") or ():
            await self._submit(Pod.from_json(obj))
        version = str((listing.get("metadata") or {}).get("resourceVersion", ""))
        log.info("null binder ready: %d nodes", self._nodes.size)
        while True:
            params = {"fieldSelector": selector, "resourceVersion": version}
            try:
                async for event in self._client.watch(
                    "/api/v1/pods", params=params, inactivity_timeout=INACTIVITY_TIMEOUT
                ):
                    obj = event.get("object") or {}
                    version = str((obj.get("metadata") or {}).get("resourceVersion", version))
                    if event.get("type") in ("ADDED", "MODIFIED"):
                        await self._submit(Pod.from_json(obj))
            except ConnectionFailed:
                await asyncio.sleep(0.5)

    async def _submit(self, pod: Pod) -> None:
        if pod.uid in self._seen or pod.node_name or not claims_made(pod):
            return
        self._seen.add(pod.uid)
        await self._slots.acquire()
        task = asyncio.create_task(self._bind(pod))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _bind(self, pod: Pod) -> None:
        try:
            node = self._nodes.pick(pod)
            if node is None:
                log.warning("no room for %s", pod.key)
                return
            body = {
                "apiVersion": "v1",
                "kind": "Binding",
                "metadata": {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node},
            }
            path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/binding"
            try:
                await self._client.post(path, body, timeout=30)
            except (NotFound, Conflict):
                self._nodes.release(pod, node)
            except ApiError as exc:
                self._nodes.release(pod, node)
                self._seen.discard(pod.uid)
                log.warning("binding %s failed: %s", pod.key, exc)
        finally:
            self._slots.release()


async def _main(args: argparse.Namespace) -> None:
    connection = await load_connection(kubeconfig=args.kubeconfig)
    # Bindings in protobuf, as kubesched's and kube-scheduler's own clients send them.
    client = KubeClient(connection, qps=args.qps, burst=args.burst, content_type=PROTOBUF)
    try:
        binder = NullBinder(
            client, scheduler_name=args.scheduler_name, concurrency=args.concurrency
        )
        await binder.run()
    finally:
        await client.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kubesched.bench.nullbinder")
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--scheduler-name", required=True)
    parser.add_argument("--qps", type=float, default=5000.0)
    parser.add_argument("--burst", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        asyncio.run(_main(args))
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
