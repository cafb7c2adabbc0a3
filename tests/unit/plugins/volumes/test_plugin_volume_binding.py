"""VolumeBinding: claims decide the nodes, Reserve/PreBind/Unreserve bind through the Handle."""

from __future__ import annotations

import asyncio

import pytest

from kubesched.framework import Code, CycleState
from kubesched.framework.volumes import StaticVolumeListers
from kubesched.model import ANN_SELECTED_NODE
from kubesched.plugins import VolumeBinding
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin
from tests.unit.plugins.volumes.volume_objects import capacity, csi_driver, pv, pvc, storage_class

NODES = [
    make_node().name(n).label("kubernetes.io/hostname", n).label("zone", z).model()
    for n, z in (("n1", "a"), ("n2", "b"))
]
WFFC = storage_class("local")


def handle(*objects: object) -> FakeHandle:
    listers = StaticVolumeListers(
        claims=[o for o in objects if type(o).__name__ == "PersistentVolumeClaim"],  # type: ignore[misc]
        volumes=[o for o in objects if type(o).__name__ == "PersistentVolume"],  # type: ignore[misc]
        classes=[o for o in objects if type(o).__name__ == "StorageClass"],  # type: ignore[misc]
        csi_drivers=[o for o in objects if type(o).__name__ == "CSIDriver"],  # type: ignore[misc]
        capacities=[o for o in objects if type(o).__name__ == "CSIStorageCapacity"],  # type: ignore[misc]
    )
    return FakeHandle(nodes=NODES, volumes=listers)


def verdicts(h: FakeHandle, *claims: str) -> dict[str, tuple[Code, str]]:
    pod = make_pod().name("p").namespace("default")
    for name in claims:
        pod = pod.claim(name)
    plugin = VolumeBinding(args={}, handle=h)
    out = run_filter_plugin(plugin, pod.model(), h.list_node_infos())
    return {n: (s.code, s.message) for n, s in out.items()}


OK = (Code.SUCCESS, "")
UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        pytest.param([], {"n1": OK, "n2": OK}, id="no-claims"),
        pytest.param(
            [pvc("c", volume="v", bound=True), pv("v", node="n2", claim="c")],
            {"n1": (UNRES, "node(s) didn't match PersistentVolume's node affinity"), "n2": OK},
            id="bound-local-pv",
        ),
        pytest.param(
            [pvc("c", volume="gone", bound=True)],
            {
                "n1": (
                    UNRES,
                    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
                )
            },
            id="bound-pv-missing",
        ),
        pytest.param(
            [WFFC, pvc("c", cls="local"), pv("v", node="n1", cls="local")],
            {"n1": OK, "n2": (UNRES, "node(s) didn't find available persistent volumes to bind")},
            id="wffc-static",
        ),
        pytest.param(
            [WFFC, pvc("c", cls="local"), pv("v", node="n1", cls="local", size="1Mi")],
            {"n1": (UNRES, "node(s) didn't find available persistent volumes to bind")},
            id="pv-too-small",
        ),
        pytest.param(
            [WFFC, pvc("c", cls="local", annotations={ANN_SELECTED_NODE: "n2"})],
            {"n1": (UNRES, "node(s) didn't find available persistent volumes to bind")},
            id="selected-other-node-no-provisioner",
        ),
        pytest.param(
            [storage_class("imm", wait=False), pvc("c", cls="imm")],
            {"n1": (UNRES, "pod has unbound immediate PersistentVolumeClaims")},
            id="unbound-immediate",
        ),
    ],
)
def test_filter(objects: list[object], expected: dict[str, tuple[Code, str]]) -> None:
    claims = ["c"] if any(type(o).__name__ == "PersistentVolumeClaim" for o in objects) else []
    got = verdicts(handle(*objects), *claims)
    assert {n: got[n] for n in expected} == expected


def test_missing_claim_is_unresolvable() -> None:
    assert verdicts(handle(), "nope")["n1"] == (UNRES, 'persistentvolumeclaim "nope" not found')


