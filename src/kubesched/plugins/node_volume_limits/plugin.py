"""NodeVolumeLimits (PreFilter, Filter): CSI attach limits from each node's CSINode.

The pod's new CSI volumes plus those the node's pods and VolumeAttachments already hold,
per driver, must not exceed the driver's `allocatable.count`: else Unschedulable `node(s)
exceed max volume count`. A driver whose CSIDriver sets `preventPodSchedulingIfMissing`
must be on the node's CSINode (`<driver> CSI driver is not installed on the node`,
VolumeLimitScaling, on in v1.37). A missing claim is UnschedulableAndUnresolvable.

Queueing hints: a CSINode update that raises a driver's limit, a deleted bound (or
nominated) pod with claims or migratable inline volumes, a new claim the pod names and a
deleted VolumeAttachment (when the pod has claims or an inline volume of its driver) requeue
the pod; so does any new CSINode.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    QueueingHint,
    StateKey,
    Status,
)
from kubesched.model import CSINode, PersistentVolumeClaim, Pod, VolumeAttachment
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import event_objects
from kubesched.plugins.helper.volumes import (
    INLINE_MIGRATABLE,
    SOURCE_PLUGIN,
    inline_translation_error,
)
from kubesched.plugins.node_volume_limits.attachable import ClaimLookupError, attachable_volumes

NAME = names.NODE_VOLUME_LIMITS
ERR_MAX_VOLUME_COUNT = "node(s) exceed max volume count"
_SKIP: Final = Status(Code.SKIP)


class NodeVolumeLimits:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle
        self._prefix = secrets.token_hex(16)
        self._with_csi_node: StateKey[Mapping[str, str] | Status] = StateKey(NAME + "/csi")
        self._without_csi_node: StateKey[Mapping[str, str] | Status] = StateKey(NAME + "/none")

    def pre_filter(self, _state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        if any(v.uses_claim or v.kind in SOURCE_PLUGIN for v in pod.volumes):
            return None
        return _SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        listers = self._handle.volume_listers
        csi_node = listers.csi_node(node_info.name)
        found = self._new_volumes(state, pod, csi_node)
        if isinstance(found, Status):
            return Status(found.code, *found.reasons)
        if not found:
            return None
        missing = self._missing_driver(found.values(), csi_node)
        if missing:
            return Status(Code.UNSCHEDULABLE, f"{missing} CSI driver is not installed on the node")
        limits = {d: c for d, c in (csi_node.drivers.items() if csi_node else ()) if c is not None}
        if not limits or _surely_within(found, limits, node_info, self._attachment_count):
            return None
        new = dict(found)
        attached = self._attached(node_info, csi_node)
        for key in attached:
            new.pop(key, None)
        used = Counter(attached.values())
        for key, driver in self._attachments(node_info.name).items():
            if key not in attached:
                used[driver] += 1
        for driver, count in Counter(new.values()).items():
            if driver in limits and used[driver] + count > limits[driver]:
                return Status(Code.UNSCHEDULABLE, ERR_MAX_VOLUME_COUNT)
        return None

    def _new_volumes(
        self, state: CycleState, pod: Pod, csi_node: CSINode | None
    ) -> Mapping[str, str] | Status:
        """The pod's attachable volumes on a node with (or without) a CSINode, or the status
        of a claim lookup that failed: they depend on the node only through whether it has
        a CSINode (`attachable.migrated_driver`), so each is found once a cycle."""
        key = self._with_csi_node if csi_node is not None else self._without_csi_node
        found = state.get(key)
        if found is None:
            found = self._find_new_volumes(pod, csi_node)
            state.write(key, found)
        return found

    def _find_new_volumes(self, pod: Pod, csi_node: CSINode | None) -> Mapping[str, str] | Status:
        new: dict[str, str] = {}
        listers = self._handle.volume_listers
        try:
            attachable_volumes(listers, pod, csi_node, new_pod=True, prefix=self._prefix, into=new)
        except ClaimLookupError as error:
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if error.not_found else Code.ERROR
            return Status(code, str(error))
        return new

    def _attachment_count(self, node_name: str) -> int:
        return len(self._handle.volume_listers.volume_attachments_on(node_name))

    def _missing_driver(self, drivers: Any, csi_node: CSINode | None) -> str:
        for driver in drivers:
            csi_driver = self._handle.volume_listers.csi_driver(driver)
            if csi_driver is None or not csi_driver.prevent_pod_scheduling_if_missing:
                continue
            if csi_node is None or driver not in csi_node.drivers:
                return str(driver)
        return ""

    def _attached(self, node_info: NodeInfo, csi_node: CSINode | None) -> dict[str, str]:
        """The node's pods' volumes and its VolumeAttachments: unique name -> driver."""
        listers = self._handle.volume_listers
        attached: dict[str, str] = {}
        for existing in node_info.pods.values():
            try:
                attachable_volumes(
                    listers, existing, csi_node, new_pod=False, prefix=self._prefix, into=attached
                )
            except ClaimLookupError:
                continue
        return attached

    def _attachments(self, node_name: str) -> dict[str, str]:
        """The node's CSI VolumeAttachments: unique name -> attacher."""
        listers = self._handle.volume_listers
        found: dict[str, str] = {}
        for attachment in listers.volume_attachments_on(node_name):
            pv = listers.volume(attachment.persistent_volume_name)
            if not attachment.attacher or pv is None or pv.source[0] != "csi":
                continue
            found[f"{attachment.attacher}/{pv.source[1].get('volumeHandle') or ''}"] = (
                attachment.attacher
            )
        return found

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return (
            # Any new CSINode may bring the limits (or the driver) a pod was missing.
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE),
                self.is_schedulable_after_csi_node_updated,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                self.is_schedulable_after_assigned_pod_deleted,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                self.is_schedulable_after_pvc_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE),
                self.is_schedulable_after_volume_attachment_deleted,
            ),
        )

    def is_schedulable_after_assigned_pod_deleted(
        self, _pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when the deleted pod was on (or nominated to) a node and had a claim, an
        ephemeral volume or a migratable inline volume: it may have held an attachment."""
        deleted, _ = event_objects(Pod, old, new)
        if deleted is None:
            raise TypeError("a Pod delete without the deleted pod")
        if not deleted.node_name and not deleted.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        if any(v.uses_claim or v.kind in INLINE_MIGRATABLE for v in deleted.volumes):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pvc_added(self, pod: Pod, old: object, new: object) -> QueueingHint:
        """QUEUE when the new claim is one the pod uses (its ephemeral volumes' too)."""
        _, added = event_objects(PersistentVolumeClaim, old, new)
        if added is None:
            raise TypeError("a PersistentVolumeClaim add without the claim")
        if added.namespace == pod.namespace and any(
            v.uses_claim and v.claim_name == added.name for v in pod.volumes
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_volume_attachment_deleted(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when the pod has a `persistentVolumeClaim` volume (whatever the attachment
        was), or a migratable inline volume of the attachment's driver (or one that cannot
        be translated to CSI)."""
        deleted, _ = event_objects(VolumeAttachment, old, new)
        if deleted is None:
            raise TypeError("a VolumeAttachment delete without the attachment")
        for volume in pod.volumes:
            if volume.claim_name and not volume.ephemeral:
                return QueueingHint.QUEUE
            driver = INLINE_MIGRATABLE.get(volume.kind)
            if driver is None:
                continue
            if inline_translation_error(volume.kind, volume.source) or driver == deleted.attacher:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_node_updated(
        self, _pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when a driver's `allocatable.count` grew (a missing count is 0)."""
        before, after = event_objects(CSINode, old, new)
        if before is None or after is None:
            raise TypeError("a CSINode update without both versions")
        for driver, count in after.drivers.items():
            if (count or 0) > (before.drivers.get(driver) or 0):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def _surely_within(
    new: Mapping[str, str],
    limits: Mapping[str, int],
    node_info: NodeInfo,
    attachments: Callable[[str], int],
) -> bool:
    """True when no driver can exceed its limit whatever the node's pods hold: each of their
    volumes, and each VolumeAttachment of the node, counts at most once against a driver,
    and the pod adds at most all of `new` (so Filter's full count would pass the node)."""
    limited = [limits[driver] for driver in set(new.values()) if driver in limits]
    if not limited:
        return True
    room = min(limited) - len(new)
    if room < 0:
        return False
    held = node_info.pod_volumes
    return held <= room and held + attachments(node_info.name) <= room
