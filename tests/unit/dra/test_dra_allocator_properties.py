"""The allocator beyond upstream's table: DeviceTaintRules, the filter deadline, and
properties on random small clusters checked against a brute-force oracle (a claim set is
allocatable exactly when some assignment of distinct matching devices exists)."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.dra.cel import CelCache
from kubesched.dra.structured import (
    AllocatedState,
    AllocationError,
    Allocator,
    DeviceID,
    Features,
    SharedDeviceID,
    add_allocated_claim,
    patched_slices,
)
from kubesched.model import Node
from kubesched.model.dra import ResourceSlice
from kubesched.model.dra_claims import ResourceClaim
from kubesched.model.dra_classes import DeviceClass, DeviceTaintRule

DRIVER = "gpu.example.com"
GPU = DeviceClass.from_json(
    {
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }
)


def _slice(name: str, node: str, models: list[str], pool: str | None = None) -> ResourceSlice:
    return ResourceSlice.from_json(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": DRIVER,
                "pool": {"name": pool or node, "generation": 1, "resourceSliceCount": 1},
                "nodeName": node,
                "devices": [
                    {"name": f"gpu-{i}", "attributes": {"model": {"string": m}}}
                    for i, m in enumerate(models)
                ],
            },
        }
    )


def _claim(
    name: str, requests: list[tuple[str, int, str | None]], tolerations: Any = None
) -> ResourceClaim:
    out = []
    for req, count, model in requests:
        exactly: dict[str, Any] = {"deviceClassName": "gpu", "count": count}
        if model is not None:
            exactly["selectors"] = [
                {"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{model}"'}}
            ]
        if tolerations:
            exactly["tolerations"] = tolerations
        out.append({"name": req, "exactly": exactly})
    return ResourceClaim.from_json(
        {"metadata": {"name": name, "namespace": "ns"}, "spec": {"devices": {"requests": out}}}
    )


def _allocator(slices: list[ResourceSlice], allocated: set[DeviceID] | None = None) -> Allocator:
    return Allocator(
        features=Features(),
        allocated_state=AllocatedState(allocated_devices=allocated or set()),
        device_class={"gpu": GPU}.get,
        slices=slices,
        cel_cache=CelCache(),
    )


def test_a_device_taint_rule_taints_the_devices_it_selects() -> None:
    slices = [_slice("s", "n1", ["a100", "a100"])]
    rule = DeviceTaintRule.from_json(
        {
            "metadata": {"name": "maint"},
            "spec": {
                "deviceSelector": {"driver": DRIVER, "device": "gpu-0"},
                "taint": {"key": "maintenance", "effect": "NoSchedule"},
            },
        }
    )
    patched = patched_slices(slices, [rule])
    assert [len(d.taints) for d in patched[0].devices] == [1, 0]
    assert slices[0].devices[0].taints == ()  # the informer's objects stay as they are
    results = _allocator(patched).allocate(Node(name="n1"), [_claim("c", [("r", 2, None)])])
    assert results is None
    results = _allocator(patched).allocate(Node(name="n1"), [_claim("c", [("r", 1, None)])])
    assert results is not None
    assert results[0].results[0].device == "gpu-1"
    tolerated = _claim(
        "c", [("r", 2, None)], tolerations=[{"key": "maintenance", "operator": "Exists"}]
    )
    results = _allocator(patched).allocate(Node(name="n1"), [tolerated])
    assert results is not None
    assert [r.device for r in results[0].results] == ["gpu-0", "gpu-1"]
    assert results[0].results[0].tolerations[0].key == "maintenance"


def test_a_rule_without_selector_or_for_another_pool_taints_nothing() -> None:
    slices = [_slice("s", "n1", ["a100"])]
    rules = [
        DeviceTaintRule.from_json(
            {"metadata": {"name": "none"}, "spec": {"taint": {"key": "k", "effect": "NoExecute"}}}
        ),
        DeviceTaintRule.from_json(
            {
                "metadata": {"name": "other"},
                "spec": {
                    "deviceSelector": {"pool": "elsewhere"},
                    "taint": {"key": "k", "effect": "NoExecute"},
                },
            }
        ),
    ]
    assert patched_slices(slices, rules)[0] is slices[0]


def test_the_filter_deadline_stops_the_search() -> None:
    slices = [_slice("s", "n1", ["a100"] * 8)]
    claim = _claim("c", [("r", 9, None)])
    with pytest.raises(
        AllocationError, match="filter operation aborted: context deadline exceeded"
    ):
        _allocator(slices).allocate(Node(name="n1"), [claim], deadline=time.monotonic() - 1)


def test_a_claim_allocated_for_a_shared_device_gets_a_share_id() -> None:
    s = ResourceSlice.from_json(
        {
            "metadata": {"name": "s"},
            "spec": {
                "driver": DRIVER,
                "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                "nodeName": "n1",
                "devices": [
                    {
                        "name": "nic",
                        "allowMultipleAllocations": True,
                        "capacity": {"bw": {"value": "10G"}},
                    }
                ],
            },
        }
    )
    claims = [
        ResourceClaim.from_json(
            {
                "metadata": {"name": f"c{i}"},
                "spec": {
                    "devices": {
                        "requests": [
                            {
                                "name": "r",
                                "exactly": {
                                    "deviceClassName": "gpu",
                                    "capacity": {"requests": {"bw": "4G"}},
                                },
                            }
                        ]
                    }
                },
            }
        )
        for i in range(3)
    ]

    def allocator() -> Allocator:
        ids = (f"s{i}" for i in itertools.count(1))
        return Allocator(
            features=Features(),
            allocated_state=AllocatedState(),
            device_class={"gpu": GPU}.get,
            slices=[s],
            cel_cache=CelCache(),
            share_id=lambda: next(ids),
        )

    assert allocator().allocate(Node(name="n1"), claims) is None  # 3 x 4G > 10G
    results = allocator().allocate(Node(name="n1"), claims[:2])
    assert results is not None
    assert [r.results[0].share_id for r in results] == ["s1", "s2"]
    assert str(results[0].results[0].consumed_capacity["bw"]) == "4G"  # type: ignore[index]


MODELS = ["a100", "h100"]


def _oracle(devices: list[str], requests: list[tuple[int, str | None]], taken: set[int]) -> bool:
    """Brute force: distinct free devices, each matching its request's model."""
    wanted = [model for count, model in requests for _ in range(count)]
    free = [i for i in range(len(devices)) if i not in taken]
    for chosen in itertools.permutations(free, len(wanted)):
        if all(
            model is None or devices[d] == model for d, model in zip(chosen, wanted, strict=True)
        ):
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(
    devices=st.lists(st.sampled_from(MODELS), min_size=0, max_size=5),
    claims=st.lists(
        st.lists(
            st.tuples(st.integers(0, 2), st.sampled_from([None, *MODELS])), min_size=1, max_size=2
        ),
        min_size=1,
        max_size=3,
    ),
    taken=st.sets(st.integers(0, 4), max_size=2),
)
def test_allocation_agrees_with_a_brute_force_oracle(
    devices: list[str], claims: list[list[tuple[int, str | None]]], taken: set[int]
) -> None:
    slices = [_slice("s", "n1", devices)]
    allocated = {DeviceID(DRIVER, "n1", f"gpu-{i}") for i in taken if i < len(devices)}
    objects = [
        _claim(f"c{i}", [(f"r{j}", n, m) for j, (n, m) in enumerate(reqs)])
        for i, reqs in enumerate(claims)
    ]
    results = _allocator(slices, allocated).allocate(Node(name="n1"), objects)
    flat = [req for reqs in claims for req in reqs]
    assert (results is not None) == _oracle(devices, flat, {i for i in taken if i < len(devices)})
    if results is None:
        return
    used = [r.device for result in results for r in result.results]
    assert len(used) == len(set(used)), "a device went to two requests"
    assert not {f"gpu-{i}" for i in taken} & set(used), "an allocated device was given again"
    for result, reqs in zip(results, claims, strict=True):
        for j, (count, model) in enumerate(reqs):
            mine = [r.device for r in result.results if r.request == f"r{j}"]
            assert len(mine) == count
            assert model is None or all(devices[int(d.split("-")[1])] == model for d in mine)
    again = _allocator(slices, allocated).allocate(Node(name="n1"), objects)
    assert again is not None
    assert [r.to_json() for r in again] == [r.to_json() for r in results], "not deterministic"


