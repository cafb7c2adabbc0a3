"""VolumeZone (PreFilter, Filter): a pod's bound PVs labelled with a zone or region only fit
nodes in it.

The PV labels `topology.kubernetes.io/zone|region` and their beta `failure-domain.beta.
kubernetes.io/` forms (values may list several zones joined by `__`) must match the node's
label (the beta key falls back to the GA one); a node without any zone/region label fits.
Rejections are UnschedulableAndUnresolvable: `node(s) had no available volume zone`.
Unbound claims of WaitForFirstConsumer classes are left to VolumeBinding; an unbound claim of
another class, a missing claim, class or PV make the pod unresolvable in PreFilter.

Queueing hints: a new WaitForFirstConsumer StorageClass, a new or updated claim the pod
names, a new PV or one whose zone/region labels changed requeue the pod; so does any new
node or node label change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from kubesched.model import PersistentVolume, PersistentVolumeClaim, Pod, StorageClass
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import event_objects
from kubesched.plugins.helper.volumes import claim_not_found

NAME = names.VOLUME_ZONE
ERR_CONFLICT = "node(s) had no available volume zone"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, ZONE, REGION)
_GA = {BETA_ZONE: ZONE, BETA_REGION: REGION}
_SKIP: Final = Status(Code.SKIP)
_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_CONFLICT)

Topology = tuple[str, frozenset[str]]
_KEY: StateKey[tuple[Topology, ...]] = StateKey("PreFilter" + NAME)


def _unresolvable(message: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)


class VolumeZone:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle

    def pre_filter(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        topologies = self._pod_topologies(pod)
        if isinstance(topologies, Status):
            return topologies
        if not topologies:
            return _SKIP
        state.write(_KEY, tuple(topologies))
        return None

    def _pod_topologies(self, pod: Pod) -> list[Topology] | Status:
        listers = self._handle.volume_listers
        topologies: list[Topology] = []
        for volume in pod.volumes:
            if volume.ephemeral or not volume.uses_claim:
                continue
            claim = listers.claim(pod.namespace, volume.claim_name)
            if claim is None:
                return _unresolvable(claim_not_found(volume.claim_name))
            if not claim.volume_name:
                status = self._unbound(claim.storage_class)
                if status is not None:
                    return status
                continue
            pv = listers.volume(claim.volume_name)
            if pv is None:
                return _unresolvable(f'persistentvolume "{claim.volume_name}" not found')
            topologies.extend(pv_topologies(pv))
        return topologies

    def _unbound(self, class_name: str) -> Status | None:
        """None for a WaitForFirstConsumer class (VolumeBinding decides), else why not."""
        if not class_name:
            return _unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
        storage_class = self._handle.volume_listers.storage_class(class_name)
        if storage_class is None:
            return _unresolvable(f'storageclass.storage.k8s.io "{class_name}" not found')
        if storage_class.volume_binding_mode is None:
            return _unresolvable(f'VolumeBindingMode not set for StorageClass "{class_name}"')
        if storage_class.wait_for_first_consumer:
            return None
        return _unresolvable("PersistentVolume had no name")

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        topologies = state.get(_KEY)
        if topologies is None:
            found = self._pod_topologies(pod)
            if isinstance(found, Status):
                return found
            topologies = tuple(found)
        labels = node_info.node.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return None
        for key, values in topologies:
            value = labels.get(key)
            if value is None:
                value = labels.get(_GA.get(key, key))
            if value is None or value not in values:
                return _REJECTED
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return (
            # A class's volumeBindingMode is immutable: only a new class can be WFFC.
            ClusterEventWithHint(
                ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
                self.is_schedulable_after_storage_class_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
                self.is_schedulable_after_persistent_volume_claim_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update),
                self.is_schedulable_after_persistent_volume_change,
            ),
        )

    def is_schedulable_after_persistent_volume_claim_change(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when the added or updated claim is one the pod names (in its namespace)."""
        _, claim = event_objects(PersistentVolumeClaim, old, new)
        if claim is None or claim.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if any(v.claim_name == claim.name and not v.ephemeral for v in pod.volumes):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_storage_class_added(
        self, _pod: Pod, _old: object, new: object
    ) -> QueueingHint:
        """QUEUE for a new WaitForFirstConsumer class (the pod's unbound claim may be of it)."""
        _, added = event_objects(StorageClass, None, new)
        if added is None:
            raise TypeError("a StorageClass add without the class")
        return QueueingHint.QUEUE if added.wait_for_first_consumer else QueueingHint.QUEUE_SKIP

    def is_schedulable_after_persistent_volume_change(
        self, _pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE for a new PV, or an updated one whose zone/region labels changed (its node
        affinity is immutable, and NodeAffinity's concern)."""
        original, modified = event_objects(PersistentVolume, old, new)
        if original is None:
            return QueueingHint.QUEUE
        if modified is None:
            raise TypeError("a PersistentVolume update without the new volume")
        if _named_topologies(original) != _named_topologies(modified):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def _named_topologies(pv: PersistentVolume) -> list[tuple[str, Topology]]:
    """Upstream `getPVTopologies`: the PV's topologies, each with the PV's name."""
    return [(pv.name, topology) for topology in pv_topologies(pv)]


def pv_topologies(pv: PersistentVolume) -> list[Topology]:
    """The PV's zone/region labels as (key, allowed values) (upstream `LabelZonesToSet`)."""
    found = []
    for key in TOPOLOGY_LABELS:
        value = pv.labels.get(key)
        if value is None:
            continue
        zones = frozenset(zone.strip() for zone in value.split("__"))
        if all(zones):
            found.append((key, zones))
    return found
