"""Upstream's allocator table (`allocatortesting.TestAllocator`, v0.37.2) run against the
incubating-variant allocator: the same results, errors and search effort (`allocateOne`
invocations) for every case whose features that variant supports."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubesched.dra.cel import CelCache
from kubesched.dra.structured import (
    AllocatedState,
    AllocationError,
    Allocator,
)
from kubesched.model import Node
from kubesched.model.dra import ResourceSlice
from kubesched.model.dra_claims import ResourceClaim
from kubesched.model.dra_classes import DeviceClass
from kubesched.model.quantity import Quantity
from tests.unit.dra.dra_upstream_allocator_cases import CASES, SKIPPED
from tests.unit.dra.dra_upstream_builders import (
    ErrorMatcher,
    expected_result,
    features,
    fixedShareID,
    js,
    node,
    node1,
    region1,
)


def _norm_requirements(reqs: Any) -> list[Any]:
    return sorted((r["key"], r["operator"], sorted(r.get("values") or ())) for r in reqs or ())


def _norm_selector(selector: Any) -> Any:
    if not selector:
        return None
    return sorted(
        json.dumps(
            [
                _norm_requirements(t.get("matchExpressions")),
                _norm_requirements(t.get("matchFields")),
            ]
        )
        for t in selector.get("nodeSelectorTerms") or ()
    )


def _norm_device(result: dict[str, Any]) -> str:
    out = {k: v for k, v in result.items() if v not in (None, [], {})}
    if "consumedCapacity" in out:
        out["consumedCapacity"] = {
            k: str(Quantity.parse(v).value.normalize()) for k, v in out["consumedCapacity"].items()
        }
    return json.dumps(out, sort_keys=True)


def _norm(result: dict[str, Any]) -> str:
    return json.dumps(
        {
            "results": sorted(_norm_device(r) for r in result.get("results") or ()),
            "config": [json.dumps(c, sort_keys=True) for c in result.get("config") or ()],
            "nodeSelector": _norm_selector(result.get("nodeSelector")),
        },
        sort_keys=True,
    )


def _actual(result: Any) -> dict[str, Any]:
    body = result.to_json()
    devices = body["devices"]
    for r in devices.get("results") or ():
        if "shareID" in r:
            r["shareID"] = fixedShareID
    return {
        "results": devices.get("results") or [],
        "config": devices.get("config") or [],
        "nodeSelector": body.get("nodeSelector"),
    }


def _supported(name: str) -> bool:
    return not features(CASES[name].fields.get("features")).unsupported()


SUPPORTED = sorted(name for name in CASES if _supported(name))
"""The cases of upstream's incubating variant (the one v1.37.2's default gates select); the
others need alpha gates only its experimental variant has, which kubesched does not claim."""


def test_the_left_out_cases_are_the_alpha_gates_ones() -> None:
    left_out = sorted(set(CASES) - set(SUPPORTED))
    gates = {
        gate
        for name in left_out
        for gate in features(CASES[name].fields.get("features")).unsupported()
    }
    assert gates <= {
        "DRADeviceCompatibilityGroups",
        "DRADerivedAttributes",
        "DRAListTypeAttributes",
        "DRAOptionalNodeOperations",
    }
    assert len(SUPPORTED) == 230


@pytest.mark.parametrize("name", SUPPORTED)
def test_upstream_allocator_case(name: str) -> None:
    case = CASES[name].fields
    feats = features(case.get("features"))
    classes = {c.name: c for c in (DeviceClass.from_json(js(c)) for c in case.get("classes") or ())}
    slices = [ResourceSlice.from_json(js(s)) for s in case.get("slices") or ()]
    claims = [ResourceClaim.from_json(js(c)) for c in case.get("claimsToAllocate") or ()]
    state = AllocatedState(
        allocated_devices=set(case.get("allocatedDevices") or ()),
        allocated_shared_device_ids=set(case.get("allocatedSharedDeviceIDs") or ()),
        aggregated_capacity={
            device: dict(capacity)
            for device, capacity in (case.get("allocatedCapacityDevices") or {}).items()
        },
    )
    allocator = Allocator(
        features=feats,
        allocated_state=state,
        device_class=classes.get,
        slices=slices,
        cel_cache=CelCache(1),
    )
    the_node = Node.from_json(js(case.get("node") or node(node1, region1)))
    expect_error: ErrorMatcher | None = case.get("expectError")
    if expect_error is not None:
        with pytest.raises(AllocationError) as caught:
            allocator.allocate(the_node, claims)
        assert expect_error.matches(str(caught.value)), f"{caught.value!r} lacks {expect_error}"
        return
    results = allocator.allocate(the_node, claims)
    actual = sorted(_norm(_actual(r)) for r in results or ())
    expected = sorted(_norm(expected_result(e)) for e in case.get("expectResults") or ())
    assert actual == expected
    invocations = case.get("expectNumAllocateOneInvocations")
    if invocations:
        by_channel = case.get("expectNumAllocateOneInvocationsByChannel") or {}
        invocations = by_channel.get("incubating", invocations)
        assert allocator.num_allocate_one_invocations == invocations


def test_upstream_cases_left_out_are_listed() -> None:
    """Every case of upstream's table is either ported or listed with its reason."""
    assert len(CASES) + len(SKIPPED) == 275
    assert not SKIPPED