def test_slices_of_another_node_are_not_used() -> None:
    slices = [_slice("s1", "n1", ["a100"]), _slice("s2", "n2", ["a100", "a100"])]
    assert _allocator(slices).allocate(Node(name="n1"), [_claim("c", [("r", 2, None)])]) is None
    results = _allocator(slices).allocate(Node(name="n2"), [_claim("c", [("r", 2, None)])])
    assert results is not None
    assert results[0].node_selector == {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}
        ]
    }


def test_the_allocated_state_of_claims() -> None:
    claim = ResourceClaim.from_json(
        {
            "metadata": {"name": "c"},
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {"request": "a", "driver": DRIVER, "pool": "p", "device": "d0"},
                            {
                                "request": "b",
                                "driver": DRIVER,
                                "pool": "p",
                                "device": "d1",
                                "adminAccess": True,
                            },
                            {
                                "request": "c",
                                "driver": DRIVER,
                                "pool": "p",
                                "device": "d2",
                                "shareID": "x",
                                "consumedCapacity": {"bw": "1G"},
                            },
                        ]
                    }
                }
            },
        }
    )
    state = AllocatedState()
    assert claim.allocation is not None
    add_allocated_claim(state, claim.allocation.results)
    add_allocated_claim(state, claim.allocation.results)
    assert state.allocated_devices == {DeviceID(DRIVER, "p", "d0")}
    assert state.allocated_shared_device_ids == {SharedDeviceID(DRIVER, "p", "d2", "x")}
    assert str(state.aggregated_capacity[DeviceID(DRIVER, "p", "d2")]["bw"]) == "2G"
    assert state.is_allocated(DeviceID(DRIVER, "p", "d2"))
    assert not state.is_allocated(DeviceID(DRIVER, "p", "d1"))
