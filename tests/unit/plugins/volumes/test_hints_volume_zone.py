"""VolumeZone's registrations and queueing hints (upstream's
`TestIsSchedulableAfterPersistentVolumeClaimAdded`, `TestIsSchedulableAfterStorageClassAdded`
and `TestIsSchedulableAfterPersistentVolumeChange` tables)."""

from __future__ import annotations

import pytest

from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint
from kubesched.model import Pod, StorageClass
from kubesched.plugins import VolumeZone
from kubesched.testing import FakeHandle, make_pod
from tests.unit.plugins.volumes.volume_objects import pv, pvc

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
ZONE = "topology.kubernetes.io/zone"


def plugin() -> VolumeZone:
    return VolumeZone(args={}, handle=FakeHandle())


def pod_with_volume(pod: str, claim: str) -> Pod:
    return make_pod().name(pod).namespace("default").claim(claim).model()


def test_events_to_register_are_upstreams() -> None:
    pl = plugin()
    add_update = ActionType.ADD | ActionType.UPDATE
    got = [(r.event, r.hint) for r in pl.events_to_register()]
    assert got == [
        (
            ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
            pl.is_schedulable_after_storage_class_added,
        ),
        (ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), None),
        (
            ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
            pl.is_schedulable_after_persistent_volume_claim_change,
        ),
        (
            ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update),
            pl.is_schedulable_after_persistent_volume_change,
        ),
    ]


NO_CLAIMS = make_pod().name("pod_1").namespace("default").model()


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        pytest.param(
            NO_CLAIMS, None, pvc("PVC_1", volume="Vol_1"), SKIP, id="pvc-added-pod-refers-no-pvc"
        ),
        pytest.param(
            pod_with_volume("pod_1", "PVC_2"),
            None,
            pvc("PVC_1", volume="Vol_1"),
            SKIP,
            id="pvc-added-pod-bound-to-different-pvc",
        ),
        pytest.param(
            pod_with_volume("pod_1", "PVC_1"),
            None,
            pvc("PVC_1", volume="Vol_1", namespace="ns1"),
            SKIP,
            id="pvc-added-pod-bound-to-pvc-but-different-ns",
        ),
        pytest.param(
            pod_with_volume("pod_1", "PVC_1"),
            None,
            pvc("PVC_1", volume="Vol_1"),
            QUEUE,
            id="pvc-added-pod-bound-to-the-pvc",
        ),
        pytest.param(
            pod_with_volume("pod_1", "PVC_1"),
            pvc("PVC_1"),
            pvc("PVC_1", volume="Vol_1"),
            QUEUE,
            id="pvc-updated-pod-bound-to-the-pvc",
        ),
        pytest.param(
            NO_CLAIMS, pvc("PVC_1"), pvc("PVC_1", volume="Vol_1"), SKIP, id="pvc-updated-no-pvc"
        ),
        # Beyond upstream's table: an ephemeral volume's claim is VolumeBinding's concern.
        pytest.param(
            make_pod().name("p").volume({"name": "e", "ephemeral": {}}).model(),
            None,
            pvc("p-e"),
            SKIP,
            id="pvc-added-for-an-ephemeral-volume",
        ),
    ],
)
def test_is_schedulable_after_persistent_volume_claim_change(
    pod: Pod, old: object, new: object, want: QueueingHint
) -> None:
    assert plugin().is_schedulable_after_persistent_volume_claim_change(pod, old, new) is want


def test_claim_change_refuses_another_object() -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_persistent_volume_claim_change(
            pod_with_volume("pod_1", "PVC_1"), None, "not-a-pvc"
        )


def storage_class(mode: str | None) -> StorageClass:
    obj: dict[str, object] = {"metadata": {"name": "SC_1"}}
    if mode is not None:
        obj["volumeBindingMode"] = mode
    return StorageClass.from_json(obj)


@pytest.mark.parametrize(
    ("new", "want"),
    [
        pytest.param(storage_class(None), SKIP, id="sc-doesn't-have-volume-binding-mode"),
        pytest.param(
            storage_class("WaitForFirstConsumer"), QUEUE, id="new-sc-is-wait-for-first-consumer"
        ),
        pytest.param(storage_class("Immediate"), SKIP, id="new-sc-is-immediate"),
    ],
)
def test_is_schedulable_after_storage_class_added(new: StorageClass, want: QueueingHint) -> None:
    pod = pod_with_volume("pod_1", "PVC_1")
    assert plugin().is_schedulable_after_storage_class_added(pod, None, new) is want


def test_storage_class_added_refuses_another_object() -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_storage_class_added(
            pod_with_volume("pod_1", "PVC_1"), None, "not-a-storageclass"
        )


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, pv("Vol_1", labels={BETA_ZONE: "us-west1-b"}), QUEUE, id="new-pv"),
        pytest.param(
            pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
            pv("Vol_1", labels={BETA_ZONE: "us-west1-b"}),
            QUEUE,
            id="pv-updated-and-changed-topology",
        ),
        pytest.param(
            pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
            pv("Vol_1", labels={BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            QUEUE,
            id="pv-updated-and-added-topology-label",
        ),
        pytest.param(
            pv("Vol_1", labels={BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            pv("Vol_1", labels={BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            SKIP,
            id="pv-updated-but-no-topology-is-changed",
        ),
        # Beyond upstream's table: the zones are a set; other labels do not count.
        pytest.param(
            pv("Vol_1", labels={ZONE: "a__b"}),
            pv("Vol_1", labels={ZONE: "b__a", "team": "x"}),
            SKIP,
            id="pv-updated-same-zone-set-other-label",
        ),
    ],
)
def test_is_schedulable_after_persistent_volume_change(
    old: object, new: object, want: QueueingHint
) -> None:
    pod = pod_with_volume("pod_1", "PVC_1")
    assert plugin().is_schedulable_after_persistent_volume_change(pod, old, new) is want


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-pv", id="error-wrong-new-object"),
        pytest.param("not-a-pv", pv("Vol_1"), id="error-wrong-old-object"),
    ],
)
def test_persistent_volume_change_refuses_another_object(old: object, new: object) -> None:
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_persistent_volume_change(
            pod_with_volume("pod_1", "PVC_1"), old, new
        )