def test_dynamic_provisioning_checks_topology_and_capacity() -> None:
    cls = storage_class(
        "csi",
        provisioner="csi.example.com",
        topologies=[{"matchLabelExpressions": [{"key": "zone", "values": ["a", "b"]}]}],
    )
    h = handle(
        cls,
        pvc("c", cls="csi", size="5Gi"),
        csi_driver("csi.example.com", storageCapacity=True),
        capacity("csi", "10Gi", zone="a"),
        capacity("csi", "1Gi", zone="b"),
    )
    got = verdicts(h, "c")
    assert got["n1"] == OK
    assert got["n2"] == (UNRES, "node(s) did not have enough free storage")


def test_smallest_matching_volume_is_chosen_and_scored() -> None:
    h = handle(
        WFFC,
        pvc("c", cls="local", size="1Gi"),
        pv("big", node="n1", cls="local", size="4Gi"),
        pv("small", node="n1", cls="local", size="2Gi"),
    )
    pod = make_pod().name("p").namespace("default").claim("c").model()
    plugin = VolumeBinding(args={}, handle=h)
    state = CycleState()
    run_filter_plugin(plugin, pod, h.list_node_infos(), state=state)
    scores = run_score_plugin(plugin, pod, h.list_node_infos()[:1], state=state)
    assert scores == {"n1": 50}  # 1Gi of 2Gi used: shape (0,10),(100,0) -> 100 - 50


def test_reserve_assumes_the_binding_pre_bind_writes_it_unreserve_forgets_it() -> None:
    h = handle(WFFC, pvc("c", cls="local"), pvc("c2", cls="local"), pv("v", node="n1", cls="local"))
    pod = make_pod().name("p").namespace("default").claim("c").model()
    plugin = VolumeBinding(args={"bindTimeoutSeconds": 0}, handle=h)
    state = CycleState()
    run_filter_plugin(plugin, pod, h.list_node_infos(), state=state)
    assert plugin.reserve(state, pod, "n1") is None
    second = make_pod().name("q").namespace("default").claim("c2").model()
    taken = run_filter_plugin(plugin, second, h.list_node_infos())
    assert taken["n1"].code is UNRES, "the assumed PV is no longer available"
    plugin.unreserve(state, pod, "n1")
    assert run_filter_plugin(plugin, second, h.list_node_infos())["n1"].is_success()
    state = CycleState()
    run_filter_plugin(plugin, pod, h.list_node_infos(), state=state)
    plugin.reserve(state, pod, "n1")
    status = asyncio.run(plugin.pre_bind(state, pod, "n1"))
    assert h.volume_writes == [("bind", "v", "default/c")]
    assert status is not None
    assert "context deadline exceeded" in status.message, "the PV controller never bound it"


def test_provisioning_annotates_the_claim_with_the_selected_node() -> None:
    cls = storage_class("csi", provisioner="csi.example.com")
    h = handle(cls, pvc("c", cls="csi"))
    pod = make_pod().name("p").namespace("default").claim("c").model()
    plugin = VolumeBinding(args={"bindTimeoutSeconds": 0}, handle=h)
    state = CycleState()
    run_filter_plugin(plugin, pod, h.list_node_infos(), state=state)
    plugin.reserve(state, pod, "n2")
    asyncio.run(plugin.pre_bind(state, pod, "n2"))
    assert h.volume_writes == [("select-node", "default/c", "n2")]
    assert h.volumes.claims["default/c"].annotations[ANN_SELECTED_NODE] == "n2"


def test_a_pod_whose_claims_are_bound_needs_no_pre_bind() -> None:
    h = handle(pvc("c", volume="v", bound=True), pv("v", claim="c", phase="Bound"))
    pod = make_pod().name("p").namespace("default").claim("c").model()
    plugin = VolumeBinding(args={}, handle=h)
    state = CycleState()
    run_filter_plugin(plugin, pod, h.list_node_infos(), state=state)
    plugin.reserve(state, pod, "n1")
    assert asyncio.run(plugin.pre_bind(state, pod, "n1")) is None
    assert h.volume_writes == []


def test_args_are_checked() -> None:
    with pytest.raises(ValueError, match="bindTimeoutSeconds"):
        VolumeBinding(args={"bindTimeoutSeconds": -1}, handle=handle())
    with pytest.raises(ValueError, match="sorted in increasing order"):
        VolumeBinding(
            args={"shape": [{"utilization": 50, "score": 1}, {"utilization": 10, "score": 2}]},
            handle=handle(),
        )
