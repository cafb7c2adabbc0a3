"""The allocation memo (`memo.py`) changes no answer: a plugin that remembers
allocations per node and one that allocates afresh every time give the same Filter
statuses and allocations, pod after pod, while claims get allocated and freed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.model import ApiObject, Pod
from kubesched.plugins.dynamic_resources import DynamicResources
from kubesched.plugins.dynamic_resources.cycle import KEY as _KEY
from kubesched.plugins.dynamic_resources.resources import CLAIMS, DEVICE_CLASSES, SLICES
from tests.unit.plugins.dynamic_resources.test_dra_plugin import (
    claim,
    cycle,
    device_class,
    handle,
    node_slice,
    plugin,
)


def outcome(pl: DynamicResources, h: Any, p: Pod) -> dict[str, Any]:
    state, statuses = cycle(pl, h, p)
    shown = {node: None if s is None else (s.code, s.message) for node, s in statuses.items()}
    data = state.get(_KEY)
    allocations = {} if data is None else data.node_allocations
    return {
        "statuses": shown,
        "allocations": {n: [r.to_json() for r in rs] for n, rs in allocations.items()},
    }


def _two_plugins() -> tuple[Any, DynamicResources, DynamicResources]:
    """A cluster of two GPU nodes; a plugin that remembers, one that never does."""
    h = handle(
        (DEVICE_CLASSES, device_class()),
        (SLICES, node_slice("n1", 3, numa=True)),
        (SLICES, node_slice("n2", 2)),
    )
    remembering, fresh = plugin(h), plugin(h)
    fresh._memo.key = lambda *_args: None  # type: ignore[method-assign]
    return h, remembering, fresh


@pytest.mark.parametrize("seed", range(12))
def test_remembered_allocations_are_the_ones_computed_afresh(seed: int) -> None:
    rng = random.Random(seed)
    h, remembering, fresh = _two_plugins()
    store = h.listers.store(CLAIMS)
    claims: dict[str, ApiObject] = {}
    for step in range(40):
        name = f"claim-{step}"
        obj = claim(name, count=rng.choice([1, 1, 2]))
        store.on_add(obj)
        claims[name] = obj
        p = Pod.from_json(
            {
                "metadata": {"name": f"p{step}", "namespace": "default", "uid": f"uid-p{step}"},
                "spec": {
                    "containers": [{"name": "c", "image": "i"}],
                    "resourceClaims": [{"name": "c0", "resourceClaimName": name}],
                },
            }
        )
        got = outcome(remembering, h, p)
        assert got == outcome(fresh, h, p)
        fits = [n for n, results in got["allocations"].items() if results]
        if fits and rng.random() < 0.7:
            node = rng.choice(sorted(fits))
            body = _json(obj) | {"status": {"allocation": got["allocations"][node][0]}}
            new = ApiObject.from_json(body)
            store.on_update(obj, new)
            claims[name] = new
        if rng.random() < 0.3:
            gone = rng.choice(sorted(claims))
            store.on_delete(claims.pop(gone))


def _json(obj: ApiObject) -> dict[str, Any]:
    meta = {"name": obj.name, "namespace": obj.namespace, "uid": obj.uid}
    meta["resourceVersion"] = str(int(obj.resource_version or "10") + 1)
    return {"metadata": meta, **obj.body}


def test_claims_of_equal_specs_share_their_remembered_answers() -> None:
    h = handle((DEVICE_CLASSES, device_class()), (SLICES, node_slice("n1", 2)))
    pl = plugin(h)
    store = h.listers.store(CLAIMS)
    for name in ("a", "b"):
        store.on_add(claim(name))
    keys = []
    for name in ("a", "b"):
        state, _ = cycle(pl, h, _pod(name))
        data = state.get(_KEY)
        assert data is not None
        assert data.allocator is not None
        node = h.list_node_infos()[0].node
        keys.append(pl._memo.key(data.allocator, node, [c.claim for c in data.claims]))
    assert keys[0] is not None
    assert keys[0] == keys[1]


def _pod(claim_name: str) -> Pod:
    return Pod.from_json(
        {
            "metadata": {"name": f"p-{claim_name}", "namespace": "default", "uid": claim_name},
            "spec": {
                "containers": [{"name": "c", "image": "i"}],
                "resourceClaims": [{"name": "c0", "resourceClaimName": claim_name}],
            },
        }
    )


@pytest.mark.parametrize("seed", range(12))
def test_remembered_allocations_hold_with_claims_in_flight(seed: int) -> None:
    """Allocations Reserve put in flight (and took back) change the devices of their pools
    without an informer event: the memo must see them too."""
    rng = random.Random(seed)
    h, remembering, fresh = _two_plugins()
    store = h.listers.store(CLAIMS)
    in_flight: list[tuple[Any, Pod, str]] = []
    for step in range(40):
        name = f"claim-{step}"
        store.on_add(claim(name, count=rng.choice([1, 1, 2])))
        p = _pod(name)
        state, _ = cycle(remembering, h, p)
        got = outcome(remembering, h, p)
        assert got == outcome(fresh, h, p)
        fits = sorted(n for n, results in got["allocations"].items() if results)
        if fits and rng.random() < 0.6:
            node = rng.choice(fits)
            remembering.reserve(state, p, node)
            in_flight.append((state, p, node))
        if in_flight and rng.random() < 0.3:
            state, p, node = in_flight.pop(rng.randrange(len(in_flight)))
            remembering.unreserve(state, p, node)
