"""NodeVolumeLimits: CSI attach limits per driver from CSINodes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict, Unpack

from kubesched.framework import Code
from kubesched.framework.volumes import StaticVolumeListers
from kubesched.model import (
    CSIDriver,
    CSINode,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from kubesched.plugins import NodeVolumeLimits
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin
from tests.unit.plugins.volumes.volume_objects import csi_driver, csi_node, pv, pvc, storage_class

DRIVER = "ebs.csi.aws.com"


class Listers(TypedDict, total=False):
    claims: Iterable[PersistentVolumeClaim]
    volumes: Iterable[PersistentVolume]
    classes: Iterable[StorageClass]
    csi_nodes: Iterable[CSINode]
    csi_drivers: Iterable[CSIDriver]


def run(
    *claim_names: str, inline: dict[str, object] | None = None, **listers: Unpack[Listers]
) -> dict[str, tuple[Code, str]]:
    held = make_pod().name("held").namespace("default").uid("h").node("full").claim("held").model()
    h = FakeHandle(
        nodes=[make_node().name(n).model() for n in ("full", "free")],
        pods=[held],
        volumes=StaticVolumeListers(**listers),
    )
    pod = make_pod().name("p").namespace("default")
    for claim in claim_names:
        pod = pod.claim(claim)
    if inline:
        pod = pod.volume(inline)
    got = run_filter_plugin(NodeVolumeLimits(args={}, handle=h), pod.model(), h.list_node_infos())
    return {n: (s.code, s.message) for n, s in got.items()}


OBJECTS: Listers = {
    "claims": [
        pvc("held", volume="pv-held", bound=True),
        pvc("new", volume="pv-new", bound=True),
        pvc("unbound", cls="gp3"),
    ],
    "volumes": [pv("pv-held", csi=(DRIVER, "h")), pv("pv-new", csi=(DRIVER, "n"))],
    "classes": [storage_class("gp3", provisioner=DRIVER)],
    "csi_nodes": [csi_node("full", ebs_csi_aws_com=1), csi_node("free", ebs_csi_aws_com=1)],
}
OK = (Code.SUCCESS, "")
FULL = (Code.UNSCHEDULABLE, "node(s) exceed max volume count")


def test_a_new_csi_volume_does_not_fit_a_full_node() -> None:
    assert run("new", **OBJECTS) == {"full": FULL, "free": OK}


def test_an_unbound_claim_counts_under_its_class_provisioner() -> None:
    assert run("unbound", **OBJECTS) == {"full": FULL, "free": OK}


def test_a_volume_already_attached_to_the_node_is_not_counted_twice() -> None:
    assert run("held", **OBJECTS)["full"] == OK


def test_inline_ebs_is_translated_to_its_csi_driver() -> None:
    inline: dict[str, object] = {
        "name": "x",
        "awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-1"},
    }
    assert run(inline=inline, **OBJECTS) == {"full": FULL, "free": OK}


def test_missing_claim_and_missing_driver() -> None:
    missing = run("nope", **OBJECTS)["free"]
    assert missing == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        'looking up PVC default/nope: persistentvolumeclaim "nope" not found',
    )
    objects: Listers = {
        **OBJECTS,
        "csi_nodes": [],
        "csi_drivers": [csi_driver(DRIVER, preventPodSchedulingIfMissing=True)],
    }
    assert run("new", **objects)["free"] == (
        Code.UNSCHEDULABLE,
        f"{DRIVER} CSI driver is not installed on the node",
    )
