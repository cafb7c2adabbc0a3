"""VolumeBinding's Filter, which finds once a cycle what a pod whose claims are all bound to
PVs without node affinity (or to missing PVs) gets on any node, says on every node what the
per-node match says, and keeps the same (empty) bindings for it (seeded random claims: bound
to PVs with and without node affinity, to missing PVs, unbound WaitForFirstConsumer ones)."""

from __future__ import annotations

import random

import pytest

from kubesched.framework import Code, CycleState, Status
from kubesched.framework.volumes import StaticVolumeListers
from kubesched.plugins import VolumeBinding
from kubesched.plugins.volume_binding.matching import find_pod_volumes
from kubesched.plugins.volume_binding.plugin import _KEY
from kubesched.testing import FakeHandle, make_node, make_pod
from tests.unit.plugins.volumes.volume_objects import pv, pvc, storage_class

CLAIMS = 10


def _handle(rng: random.Random) -> FakeHandle:
    names = [f"n{i}" for i in range(6)]
    claims, volumes = [], []
    for i in range(CLAIMS):
        roll = rng.random()
        if roll < 0.5:
            claims.append(pvc(f"c{i}", volume=f"v{i}", bound=True))
            node = rng.choice(names) if rng.random() < 0.3 else ""
            volumes.append(pv(f"v{i}", node=node, claim=f"c{i}"))
        elif roll < 0.7:
            claims.append(pvc(f"c{i}", volume=f"v{i}", bound=True))  # its PV is missing
        else:
            claims.append(pvc(f"c{i}", cls="local"))
            volumes.append(pv(f"free{i}", cls="local", node=rng.choice(names)))
    listers = StaticVolumeListers(claims=claims, volumes=volumes, classes=[storage_class("local")])
    nodes = [make_node().name(n).label("kubernetes.io/hostname", n).model() for n in names]
    return FakeHandle(nodes=nodes, volumes=listers)


@pytest.mark.parametrize("seed", range(8))
def test_filter_says_what_the_per_node_match_says(seed: int) -> None:
    rng = random.Random(seed)
    handle = _handle(rng)
    plugin = VolumeBinding(args={}, handle=handle)
    shared = 0
    for index in range(30):
        builder = make_pod().name(f"p{index}").namespace("default")
        for claim in rng.sample(range(CLAIMS), rng.randint(1, 2)):
            builder.claim(f"c{claim}")
        pod = builder.model()
        state = CycleState()
        if plugin.pre_filter(state, pod, handle.list_node_infos()) is not None:
            continue
        data = state.read(_KEY)
        for info in handle.list_node_infos():
            got = plugin.filter(state, pod, info) or Status(Code.SUCCESS)
            assert data.claims is not None
            volumes, reasons = find_pod_volumes(plugin._cache, data.claims, info.node)
            want = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons) if reasons else None
            assert (got.code, got.reasons) == (
                (want.code, want.reasons) if want else (Code.SUCCESS, ())
            )
            if not reasons:
                assert data.by_node[info.name] == volumes
        shared += bool(data.same_on_every_node)
    assert shared > 0
