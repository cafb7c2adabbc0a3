"""VolumeBinding's registrations and queueing hints (upstream's
`TestIsSchedulableAfterCSINodeChange`, `...PersistentVolumeClaimChange`, `...StorageClassChange`,
`...CSIStorageCapacityChange` and `...CSIDriverChange` tables)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint
from kubesched.model import CSIDriver, CSINode, CSIStorageCapacity, Pod, StorageClass
from kubesched.plugins import VolumeBinding
from kubesched.testing import FakeHandle, make_pod
from tests.unit.plugins.volumes.volume_objects import pvc

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"


def plugin() -> VolumeBinding:
    return VolumeBinding(args={}, handle=FakeHandle())


def pod(*volumes: dict[str, Any], namespace: str = "default") -> Pod:
    builder = make_pod().name("pod-a").namespace(namespace)
    for volume in volumes:
        builder = builder.volume(volume)
    return builder.model()


def claim_volume(name: str) -> dict[str, Any]:
    return {"name": name, "persistentVolumeClaim": {"claimName": name}}


def ephemeral(name: str) -> dict[str, Any]:
    return {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}


def inline_csi(driver: str) -> dict[str, Any]:
    return {"name": "csi", "csi": {"driver": driver}}


def test_events_to_register_are_upstreams() -> None:
    pl = plugin()
    add_update = ActionType.ADD | ActionType.UPDATE
    got = [(r.event, r.hint) for r in pl.events_to_register()]
    assert got == [
        (
            ClusterEvent(EventResource.STORAGE_CLASS, add_update),
            pl.is_schedulable_after_storage_class_change,
        ),
        (
            ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
            pl.is_schedulable_after_persistent_volume_claim_change,
        ),
        (ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update), None),
        (ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), None),
        (
            ClusterEvent(EventResource.CSI_NODE, add_update),
            pl.is_schedulable_after_csi_node_change,
        ),
        (
            ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE),
            pl.is_schedulable_after_csi_driver_change,
        ),
        (
            ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_update),
            pl.is_schedulable_after_csi_storage_capacity_change,
        ),
    ]


def csi_node(migrated: str | None = None) -> CSINode:
    meta: dict[str, Any] = {"name": "csinode-a"}
    if migrated is not None:
        meta["annotations"] = {MIGRATED: migrated}
    return CSINode.from_json({"metadata": meta, "spec": {"drivers": []}})


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, csi_node(), QUEUE, id="CSINode is newly created"),
        pytest.param(
            csi_node("test1"), csi_node("test1, test2"), QUEUE, id="migrated-plugins added"
        ),
        pytest.param(csi_node("test1"), csi_node("test2"), QUEUE, id="migrated-plugins updated"),
        pytest.param(csi_node("test1"), csi_node("test1"), SKIP, id="migrated-plugins unchanged"),
        # Beyond upstream's table: the annotation is compared as written.
        pytest.param(csi_node("a,b"), csi_node("b,a"), QUEUE, id="migrated-plugins reordered"),
        pytest.param(csi_node(None), csi_node(""), SKIP, id="empty annotation equals none"),
    ],
)
def test_is_schedulable_after_csi_node_change(old: object, new: object, want: QueueingHint) -> None:
    assert plugin().is_schedulable_after_csi_node_change(pod(), old, new) is want


@pytest.mark.parametrize(
    ("pending", "old", "new", "want"),
    [
        pytest.param(
            pod({"name": "e", "emptyDir": {}}),
            pvc("pvc-b", cls="sc-a"),
            pvc("pvc-b", cls="sc-a"),
            SKIP,
            id="pod has no pvc or ephemeral volumes",
        ),
        pytest.param(
            pod(claim_volume("pvc-a"), claim_volume("pvc-b"), namespace="ns-a"),
            None,
            pvc("pvc-b"),
            SKIP,
            id="pvc of the same name in a different namespace",
        ),
        pytest.param(
            pod(claim_volume("pvc-a"), claim_volume("pvc-c")),
            pvc("pvc-b"),
            pvc("pvc-b"),
            SKIP,
            id="pod has no pvc that is being modified",
        ),
        pytest.param(
            pod(ephemeral("ephemeral-a"), ephemeral("ephemeral-c")),
            pvc("pod-a-ephemeral-b"),
            pvc("pod-a-ephemeral-b"),
            SKIP,
            id="pod has no generic ephemeral volume that is being modified",
        ),
        pytest.param(
            pod(claim_volume("pvc-a"), claim_volume("pvc-b")),
            pvc("pvc-b"),
            pvc("pvc-b"),
            QUEUE,
            id="pod has the pvc that is being modified",
        ),
        pytest.param(
            pod(ephemeral("ephemeral-a"), ephemeral("ephemeral-b")),
            pvc("pod-a-ephemeral-b"),
            pvc("pod-a-ephemeral-b"),
            QUEUE,
            id="pod has the generic ephemeral volume that is being modified",
        ),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_change(
    pending: Pod, old: object, new: object, want: QueueingHint
) -> None:
    hint = plugin().is_schedulable_after_persistent_volume_claim_change
    assert hint(pending, old, new) is want


def storage_class(topologies: list[dict[str, Any]] | None = None) -> StorageClass:
    obj: dict[str, Any] = {"metadata": {"name": "sc-a"}}
    if topologies is not None:
        obj["allowedTopologies"] = topologies
    return StorageClass.from_json(obj)


HOST_A = [{"matchLabelExpressions": [{"key": "kubernetes.io/hostname", "values": ["node-a"]}]}]


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, storage_class(), QUEUE, id="a new StorageClass"),
        pytest.param(storage_class(), storage_class(HOST_A), QUEUE, id="AllowedTopologies changed"),
        pytest.param(storage_class(), storage_class(), SKIP, id="no changes"),
        # Beyond upstream's table: semantic equality (absent equals empty).
        pytest.param(storage_class(), storage_class([]), SKIP, id="absent equals empty list"),
        pytest.param(
            storage_class([{"matchLabelExpressions": [{"key": "k"}]}]),
            storage_class([{"matchLabelExpressions": [{"key": "k", "values": []}]}]),
            SKIP,
            id="absent values equal empty values",
        ),
        pytest.param(
            storage_class(HOST_A),
            storage_class(
                [{"matchLabelExpressions": [{"key": "kubernetes.io/hostname", "values": ["b"]}]}]
            ),
            QUEUE,
            id="a value changed",
        ),
    ],
)
def test_is_schedulable_after_storage_class_change(
    old: object, new: object, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_storage_class_change(pod(), old, new) is want


def cap(capacity: int | None = None, maximum: int | None = None) -> CSIStorageCapacity:
    obj: dict[str, Any] = {"metadata": {"name": "cap-a", "namespace": "default"}}
    if capacity is not None:
        obj["capacity"] = str(capacity)
    if maximum is not None:
        obj["maximumVolumeSize"] = str(maximum)
    return CSIStorageCapacity.from_json(obj)


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, cap(), QUEUE, id="a new CSIStorageCapacity"),
        pytest.param(cap(), cap(capacity=100), QUEUE, id="increase (Capacity set)"),
        pytest.param(cap(), cap(maximum=100), QUEUE, id="increase (MaximumVolumeSize set)"),
        pytest.param(cap(capacity=50), cap(capacity=100), QUEUE, id="increase (Capacity)"),
        pytest.param(
            cap(100, 50), cap(capacity=100), QUEUE, id="increase (MaximumVolumeSize unset)"
        ),
        pytest.param(cap(100, 50), cap(100, 60), QUEUE, id="increase (MaximumVolumeSize)"),
        pytest.param(cap(100, 50), cap(100, 50), SKIP, id="no changes"),
        pytest.param(cap(capacity=100), cap(capacity=100), SKIP, id="equal (Capacity)"),
        pytest.param(cap(100, 50), cap(capacity=50), SKIP, id="equal (MaximumVolumeSize unset)"),
        pytest.param(cap(capacity=100), cap(capacity=90), SKIP, id="decrease (Capacity)"),
        pytest.param(cap(maximum=100), cap(maximum=90), SKIP, id="decrease (MaximumVolumeSize)"),
        # Beyond upstream's table: a limit that goes away does not help.
        pytest.param(cap(capacity=100), cap(), SKIP, id="limit removed"),
    ],
)
def test_is_schedulable_after_csi_storage_capacity_change(
    old: object, new: object, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_csi_storage_capacity_change(pod(), old, new) is want


def driver(name: str, storage_capacity: bool | None = None) -> CSIDriver:
    spec = {} if storage_capacity is None else {"storageCapacity": storage_capacity}
    return CSIDriver.from_json({"metadata": {"name": name}, "spec": spec})


@pytest.mark.parametrize(
    ("pending", "old", "new", "want"),
    [
        pytest.param(
            pod(), driver("test1"), driver("test1", True), SKIP, id="pod has no CSIDriver"
        ),
        pytest.param(
            pod(inline_csi("test1")),
            driver("test2", True),
            driver("test2", False),
            SKIP,
            id="driver name in pod and csidriver name are different",
        ),
        pytest.param(
            pod(inline_csi("test1")),
            driver("test1"),
            driver("test1"),
            SKIP,
            id="original StorageCapacity is nil",
        ),
        pytest.param(
            pod(inline_csi("test1")),
            driver("test1", False),
            driver("test1", False),
            SKIP,
            id="original StorageCapacity is false",
        ),
        pytest.param(
            pod(inline_csi("test1")),
            driver("test1", True),
            driver("test1"),
            QUEUE,
            id="modified StorageCapacity is nil",
        ),
        pytest.param(
            pod(inline_csi("test1")),
            driver("test1", True),
            driver("test1", True),
            SKIP,
            id="modified StorageCapacity is true",
        ),
        pytest.param(
            pod(inline_csi("test1")),
            driver("test1", True),
            driver("test1", False),
            QUEUE,
            id="modified StorageCapacity is false",
        ),
    ],
)
def test_is_schedulable_after_csi_driver_change(
    pending: Pod, old: object, new: object, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_csi_driver_change(pending, old, new) is want


@pytest.mark.parametrize(
    "hint",
    [
        "is_schedulable_after_csi_node_change",
        "is_schedulable_after_persistent_volume_claim_change",
        "is_schedulable_after_storage_class_change",
        "is_schedulable_after_csi_storage_capacity_change",
        "is_schedulable_after_csi_driver_change",
    ],
)
def test_hints_refuse_other_objects(hint: str) -> None:
    """Upstream's `unexpected objects are passed` / `type conversion error` cases."""
    with pytest.raises(TypeError):
        getattr(plugin(), hint)(pod(inline_csi("test1")), object(), object())
