"""VolumeRestrictions' registrations and queueing hints (upstream's
`Test_isSchedulableAfterAssignedPodDeleted` and `Test_isSchedulableAfterPersistentVolumeClaimChange`
tables)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint
from kubesched.model import Pod
from kubesched.plugins import VolumeRestrictions
from kubesched.testing import FakeHandle, make_pod
from tests.unit.plugins.volumes.volume_objects import pvc

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP

GCE = {"gcePersistentDisk": {"pdName": "foo"}}
GCE_2 = {"gcePersistentDisk": {"pdName": "bar"}}
AWS = {"awsElasticBlockStore": {"volumeID": "foo"}}
AWS_2 = {"awsElasticBlockStore": {"volumeID": "bar"}}
RBD = {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
RBD_2 = {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
ISCSI = {
    "iscsi": {
        "targetPortal": "127.0.0.1:3260",
        "iqn": "iqn.2016-12.server:storage.target01",
        "fsType": "ext4",
        "lun": 0,
    }
}
ISCSI_2 = {
    "iscsi": {
        "targetPortal": "127.0.0.1:3260",
        "iqn": "iqn.2017-12.server:storage.target01",
        "fsType": "ext4",
        "lun": 0,
    }
}


def plugin() -> VolumeRestrictions:
    return VolumeRestrictions(args={}, handle=FakeHandle())


def with_volume(source: dict[str, Any], name: str = "p") -> Pod:
    return make_pod().name(name).volume({"name": "v", **source}).model()


def with_claims(name: str, *claims: str, namespace: str = "default") -> Pod:
    pod = make_pod().name(name).namespace(namespace)
    for claim in claims:
        pod = pod.claim(claim)
    return pod.model()


def test_events_to_register_are_upstreams() -> None:
    pl = plugin()
    got = [(r.event, r.hint) for r in pl.events_to_register()]
    assert got == [
        (
            ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
            pl.is_schedulable_after_assigned_pod_deleted,
        ),
        (ClusterEvent(EventResource.NODE, ActionType.ADD), None),
        (
            ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
            pl.is_schedulable_after_persistent_volume_claim_added,
        ),
    ]


@pytest.mark.parametrize(
    ("pod", "deleted", "want"),
    [
        pytest.param(with_volume(GCE), with_volume(GCE, "d"), QUEUE, id="queue-gcedisk-conflict"),
        pytest.param(
            with_volume(GCE), with_volume(GCE_2, "d"), SKIP, id="skip-gcedisk-no-conflict"
        ),
        pytest.param(with_volume(AWS), with_volume(AWS, "d"), QUEUE, id="queue-awsdisk-conflict"),
        pytest.param(
            with_volume(AWS), with_volume(AWS_2, "d"), SKIP, id="skip-awsdisk-no-conflict"
        ),
        pytest.param(with_volume(RBD), with_volume(RBD, "d"), QUEUE, id="queue-rbddisk-conflict"),
        pytest.param(
            with_volume(RBD), with_volume(RBD_2, "d"), SKIP, id="skip-rbddisk-no-conflict"
        ),
        pytest.param(
            with_volume(ISCSI), with_volume(ISCSI, "d"), QUEUE, id="queue-iscsidisk-conflict"
        ),
        pytest.param(
            with_volume(ISCSI), with_volume(ISCSI_2, "d"), SKIP, id="skip-iscsidisk-no-conflict"
        ),
        pytest.param(
            with_claims("pod1", "claim-rwop"),
            with_claims("pod2", "claim-rwop"),
            QUEUE,
            id="queue-has-same-claim",
        ),
        pytest.param(
            with_claims("pod1", "claim-1-rwop"),
            with_claims("pod2", "claim-2-rwop"),
            SKIP,
            id="skip-no-same-claim",
        ),
        # Beyond upstream's table:
        pytest.param(
            with_claims("pod1", "claim"),
            with_claims("pod2", "claim", namespace="other"),
            SKIP,
            id="skip-other-namespace",
        ),
        pytest.param(
            with_volume({"gcePersistentDisk": {"pdName": "foo", "readOnly": True}}),
            with_volume({"gcePersistentDisk": {"pdName": "foo", "readOnly": True}}, "d"),
            SKIP,
            id="skip-gcedisk-both-read-only",
        ),
    ],
)
def test_is_schedulable_after_assigned_pod_deleted(
    pod: Pod, deleted: Pod, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_assigned_pod_deleted(pod, deleted, None) is want


def test_assigned_pod_deleted_refuses_another_object() -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_assigned_pod_deleted(with_volume(GCE), "not-a-pod", None)


TWO_CLAIMS = with_claims("pod-with-two-pvcs", "claim-with-rwx-1", "claim-with-rwx-2")
ONE_CLAIM = with_claims("pod-with-one-pvc", "claim-with-rwx-1")
OTHER_NAMESPACE = with_claims("pod-with-one-pvc", "claim-with-rwx-1", namespace="kube-system")
RWX_1 = pvc("claim-with-rwx-1", modes=("ReadWriteMany",))
RWX_2 = pvc("claim-with-rwx-2", modes=("ReadWriteMany",))


@pytest.mark.parametrize(
    ("pod", "added", "want"),
    [
        pytest.param(TWO_CLAIMS, RWX_1, QUEUE, id="queue-new-object-pvc-belong-pod"),
        pytest.param(ONE_CLAIM, RWX_2, SKIP, id="skip-new-object-unused"),
        pytest.param(ONE_CLAIM, RWX_2, SKIP, id="skip-nil-old-object"),
        pytest.param(ONE_CLAIM, RWX_2, SKIP, id="skip-new-object-not-belong-pod"),
        pytest.param(OTHER_NAMESPACE, RWX_1, SKIP, id="skip-new-object-namespace-not-equal-pod"),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_added(
    pod: Pod, added: object, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_persistent_volume_claim_added(pod, None, added) is want


def test_claim_added_ignores_ephemeral_volumes_and_refuses_another_object() -> None:
    pod = make_pod().name("p").volume({"name": "e", "ephemeral": {}}).model()
    hint = plugin().is_schedulable_after_persistent_volume_claim_added
    assert hint(pod, None, pvc("p-e")) is SKIP
    with pytest.raises(TypeError):
        hint(pod, None, "not-a-pvc")
