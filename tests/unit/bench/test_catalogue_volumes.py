"""The test cases of `catalogue_volumes`: each pod mounts its own claim, bound both ways to
its own PersistentVolume; SchedulingCSIPVs' nodes allow 39 CSI volumes; upstream's sizes
and thresholds."""

from __future__ import annotations

import itertools

import pytest

from kubesched.bench.catalogue import CASES, SIZES, catalogue_workload
from kubesched.bench.catalogue_volumes import NOTE, THRESHOLDS, VOLUME_CASES
from kubesched.bench.templates_volumes import CSI_ALLOCATABLE, CSI_DRIVER
from kubesched.bench.workloads import Workload
from kubesched.model import Node, Pod
from kubesched.model.csi import CSINode
from kubesched.model.storage import PersistentVolume, PersistentVolumeClaim

NAMES = [entry[0] for entry in VOLUME_CASES]


def _objects(workload: Workload, kind: str) -> list[dict[str, object]]:
    return [body for _path, body in workload.objects if body["kind"] == kind]


def test_every_case_is_registered_with_upstreams_sizes_and_threshold() -> None:
    assert set(NAMES) == {
        "SchedulingInTreePVs",
        "SchedulingMigratedInTreePVs",
        "SchedulingCSIPVs",
        "PreemptionPVs",
    }
    assert set(NAMES) <= set(CASES)
    assert THRESHOLDS == {
        "SchedulingInTreePVs": ("5000Nodes_2000Pods", 290),
        "SchedulingCSIPVs": ("5000Nodes_5000Pods", 100),
        "SchedulingMigratedInTreePVs": ("5000Nodes_5000Pods", 100),
    }
    migrated = catalogue_workload("SchedulingMigratedInTreePVs", "5000")
    assert (migrated.nodes, migrated.initial_pods, migrated.pods) == (5000, 5000, 5000)
    assert NOTE in migrated.note
    csi = catalogue_workload("SchedulingCSIPVs", "5000")
    assert (csi.nodes, csi.initial_pods, csi.pods) == (5000, 5000, 5000)
    in_tree = catalogue_workload("SchedulingInTreePVs", "5000")
    assert (in_tree.nodes, in_tree.initial_pods, in_tree.pods) == (5000, 1000, 2000)
    assert NOTE in in_tree.note


@pytest.mark.parametrize(("name", "size"), list(itertools.product(NAMES, ("5",))))
def test_each_pod_mounts_its_own_claim_bound_both_ways(name: str, size: str) -> None:
    workload = catalogue_workload(name, size)
    claims = {
        (c.namespace, c.name): c
        for c in map(PersistentVolumeClaim.from_json, _objects(workload, "PersistentVolumeClaim"))
    }
    volumes = {
        pv.name: pv
        for pv in map(PersistentVolume.from_json, _objects(workload, "PersistentVolume"))
    }
    groups = workload.initial[1:] if name == "PreemptionPVs" else workload.initial
    with_volumes = [*groups, workload.measured]
    if name == "PreemptionPVs":
        (init,) = workload.initial
        assert not any(Pod.from_json(b).volumes for _p, b in init.pods("bench"))
    assert len(claims) == len(volumes) == sum(g.count for g in with_volumes)
    for group in with_volumes:
        for _path, body in group.pods("bench"):
            pod = Pod.from_json(body)
            (mounted,) = pod.volumes
            claim = claims[(pod.namespace, mounted.claim_name)]
            assert claim.fully_bound
            volume = volumes[claim.volume_name]
            assert volume.claim_ref is not None
            assert (volume.claim_ref.namespace, volume.claim_ref.name) == (
                pod.namespace,
                claim.name,
            )


def test_csi_nodes_allow_39_volumes_of_the_driver() -> None:
    workload = catalogue_workload("SchedulingCSIPVs", "5")
    csinodes = [CSINode.from_json(b) for b in _objects(workload, "CSINode")]
    nodes = [Node.from_json(workload.node(i)) for i in range(workload.nodes)]
    assert [c.name for c in csinodes] == [n.name for n in nodes]
    assert all(c.drivers == {CSI_DRIVER: 39} for c in csinodes)
    assert all(n.allocatable.scalar[CSI_ALLOCATABLE] == 39 for n in nodes)
    (pv, *_rest) = map(PersistentVolume.from_json, _objects(workload, "PersistentVolume"))
    assert pv.source[0] == "csi"
    in_tree = catalogue_workload("SchedulingInTreePVs", "5")
    assert not _objects(in_tree, "CSINode")
    (aws, *_rest) = map(PersistentVolume.from_json, _objects(in_tree, "PersistentVolume"))
    assert aws.source[0] == "awsElasticBlockStore"


def test_migrated_in_tree_volumes_sit_on_nodes_whose_csinode_migrates_aws_ebs() -> None:
    workload = catalogue_workload("SchedulingMigratedInTreePVs", "500")
    assert (workload.nodes, workload.initial_pods, workload.pods) == (500, 500, 1000)
    csinodes = [CSINode.from_json(b) for b in _objects(workload, "CSINode")]
    assert len(csinodes) == 500
    assert all(c.drivers == {CSI_DRIVER: 39} for c in csinodes)
    assert all(c.migrated_plugins == {"kubernetes.io/aws-ebs"} for c in csinodes)
    node = Node.from_json(workload.node(7))
    assert node.name == csinodes[7].name
    assert node.allocatable.scalar[CSI_ALLOCATABLE] == 39
    volumes = [PersistentVolume.from_json(b) for b in _objects(workload, "PersistentVolume")]
    assert len(volumes) == 1500
    assert {pv.source[0] for pv in volumes} == {"awsElasticBlockStore"}
    plain = catalogue_workload("SchedulingCSIPVs", "5")
    assert all(not CSINode.from_json(b).migrated_plugins for b in _objects(plain, "CSINode"))


def test_preemption_pvs_preempt_with_priority_10_and_no_ceiling() -> None:
    workload = catalogue_workload("PreemptionPVs", "500")
    assert (workload.nodes, workload.initial_pods, workload.pods) == (1000, 4000, 1000)
    assert not workload.ceiling
    assert dict(workload.priority_classes) == {"bench-priority-10": 10}
    assert "1000Nodes" in workload.note


def test_every_size_builds() -> None:
    for name, size in itertools.product(NAMES, SIZES):
        workload = catalogue_workload(name, size)
        assert workload.name == name
        assert len(_objects(workload, "PersistentVolume")) >= workload.pods
