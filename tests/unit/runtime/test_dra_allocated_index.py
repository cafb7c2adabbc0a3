"""What DynamicResources keeps across cycles: the shared DRA manager's allocated state, kept
per claim change, equals the state gathered from every claim (upstream
`GatherAllocatedState`) through random claim adds, updates, deletes, claims assumed after
PreBind and allocations in flight; a CEL selector's answer is remembered per device
object."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.dra.cel import CelCache
from kubesched.framework.dra import Claim
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject
from kubesched.model.dra_claims import ResourceClaim
from kubesched.plugins.dynamic_resources.resources import ALL, CLAIMS
from kubesched.runtime.dra_manager import DraManager

DRIVER = "gpu.example.com"


def claim_json(
    name: str, uid: str, version: int, devices: list[int], *, share: bool
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "metadata": {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": str(version)},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}]}},
        "status": {},
    }
    if devices:
        results = [
            {"request": "r", "driver": DRIVER, "pool": "p", "device": f"d{d}"} for d in devices
        ]
        if share:
            results[0]["shareID"] = "0b2b8a66-5c3e-4f4e-9d9e-3f0b0b8a6c11"
        body["status"]["allocation"] = {"devices": {"results": results}}
    return body


def equal(manager: DraManager) -> None:
    kept = manager.allocated_state()
    gathered = manager.gather_allocated_state()
    assert set(kept.allocated_devices) == gathered.allocated_devices
    assert all(device in kept.allocated_devices for device in gathered.allocated_devices)
    assert kept.allocated_shared_device_ids == gathered.allocated_shared_device_ids
    assert kept.aggregated_capacity == gathered.aggregated_capacity


@pytest.mark.parametrize("seed", range(30))
def test_the_kept_state_equals_the_gathered_one(seed: int) -> None:
    rng = random.Random(seed)
    listers = ClusterListers(ALL)
    store = listers.store(CLAIMS)
    manager = DraManager(listers)
    live: dict[str, ApiObject] = {}
    version = 10
    for _step in range(120):
        version += 1
        name = f"c{rng.randrange(8)}"
        uid = f"{name}-{rng.randrange(2)}"  # a claim may come back with a new uid
        devices = rng.sample(range(6), rng.randrange(3))
        share = seed % 3 == 0 and rng.random() < 0.1  # shares: the gathered path
        action = rng.random()
        obj = ApiObject.from_json(claim_json(name, uid, version, devices, share=share))
        if action < 0.45:
            old = live.get(name)
            if old is None:
                store.on_add(obj)
            else:
                store.on_update(old, obj)
            live[name] = obj
        elif action < 0.55 and name in live:
            store.on_delete(live.pop(name))
        elif action < 0.8:
            manager.assume(
                Claim(
                    obj,
                    ResourceClaim.from_json(claim_json(name, uid, version, devices, share=share)),
                )
            )
        elif action < 0.9:
            pending = ResourceClaim.from_json(claim_json(name, uid, 1, devices or [5], share=False))
            assert pending.allocation is not None
            manager.pending[uid] = pending.allocation
        else:
            manager.pending.pop(rng.choice([*manager.pending, "none"]), None)
        equal(manager)


def test_a_selectors_answer_is_remembered_per_device_object_and_errors_never() -> None:
    cache = CelCache(max_results=2)
    device, other = object(), object()
    assert cache.known_result("true", device, DRIVER) is None
    cache.remember("true", device, DRIVER, True)
    assert cache.known_result("true", device, DRIVER) is True
    assert cache.known_result("true", other, DRIVER) is None
    assert cache.known_result("true", device, "other.driver") is None
    cache.remember("false", other, DRIVER, False)
    cache.remember("x", other, DRIVER, True)  # past max_results: everything forgotten first
    assert cache.known_result("true", device, DRIVER) is None
    assert cache.known_result("x", other, DRIVER) is True


@pytest.mark.parametrize("deallocated_first", [True, False])
def test_a_claim_written_by_prebind_and_then_deleted_holds_no_device(
    deallocated_first: bool,
) -> None:
    """PreBind's copy must not outlive the claim: freed (allocation removed, then deleted)
    or deleted at once, before anything asked the manager for that claim again."""
    listers = ClusterListers(ALL)
    store = listers.store(CLAIMS)
    manager = DraManager(listers)
    created = ApiObject.from_json(claim_json("c", "u", 10, [], share=False))
    store.on_add(created)
    written = claim_json("c", "u", 11, [0, 1], share=True)
    manager.assume(Claim(ApiObject.from_json(written), ResourceClaim.from_json(written)))
    assert manager.gather_allocated_state().allocated_devices
    last = created
    if deallocated_first:
        for version, devices in ((11, [0, 1]), (12, [])):
            obj = ApiObject.from_json(claim_json("c", "u", version, devices, share=True))
            store.on_update(last, obj)
            last = obj
    store.on_delete(last)

    assert manager.assumed == {}
    assert not manager.gather_allocated_state().allocated_devices
    assert not manager.allocated_state().allocated_shared_device_ids
    equal(manager)
