"""VolumeRestrictions (PreFilter with extensions, Filter): volumes that cannot be shared.

* A ReadWriteOncePod claim already used by a pod in the cluster (any node) makes every node
  Unschedulable: `node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod
  access mode already in-use by another pod` (preemption may evict that pod).
* Inline GCE PD, AWS EBS, iSCSI and RBD disks conflict with the same disk of a pod on the
  node (unless both mount it read-only; EBS always): `node(s) had no available disk`.
* A missing claim: UnschedulableAndUnresolvable `persistentvolumeclaim "x" not found`.

Queueing hints: a deleted bound pod of the namespace requeues the pod when it held one of
its disks or claims; a new claim when the pod uses it; any new node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
from kubesched.model import READ_WRITE_ONCE_POD, PersistentVolumeClaim, Pod, PodVolume
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import event_objects
from kubesched.plugins.helper.volumes import claim_not_found

NAME = names.VOLUME_RESTRICTIONS
ERR_DISK_CONFLICT = "node(s) had no available disk"
ERR_RWOP_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)
_CHECKED_KINDS = frozenset({"gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi"})
_SKIP: Final = Status(Code.SKIP)


@dataclass(slots=True)
class _State:
    rwop_claims: frozenset[str]
    conflicts: int

    def clone(self) -> _State:
        return _State(self.rwop_claims, self.conflicts)

    def count(self, pod: Pod) -> int:
        return sum(
            1
            for v in pod.volumes
            if v.claim_name and not v.ephemeral and v.claim_name in self.rwop_claims
        )


_KEY: StateKey[_State] = StateKey("PreFilter" + NAME)


class VolumeRestrictions:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        needs_check = any(v.kind in _CHECKED_KINDS for v in pod.volumes)
        rwop: set[str] = set()
        listers = self._handle.volume_listers
        for volume in pod.volumes:
            if not volume.claim_name or volume.ephemeral:
                continue
            claim = listers.claim(pod.namespace, volume.claim_name)
            if claim is None:
                return Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, claim_not_found(volume.claim_name)
                )
            if READ_WRITE_ONCE_POD in claim.access_modes:
                rwop.add(claim.name)
        conflicts = _claims_in_use(pod.namespace, rwop, nodes) if rwop else 0
        if not needs_check and conflicts == 0:
            return _SKIP
        state.write(_KEY, _State(frozenset(rwop), conflicts))
        return None

    def add_pod(self, state: CycleState, pod: Pod, added: Pod, _node_info: NodeInfo) -> None:
        data = state.read(_KEY)
        if added.namespace == pod.namespace:
            data.conflicts += data.count(added)

    def remove_pod(self, state: CycleState, pod: Pod, removed: Pod, _node_info: NodeInfo) -> None:
        data = state.read(_KEY)
        if removed.namespace == pod.namespace:
            data.conflicts -= data.count(removed)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        for volume in pod.volumes:
            if volume.kind in _CHECKED_KINDS and any(
                _conflict(volume, other) for other in node_info.pods.values()
            ):
                return Status(Code.UNSCHEDULABLE, ERR_DISK_CONFLICT)
        data = state.get(_KEY)
        if data is not None and data.conflicts > 0:
            return Status(Code.UNSCHEDULABLE, ERR_RWOP_CONFLICT)
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return (
            # Pods conflict with the disks and ReadWriteOncePod claims of bound pods; their
            # volumes are immutable, so only a deletion releases them.
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                self.is_schedulable_after_assigned_pod_deleted,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            # A missing claim (its access modes are read in PreFilter) may be created.
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                self.is_schedulable_after_persistent_volume_claim_added,
            ),
        )

    def is_schedulable_after_persistent_volume_claim_added(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when the new claim is one the pod names (in its namespace)."""
        _, claim = event_objects(PersistentVolumeClaim, old, new)
        if claim is None:
            raise TypeError("a PersistentVolumeClaim add without the claim")
        if claim.namespace == pod.namespace and claim.name in _claim_names(pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_assigned_pod_deleted(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when the deleted pod (of the namespace) held a disk that conflicts with
        the pod's or one of its claims (maybe ReadWriteOncePod: the claim is not looked up
        to keep the hint cheap, as upstream)."""
        deleted, _ = event_objects(Pod, old, new)
        if deleted is None:
            raise TypeError("a Pod delete without the deleted pod")
        if deleted.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if any(v.kind in _CHECKED_KINDS and _conflict(v, deleted) for v in pod.volumes):
            return QueueingHint.QUEUE
        if _claim_names(pod) & _claim_names(deleted):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def _claim_names(pod: Pod) -> set[str]:
    """The claims of the pod's `persistentVolumeClaim` volumes (not its ephemeral ones)."""
    return {v.claim_name for v in pod.volumes if v.claim_name and not v.ephemeral}


def _claims_in_use(namespace: str, claims: set[str], nodes: Sequence[NodeInfo]) -> int:
    """How many of `claims` pods in the snapshot use (upstream `IsPVCUsedByPods`)."""
    used: set[str] = set()
    for node_info in nodes:
        for other in node_info.pods.values():
            if other.namespace == namespace:
                used.update(v.claim_name for v in other.volumes if v.claim_name in claims)
    return len(used)


def _conflict(volume: PodVolume, other: Pod) -> bool:
    for existing in other.volumes:
        if existing.kind != volume.kind:
            continue
        if _same_disk(volume.kind, volume.source, existing.source):
            return True
    return False


def _same_disk(kind: str, mine: Mapping[str, Any], theirs: Mapping[str, Any]) -> bool:
    both_read_only = bool(mine.get("readOnly")) and bool(theirs.get("readOnly"))
    if kind == "gcePersistentDisk":
        return mine.get("pdName") == theirs.get("pdName") and not both_read_only
    if kind == "awsElasticBlockStore":
        return mine.get("volumeID") == theirs.get("volumeID")
    if kind == "iscsi":
        return mine.get("iqn") == theirs.get("iqn") and not both_read_only
    monitors = set(mine.get("monitors") or ()) & set(theirs.get("monitors") or ())
    same_image = (mine.get("pool") or "rbd", mine.get("image")) == (
        theirs.get("pool") or "rbd",
        theirs.get("image"),
    )
    return bool(monitors) and same_image and not both_read_only
