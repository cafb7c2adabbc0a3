"""VolumeZone (PreFilter, Filter): a pod's bound PVs labelled with a zone or region only fit
nodes in it.

The PV labels `topology.kubernetes.io/zone|region` and their beta `failure-domain.beta.
kubernetes.io/` forms (values may list several zones joined by `__`) must match the node's
label (the beta key falls back to the GA one); a node without any zone/region label fits.
Rejections are UnschedulableAndUnresolvable: `node(s) had no available volume zone`.
Unbound claims of WaitForFirstConsumer classes are left to VolumeBinding; an unbound claim of
another class, a missing claim, class or PV make the pod unresolvable in PreFilter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    StateKey,
    Status,
)
from kubesched.model import PersistentVolume, Pod
from kubesched.plugins.helper.args import no_args
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

    def events_to_register(self) -> Sequence[ClusterEvent]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return (
            ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
            ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
            ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update),
        )


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
