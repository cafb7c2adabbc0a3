"""The DRA part of a workload's preparation: its objects created, then upstream's
`allocResourceClaims` op (scheduler_perf `dra.go`): the claims of one namespace allocated
directly, without pods, "faster than going through pod scheduling".

Upstream allocates one claim at a time with the structured allocator, trying the nodes in
a fresh random order for each claim; its claims (`resourceclaim.yaml`,
`resourceclaim-partitionable*.yaml`) ask for `count` devices of a class that matches every
device of the test driver, so the allocator takes the first free devices, in slice order,
whose shared counters (partitionable devices) still fit, on the first node that has them.
This does the same without the scheduler's allocator (the benchmark does not import the
scheduler): per claim, a random order of the nodes, for each request the first combination
of free devices (in slice order) whose counters fit what the pool has left,
`status.allocation` written with the node selector upstream's allocator writes
(`metadata.name` of the node). Only claims whose requests are `exactly` a count of devices
with no selectors are supported (all upstream's allocated claims are); any other claim is
refused.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations
from typing import Any

from kubesched.bench.load import create_all
from kubesched.bench.workloads import DraSetup
from kubesched.errors import KubeschedError
from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all
from kubesched.model.quantity import parse_quantity

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
    left = _counters(slices)
    nodes = sorted(free)
    for claim in claims:
        requests = _requests(claim)
        rng.shuffle(nodes)
        found = next(
            ((n, p) for n in nodes if (p := _pick(free[n], requests, left)) is not None), None
        )
        if found is None:
            name = (claim.get("metadata") or {}).get("name")
            raise UnsupportedClaim(f"could not allocate claim {name}: no node has free devices")
        node, picked = found
        results = []
        for request, device in picked:
            free[node].remove(device)
            for key, amount in device.consumes:
                left[key] -= amount
            results.append(
                {
                    "request": request,
                    "driver": device.driver,
                    "pool": device.pool,
                    "device": device.name,
                }
            )
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


CounterKey = tuple[str, str, str, str]
"""(driver, pool, counter set, counter)."""


@dataclass(frozen=True, slots=True)
class _Device:
    driver: str
    pool: str
    name: str
    consumes: tuple[tuple[CounterKey, Decimal], ...] = ()


def _pick(
    devices: list[_Device], requests: list[tuple[str, int]], left: dict[CounterKey, Decimal]
) -> list[tuple[str, _Device]] | None:
    """(request, device) for every device of `requests` from `devices`, each request the
    first combination in slice order whose counters fit `left`; None if one has none."""
    remaining, used = list(devices), dict.fromkeys(left, Decimal(0))
    picked: list[tuple[str, _Device]] = []
    for request, count in requests:
        combo = next((c for c in combinations(remaining, count) if _fits(c, used, left)), None)
        if combo is None:
            return None
        for device in combo:
            remaining.remove(device)
            for key, amount in device.consumes:
                used[key] += amount
            picked.append((request, device))
    return picked


def _fits(
    combo: tuple[_Device, ...], used: dict[CounterKey, Decimal], left: dict[CounterKey, Decimal]
) -> bool:
    wanted = dict(used)
    for device in combo:
        for key, amount in device.consumes:
            wanted[key] = wanted.get(key, Decimal(0)) + amount
    return all(amount <= left.get(key, Decimal(0)) for key, amount in wanted.items())


def _slice_order(slices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(slices, key=lambda s: str((s.get("metadata") or {}).get("name")))


def _free_devices(slices: list[dict[str, Any]]) -> dict[str, list[_Device]]:
    """Node -> its devices in slice order."""
    free: dict[str, list[_Device]] = {}
    for item in _slice_order(slices):
        spec = item.get("spec") or {}
        node = spec.get("nodeName")
        if not node:
            continue
        driver, pool = str(spec.get("driver")), str((spec.get("pool") or {}).get("name", ""))
        devices = free.setdefault(str(node), [])
        devices.extend(
            _Device(driver, pool, str(d.get("name")), _consumption(driver, pool, d))
            for d in spec.get("devices") or ()
        )
    return free


def _consumption(
    driver: str, pool: str, device: dict[str, Any]
) -> tuple[tuple[CounterKey, Decimal], ...]:
    return tuple(
        ((driver, pool, str(use.get("counterSet")), name), parse_quantity(value["value"]))
        for use in device.get("consumesCounters") or ()
        for name, value in (use.get("counters") or {}).items()
    )


def _counters(slices: list[dict[str, Any]]) -> dict[CounterKey, Decimal]:
    """Every shared counter of the slices, at its full value."""
    counters: dict[CounterKey, Decimal] = {}
    for item in slices:
        spec = item.get("spec") or {}
        driver, pool = str(spec.get("driver")), str((spec.get("pool") or {}).get("name", ""))
        for counter_set in spec.get("sharedCounters") or ():
            for name, value in (counter_set.get("counters") or {}).items():
                key = (driver, pool, str(counter_set.get("name")), name)
                counters[key] = parse_quantity(value["value"])
    return counters


def _requests(claim: dict[str, Any]) -> list[tuple[str, int]]:
    name = (claim.get("metadata") or {}).get("name")
    requests = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()
    found = []
    for request in requests:
        exactly = request.get("exactly") or {}
        plain = (
            not exactly.get("selectors")
            and not exactly.get("capacity")
            and exactly.get("allocationMode", "ExactCount") == "ExactCount"
        )
        if not request.get("exactly") or not plain:
            raise UnsupportedClaim(
                f"claim {name}: only requests for exactly a count of devices are supported"
            )
        found.append((str(request.get("name")), int(exactly.get("count", 1))))
    return found


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
