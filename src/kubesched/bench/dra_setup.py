"""The DRA part of a workload's preparation: its objects created, then upstream's
`allocResourceClaims` op (scheduler_perf `dra.go`): the claims of one namespace allocated
directly, without pods, "faster than going through pod scheduling".

Upstream allocates one claim at a time with the structured allocator, trying the nodes in
a fresh random order for each claim; its claims (`resourceclaim.yaml`) ask for one device
of a class that matches every device of the test driver, so the allocator takes the first
free device, in slice order, of the first node that has one. This does the same without
the scheduler's allocator (the benchmark does not import the scheduler): per claim, a
random order of the nodes, the first free device of each request, `status.allocation`
written with the node selector upstream's allocator writes (`metadata.name` of the node).
Only claims whose requests are `exactly` one device with no selectors are supported (all
upstream's allocated claims are); any other claim is refused.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

from kubesched.bench.load import create_all
from kubesched.bench.workloads import DraSetup
from kubesched.errors import KubeschedError
from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all

RESOURCE = "/apis/resource.k8s.io/v1"
SEED = 1


class UnsupportedClaim(KubeschedError):
    """A claim the benchmark's direct allocation cannot allocate."""


async def prepare_dra(client: KubeClient, setup: DraSetup, *, concurrency: int) -> int:
    """Create the setup's objects, then allocate its claims; the number allocated."""
    await create_all(client, setup.objects(), concurrency=concurrency)
    if not setup.allocate:
        return 0
    slices = await list_all(client, f"{RESOURCE}/resourceslices", timeout=120)
    path = f"{RESOURCE}/namespaces/{setup.allocate}/resourceclaims"
    claims = await list_all(client, path, timeout=120)
    pending = [c for c in claims if not (c.get("status") or {}).get("allocation")]
    updates = list(allocate_claims(pending, slices, rng=random.Random(SEED)))  # noqa: S311 (node order, not secrets)
    await _write_all(client, updates, concurrency=concurrency)
    return len(updates)


def allocate_claims(
    claims: list[dict[str, Any]], slices: list[dict[str, Any]], *, rng: random.Random
) -> Iterator[dict[str, Any]]:
    """Each claim with its `status.allocation` set (see the module docstring)."""
    free = _free_devices(slices)
    nodes = sorted(free)
    for claim in claims:
        requests = _requests(claim)
        rng.shuffle(nodes)
        node = next((n for n in nodes if len(free[n]) >= len(requests)), None)
        if node is None:
            name = (claim.get("metadata") or {}).get("name")
            raise UnsupportedClaim(f"could not allocate claim {name}: no node has free devices")
        results = []
        for request in requests:
            driver, pool, device = free[node].pop(0)
            results.append({"request": request, "driver": driver, "pool": pool, "device": device})
        selector = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
        allocation = {
            "devices": {"results": results},
            "nodeSelector": {"nodeSelectorTerms": [selector]},
        }
        status = {**(claim.get("status") or {}), "allocation": allocation}
        yield claim | {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "status": status,
        }


def _free_devices(slices: list[dict[str, Any]]) -> dict[str, list[tuple[str, str, str]]]:
    """Node -> its devices (driver, pool, device) in slice order."""
    free: dict[str, list[tuple[str, str, str]]] = {}
    for item in sorted(slices, key=lambda s: str((s.get("metadata") or {}).get("name"))):
        spec = item.get("spec") or {}
        node = spec.get("nodeName")
        if not node:
            continue
        pool = str((spec.get("pool") or {}).get("name", ""))
        devices = free.setdefault(str(node), [])
        devices.extend(
            (str(spec.get("driver")), pool, str(d.get("name"))) for d in spec.get("devices") or ()
        )
    return free


def _requests(claim: dict[str, Any]) -> list[str]:
    name = (claim.get("metadata") or {}).get("name")
    requests = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()
    names = []
    for request in requests:
        exactly = request.get("exactly") or {}
        plain = (
            not exactly.get("selectors")
            and exactly.get("allocationMode", "ExactCount") == "ExactCount"
        )
        if not plain or int(exactly.get("count", 1)) != 1:
            raise UnsupportedClaim(
                f"claim {name}: only requests for exactly one device are supported"
            )
        names.append(str(request.get("name")))
    return names


async def _write_all(client: KubeClient, claims: list[dict[str, Any]], *, concurrency: int) -> None:
    slots = asyncio.Semaphore(max(concurrency, 1))

    async def write(claim: dict[str, Any]) -> None:
        meta = claim["metadata"]
        path = f"{RESOURCE}/namespaces/{meta['namespace']}/resourceclaims/{meta['name']}/status"
        async with slots:
            await client.put(path, claim, timeout=60)

    async with asyncio.TaskGroup() as group:
        for claim in claims:
            group.create_task(write(claim))
