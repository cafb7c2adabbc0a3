"""NodeVolumeLimits' registrations and queueing hints (upstream's `TestCSILimitsQHint`,
`TestCSILimitsAddedPVCQHint`, `TestCSILimitsDeletedVolumeAttachmentQHint` and
`TestCSILimitsAfterCSINodeUpdatedQHint` tables)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint
from kubesched.model import CSINode, Pod, VolumeAttachment
from kubesched.plugins import NodeVolumeLimits
from kubesched.testing import FakeHandle, make_pod
from tests.unit.plugins.volumes.volume_objects import pvc

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
EBS = "ebs.csi.aws.com"


def plugin() -> NodeVolumeLimits:
    return NodeVolumeLimits(args={}, handle=FakeHandle())


def pod(*volumes: dict[str, Any], name: str = "p", namespace: str = "ns1") -> Pod:
    builder = make_pod().name(name).namespace(namespace)
    for i, volume in enumerate(volumes):
        builder = builder.volume({"name": f"v{i}", **volume})
    return builder.model()


def claim(name: str) -> dict[str, Any]:
    return {"persistentVolumeClaim": {"claimName": name}}


def test_events_to_register_are_upstreams() -> None:
    pl = plugin()
    got = [(r.event, r.hint) for r in pl.events_to_register()]
    assert got == [
        (ClusterEvent(EventResource.CSI_NODE, ActionType.ADD), None),
        (
            ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE),
            pl.is_schedulable_after_csi_node_updated,
        ),
        (
            ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
            pl.is_schedulable_after_assigned_pod_deleted,
        ),
        (
            ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
            pl.is_schedulable_after_pvc_added,
        ),
        (
            ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE),
            pl.is_schedulable_after_volume_attachment_deleted,
        ),
    ]


def deleted_pod(*volumes: dict[str, Any], node: str = "node", nominated: str = "") -> Pod:
    builder = make_pod().name("deleted")
    for i, volume in enumerate(volumes):
        builder = builder.volume({"name": f"v{i}", **volume})
    if node:
        builder = builder.node(node)
    if nominated:
        builder = builder.nominated_node(nominated)
    return builder.model()


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        pytest.param(deleted_pod(claim("placeholder")), QUEUE, id="deleted pod has a PVC"),
        pytest.param(
            deleted_pod({"awsElasticBlockStore": {}}),
            QUEUE,
            id="deleted pod has an inline migratable volume",
        ),
        pytest.param(deleted_pod(), SKIP, id="deleted pod has no volume"),
        pytest.param(
            deleted_pod(claim("csi-ebs.csi.aws.com-0"), node=""),
            SKIP,
            id="deleted pod is not scheduled",
        ),
        # Beyond upstream's table:
        pytest.param(
            deleted_pod(claim("c"), node="", nominated="node"),
            QUEUE,
            id="deleted pod was nominated",
        ),
        pytest.param(
            deleted_pod({"ephemeral": {}}), QUEUE, id="deleted pod has an ephemeral volume"
        ),
        pytest.param(
            deleted_pod({"vsphereVolume": {"volumePath": "x"}}),
            QUEUE,
            id="deleted pod has an inline vSphere volume (migratable, migration off)",
        ),
        pytest.param(
            deleted_pod({"emptyDir": {}}, {"rbd": {"image": "x"}}),
            SKIP,
            id="deleted pod has only volumes that are not attached by CSI",
        ),
    ],
)
def test_is_schedulable_after_assigned_pod_deleted(deleted: Pod, want: QueueingHint) -> None:
    pending = pod(claim("csi-ebs.csi.aws.com-2"))
    assert plugin().is_schedulable_after_assigned_pod_deleted(pending, deleted, None) is want


@pytest.mark.parametrize(
    ("pending", "added", "want"),
    [
        pytest.param(pod(), pvc("x", namespace="ns2"), SKIP, id="pod in another namespace"),
        pytest.param(
            pod(claim("pvc1")), pvc("pvc1", namespace="ns1"), QUEUE, id="pod uses the added PVC"
        ),
        pytest.param(
            make_pod()
            .name("pod1")
            .namespace("ns1")
            .volume({"name": "ephemeral", "ephemeral": {}})
            .model(),
            pvc("pod1-ephemeral", namespace="ns1"),
            QUEUE,
            id="pod has an ephemeral volume of the added PVC",
        ),
        pytest.param(
            pod(claim("pvc1")), pvc("pvc2", namespace="ns1"), SKIP, id="pod uses another PVC"
        ),
        pytest.param(pod(), pvc("pvc2", namespace="ns1"), SKIP, id="pod has no PVC"),
    ],
)
def test_is_schedulable_after_pvc_added(pending: Pod, added: object, want: QueueingHint) -> None:
    assert plugin().is_schedulable_after_pvc_added(pending, None, added) is want


def attachment(attacher: str, *, pv: str = "") -> VolumeAttachment:
    source: dict[str, Any] = (
        {"persistentVolumeName": pv} if pv else {"inlineVolumeSpec": {"csi": {"driver": attacher}}}
    )
    spec = {"nodeName": "fake-node", "attacher": attacher, "source": source}
    return VolumeAttachment.from_json({"metadata": {"name": "volumeattachment1"}, "spec": spec})


AWS_INLINE = {"awsElasticBlockStore": {"volumeID": "test"}}
GCE_INLINE = {"gcePersistentDisk": {"pdName": "test"}}
GKE = "test.storage.gke.io"


@pytest.mark.parametrize(
    ("pending", "deleted", "want"),
    [
        pytest.param(pod(claim("pvc1")), attachment(GKE, pv="pv1"), QUEUE, id="pod has a PVC"),
        pytest.param(
            pod(AWS_INLINE), attachment(EBS), QUEUE, id="inline EBS volume, EBS attachment"
        ),
        pytest.param(
            pod(GCE_INLINE), attachment(EBS), SKIP, id="inline GCE PD volume, EBS attachment"
        ),
        pytest.param(
            pod(AWS_INLINE, claim("pvc1")),
            attachment(EBS),
            QUEUE,
            id="inline EBS volume and PVC, EBS attachment",
        ),
        pytest.param(
            pod(AWS_INLINE, claim("pvc1")),
            attachment(GKE, pv="pv1"),
            QUEUE,
            id="inline EBS volume and PVC, other attachment",
        ),
        pytest.param(pod(), attachment(GKE, pv="pv1"), SKIP, id="pod has no PVC"),
        # Beyond upstream's table: a volume csi-translation-lib cannot translate requeues
        # (upstream's hint errs); an ephemeral volume is not a PVC volume.
        pytest.param(
            pod({"azureDisk": {"diskName": "d", "diskURI": "u", "kind": "Shared"}}),
            attachment(EBS),
            QUEUE,
            id="inline shared Azure disk (no CSI translation)",
        ),
        pytest.param(
            pod({"azureDisk": {"diskName": "d", "diskURI": "u", "kind": "Managed"}}),
            attachment(EBS),
            SKIP,
            id="inline managed Azure disk, EBS attachment",
        ),
        pytest.param(
            pod({"awsElasticBlockStore": {"volumeID": "aws://us-east-1a/bad"}}),
            attachment(GKE),
            QUEUE,
            id="inline EBS volume with a malformed aws:// ID",
        ),
        pytest.param(
            pod({"awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-1"}}),
            attachment(GKE),
            SKIP,
            id="inline EBS volume with an aws:// ID, other attachment",
        ),
        pytest.param(
            pod({"azureFile": {"secretName": "s", "shareName": "x"}}),
            attachment("file.csi.azure.com"),
            QUEUE,
            id="inline Azure file, its driver's attachment",
        ),
        pytest.param(
            pod({"ephemeral": {}}), attachment(GKE, pv="pv1"), SKIP, id="ephemeral volume only"
        ),
    ],
)
def test_is_schedulable_after_volume_attachment_deleted(
    pending: Pod, deleted: VolumeAttachment, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_volume_attachment_deleted(pending, deleted, None) is want


def csi_node(count: int | None, driver: str = EBS) -> CSINode:
    entry: dict[str, Any] = {"name": driver, "nodeID": "test-node"}
    if count is not None:
        entry["allocatable"] = {"count": count}
    return CSINode.from_json({"metadata": {"name": "test-node"}, "spec": {"drivers": [entry]}})


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(csi_node(1), csi_node(2), QUEUE, id="limit raised"),
        pytest.param(csi_node(2), csi_node(1), SKIP, id="limit decreased"),
        pytest.param(csi_node(1), csi_node(1), SKIP, id="limit unchanged"),
        # Beyond upstream's table: a missing count or driver is 0.
        pytest.param(csi_node(None), csi_node(1), QUEUE, id="limit appeared"),
        pytest.param(csi_node(3, "other"), csi_node(1), QUEUE, id="new driver with a limit"),
        pytest.param(csi_node(1), csi_node(None), SKIP, id="limit removed"),
    ],
)
def test_is_schedulable_after_csi_node_updated(
    old: CSINode, new: CSINode, want: QueueingHint
) -> None:
    pending = pod(claim("csi-ebs.csi.aws.com-0"), name="test-pod")
    assert plugin().is_schedulable_after_csi_node_updated(pending, old, new) is want


@pytest.mark.parametrize(
    ("hint", "old", "new"),
    [
        ("is_schedulable_after_assigned_pod_deleted", "not-a-pod", None),
        ("is_schedulable_after_pvc_added", None, "not-a-pvc"),
        ("is_schedulable_after_volume_attachment_deleted", "not-an-attachment", None),
        ("is_schedulable_after_csi_node_updated", csi_node(1), "not-a-csinode"),
    ],
)
def test_hints_refuse_other_objects(hint: str, old: object, new: object) -> None:
    with pytest.raises(TypeError):
        getattr(plugin(), hint)(pod(claim("c")), old, new)
