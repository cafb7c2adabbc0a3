"""VolumeZone (zonal PVs), VolumeRestrictions (ReadWriteOncePod, inline disks) and
DynamicResources (refuses resource claims)."""

from __future__ import annotations

from kubesched.framework import Code
from kubesched.framework.volumes import StaticVolumeListers
from kubesched.plugins import VolumeRestrictions, VolumeZone
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin
from tests.unit.plugins.volumes.volume_objects import pv, pvc, storage_class

ZONE = "topology.kubernetes.io/zone"
UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def nodes() -> list[object]:
    return [
        make_node().name("a1").label(ZONE, "a").model(),
        make_node().name("b1").label(ZONE, "b").model(),
        make_node().name("bare").model(),
    ]


def test_zonal_pv_fits_only_its_zone_and_nodes_without_zone_labels() -> None:
    listers = StaticVolumeListers(
        claims=[pvc("c", volume="v", bound=True)],
        volumes=[pv("v", labels={ZONE: "a__c"})],
    )
    h = FakeHandle(nodes=nodes(), volumes=listers)  # type: ignore[arg-type]
    pod = make_pod().name("p").namespace("default").claim("c").model()
    got = run_filter_plugin(VolumeZone(args={}, handle=h), pod, h.list_node_infos())
    assert {n: s.code for n, s in got.items()} == {
        "a1": Code.SUCCESS,
        "b1": UNRES,
        "bare": Code.SUCCESS,
    }
    assert got["b1"].message == "node(s) had no available volume zone"


def test_zone_leaves_wait_for_first_consumer_claims_to_volume_binding() -> None:
    listers = StaticVolumeListers(claims=[pvc("c", cls="local")], classes=[storage_class("local")])
    h = FakeHandle(nodes=nodes(), volumes=listers)  # type: ignore[arg-type]
    pod = make_pod().name("p").namespace("default").claim("c").model()
    plugin = VolumeZone(args={}, handle=h)
    assert all(s.is_success() for s in run_filter_plugin(plugin, pod, h.list_node_infos()).values())
    missing = make_pod().name("p").namespace("default").claim("nope").model()
    status = run_filter_plugin(plugin, missing, h.list_node_infos())["a1"]
    assert (status.code, status.message) == (UNRES, 'persistentvolumeclaim "nope" not found')


def test_read_write_once_pod_claim_in_use_rejects_every_node() -> None:
    listers = StaticVolumeListers(claims=[pvc("c", modes=("ReadWriteOncePod",))])
    user = make_pod().name("user").namespace("default").uid("u").node("a1").claim("c").model()
    h = FakeHandle(nodes=nodes(), pods=[user], volumes=listers)  # type: ignore[arg-type]
    pod = make_pod().name("p").namespace("default").claim("c").model()
    got = run_filter_plugin(VolumeRestrictions(args={}, handle=h), pod, h.list_node_infos())
    assert {s.code for s in got.values()} == {Code.UNSCHEDULABLE}
    assert got["b1"].message.startswith(
        "node(s) unavailable due to PersistentVolumeClaim with "
        "ReadWriteOncePod access mode already in-use"
    )


def test_inline_disks_conflict_unless_both_read_only() -> None:
    disk = {"name": "d", "gcePersistentDisk": {"pdName": "pd1", "readOnly": True}}
    rw = {"name": "d", "gcePersistentDisk": {"pdName": "pd1"}}
    user = make_pod().name("user").uid("u").node("a1").volume(disk).model()
    h = FakeHandle(nodes=nodes(), pods=[user])  # type: ignore[arg-type]
    plugin = VolumeRestrictions(args={}, handle=h)
    read_only = run_filter_plugin(
        plugin, make_pod().name("p").volume(disk).model(), h.list_node_infos()
    )
    assert read_only["a1"].is_success()
    writer = run_filter_plugin(plugin, make_pod().name("p").volume(rw).model(), h.list_node_infos())
    assert (writer["a1"].code, writer["a1"].message) == (
        Code.UNSCHEDULABLE,
        "node(s) had no available disk",
    )
    assert writer["b1"].is_success()
