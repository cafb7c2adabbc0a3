"""NodeVolumeLimits' Filter, with the pod's volumes found once a cycle and nodes passed at
once when even every volume of their pods could not reach a limit, says on every node what
the full count says (the plain path, written here from the plugin's own counting helpers),
on seeded random clusters: CSI and migrated in-tree volumes, claims shared between pods,
unbound claims counted under their class, missing claims, nodes with and without CSINodes,
limits from 0 to 4."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.framework.volumes import StaticVolumeListers
from kubesched.model import Pod
from kubesched.plugins import NodeVolumeLimits
from kubesched.plugins.node_volume_limits.attachable import ClaimLookupError, attachable_volumes
from kubesched.plugins.node_volume_limits.plugin import ERR_MAX_VOLUME_COUNT
from kubesched.testing import FakeHandle, make_node, make_pod
from tests.unit.plugins.volumes.volume_objects import csi_node, pv, pvc, storage_class

DRIVERS = ("ebs.csi.aws.com", "pd.csi.storage.gke.io")
CLAIMS = 14


def _listers(rng: random.Random, nodes: list[str]) -> StaticVolumeListers:
    claims, volumes = [], []
    for i in range(CLAIMS):
        kind = rng.random()
        if kind < 0.6:
            claims.append(pvc(f"c{i}", volume=f"pv{i}", bound=True))
            volumes.append(pv(f"pv{i}", csi=(rng.choice(DRIVERS), f"h{i}")))
        elif kind < 0.8:
            claims.append(pvc(f"c{i}", cls=rng.choice(("gp3", "none"))))
        else:  # bound to a volume that does not exist
            claims.append(pvc(f"c{i}", volume=f"pv{i}", bound=True))
    csi_nodes = []
    for name in nodes:
        if rng.random() < 0.8:
            limits = {d.replace(".", "_"): rng.randint(0, 4) for d in rng.sample(DRIVERS, 1)}
            csi_nodes.append(csi_node(name, **limits))
    return StaticVolumeListers(
        claims=claims,
        volumes=volumes,
        classes=[storage_class("gp3", provisioner=DRIVERS[0])],
        csi_nodes=csi_nodes,
    )


def _pod(rng: random.Random, name: str, node: str = "") -> Pod:
    builder = make_pod().name(name).namespace("default").uid(f"uid-{name}")
    if node:
        builder.node(node)
    for index in rng.sample(range(CLAIMS + 1), rng.randint(0, 3)):
        builder.claim(f"c{index}")  # c14 exists nowhere
    if rng.random() < 0.15:
        builder.volume({"name": "disk", "awsElasticBlockStore": {"volumeID": f"vol-{name}"}})
    return builder.model()


def _plain(plugin: NodeVolumeLimits, handle: FakeHandle, pod: Pod, info: NodeInfo) -> Status:
    """The full count on one node, as the Filter read before it took shortcuts."""
    listers = handle.volume_listers
    csi = listers.csi_node(info.name)
    new: dict[str, str] = {}
    try:
        attachable_volumes(listers, pod, csi, new_pod=True, prefix=plugin._prefix, into=new)
    except ClaimLookupError as error:
        code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if error.not_found else Code.ERROR
        return Status(code, str(error))
    limits = {d: c for d, c in (csi.drivers.items() if csi else ()) if c is not None}
    if not new or not limits:
        return Status(Code.SUCCESS)
    attached = plugin._attached(info, csi)
    for key in attached:
        new.pop(key, None)
    used = Counter(attached.values())
    for driver, count in Counter(new.values()).items():
        if driver in limits and used[driver] + count > limits[driver]:
            return Status(Code.UNSCHEDULABLE, ERR_MAX_VOLUME_COUNT)
    return Status(Code.SUCCESS)


@pytest.mark.parametrize("seed", range(8))
def test_fast_filter_says_what_the_full_count_says(seed: int) -> None:
    rng = random.Random(seed)
    names = [f"n{i}" for i in range(12)]
    handle = FakeHandle(
        nodes=[make_node().name(name).model() for name in names],
        volumes=_listers(rng, names),
    )
    for index in range(30):
        held = _pod(rng, f"held{index}", rng.choice(names))
        if all(
            handle.volume_listers.claim("default", v.claim_name)
            for v in held.volumes
            if v.uses_claim
        ):
            handle.add_pod(held)
            if rng.random() < 0.2:  # and gone again: the node's volume count goes down
                info = handle.get_node_info(held.node_name)
                assert info is not None
                info.remove_pod(held.uid)
    for info in handle.list_node_infos():
        assert info.pod_volumes == sum(len(pod.volumes) for pod in info.pods.values())
    plugin = NodeVolumeLimits(args={}, handle=handle)
    rejected = 0
    for index in range(40):
        pod = _pod(rng, f"new{index}")
        state = CycleState()
        if plugin.pre_filter(state, pod, handle.list_node_infos()) is not None:
            continue
        for info in handle.list_node_infos():
            got = plugin.filter(state, pod, info) or Status(Code.SUCCESS)
            want = _plain(plugin, handle, pod, info)
            assert (got.code, got.reasons) == (want.code, want.reasons), (seed, index, info.name)
            rejected += got.code is Code.UNSCHEDULABLE
    assert rejected > 0
