"""VolumeBinding (PreFilter, Filter, PreScore, Score, Reserve, PreBind, Unreserve): a pod's
PersistentVolumeClaims decide where it may go, and are bound before the pod is.

* PreFilter: a missing, lost or deleting claim, or an unbound claim of an Immediate class,
  makes the pod UnschedulableAndUnresolvable (`persistentvolumeclaim "x" not found`,
  `pod has unbound immediate PersistentVolumeClaims`); a pod without claims skips the plugin.
* Filter: bound claims' PVs must admit the node (node affinity); unbound WaitForFirstConsumer
  claims need a matching available PV there or a class that can provision there.
* Score (StorageCapacityScoring, on in v1.37): `shape` over the chosen PVs' utilization
  (or the CSIStorageCapacity of provisioned ones).
* Reserve assumes the bindings; PreBind writes them and waits for the PV controller up to
  `bindTimeoutSeconds`; Unreserve forgets what was assumed.

Queueing hints: a new StorageClass or a change of its allowedTopologies, a new or updated
claim the pod uses, a new CSINode or a change of its migrated-plugins annotation, a CSIDriver
of one of the pod's inline CSI volumes that stops tracking capacity, and a new
CSIStorageCapacity or a larger volume limit of one requeue the pod; so does any PV add or
update and any new node or node label change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
from kubesched.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
)
from kubesched.plugins.helper.event_objects import event_objects
from kubesched.plugins.helper.shape import shape_score
from kubesched.plugins.volume_binding import binder
from kubesched.plugins.volume_binding.args import VolumeBindingArgs
from kubesched.plugins.volume_binding.assume import AssumeCache
from kubesched.plugins.volume_binding.claims import (
    ClaimError,
    ClassError,
    PodVolumeClaims,
    check_claims,
    pod_volume_claims,
)
from kubesched.plugins.volume_binding.matching import MatchError, PodVolumes, find_pod_volumes
from kubesched.plugins.volume_binding.scoring import node_score

NAME = names.VOLUME_BINDING
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
_SKIP: Final = Status(Code.SKIP)


@dataclass(slots=True)
class _State:
    claims: PodVolumeClaims | None = None
    by_node: dict[str, PodVolumes] = field(default_factory=dict)
    has_static_bindings: bool = False
    all_bound: bool = False
    same_on_every_node: bool | None = None
    """Every claim bound, to a PV without node affinity (or to none): Filter says the same
    on every node (`_same_on_every_node`); None until the first Filter call."""
    reasons_everywhere: list[str] | None = None
    """Then, what Filter found on the first node (for every node)."""

    def clone(self) -> _State:
        return self  # shared across what-if clones, as upstream's stateData


_KEY: StateKey[_State] = StateKey(NAME)


class VolumeBinding:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self.args = VolumeBindingArgs.from_v1(args)
        self._handle = handle
        self._timeout = float(self.args.bind_timeout_seconds)
        self._cache = AssumeCache(handle.volume_listers)
        self._shape = shape_score(self.args.shape)

    def pre_filter(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            if not check_claims(self._cache, pod):
                state.write(_KEY, _State())
                return _SKIP
            claims = pod_volume_claims(self._cache, pod)
        except ClaimError as error:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(error))
        except ClassError as error:
            return Status(Code.ERROR, str(error))
        if claims.immediate:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_UNBOUND_IMMEDIATE)
        state.write(_KEY, _State(claims=claims))
        return None

    def filter(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        data = state.read(_KEY)
        if data.claims is None:
            return None
        if data.same_on_every_node is None:
            data.same_on_every_node = _same_on_every_node(self._cache, data.claims)
        if data.same_on_every_node:  # the reasons alone depend on nothing of the node
            reasons = data.reasons_everywhere
            if reasons is None:
                _, reasons = find_pod_volumes(self._cache, data.claims, node_info.node)
                data.reasons_everywhere = reasons
            volumes = PodVolumes()
        else:
            try:
                volumes, reasons = find_pod_volumes(self._cache, data.claims, node_info.node)
            except MatchError as error:
                return Status(Code.ERROR, str(error))
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        data.by_node[node_info.name] = volumes
        data.has_static_bindings = data.has_static_bindings or bool(volumes.static_bindings)
        return None

    def pre_score(self, state: CycleState, _pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        # Upstream scores 0 on every node for a pod without claims; skipping is the same sum.
        data = state.get(_KEY)
        return None if data is not None and data.by_node else _SKIP

    def score(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        volumes = state.read(_KEY).by_node.get(node_info.name)
        return 0 if volumes is None else node_score(self._shape, volumes)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = state.get(_KEY)
        if data is None:
            return None
        volumes = data.by_node.get(node_name)
        data.all_bound = volumes is None or binder.assume(self._cache, pod, node_name, volumes)
        return None

    def pre_bind_pre_flight(self, state: CycleState, _pod: Pod, node_name: str) -> Status | None:
        """Upstream `PreBindPreFlight`: Skip when every claim is bound (nothing to write),
        an error when Filter kept no volumes for the node, else PreBind has work."""
        data = state.get(_KEY)
        if data is None or data.all_bound:
            return _SKIP
        if node_name not in data.by_node:
            return Status(Code.ERROR, f'no pod volume found for node "{node_name}"')
        return None

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = state.get(_KEY)
        if data is None or data.all_bound:
            return None
        volumes = data.by_node.get(node_name)
        if volumes is None:
            return Status(Code.ERROR, f'no pod volume found for node "{node_name}"')
        try:
            await binder.bind_pod_volumes(
                self._handle, self._cache, pod, node_name, volumes, timeout=self._timeout
            )
        except binder.BindError as error:
            return Status(Code.ERROR, str(error))
        return None

    def unreserve(self, state: CycleState, _pod: Pod, node_name: str) -> None:
        data = state.get(_KEY)
        volumes = data.by_node.get(node_name) if data is not None else None
        if volumes is not None:
            binder.revert(self._cache, volumes)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return (
            # A missing or misconfigured class (allowedTopologies, volumeBindingMode).
            ClusterEventWithHint(
                ClusterEvent(EventResource.STORAGE_CLASS, add_update),
                self.is_schedulable_after_storage_class_change,
            ),
            # Claims are bound to volumes: any change may make the pod schedulable.
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
                self.is_schedulable_after_persistent_volume_claim_change,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update)),
            # Node labels decide the class's allowed topologies and PVs' node affinity.
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
            ),
            # CSINodes say which in-tree plugins are migrated to CSI.
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_NODE, add_update),
                self.is_schedulable_after_csi_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE),
                self.is_schedulable_after_csi_driver_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_update),
                self.is_schedulable_after_csi_storage_capacity_change,
            ),
        )

    def is_schedulable_after_csi_node_change(
        self, _pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE for a new CSINode, or one whose migrated-plugins annotation changed."""
        if old is None:
            return QueueingHint.QUEUE
        before, after = event_objects(CSINode, old, new)
        if before is None or after is None:
            raise TypeError("a CSINode update without both versions")
        if before.migrated_plugins_annotation != after.migrated_plugins_annotation:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_persistent_volume_claim_change(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when the added or updated claim is one the pod uses (its ephemeral
        volumes' too): almost any change of it may make the pod schedulable."""
        _, claim = event_objects(PersistentVolumeClaim, old, new)
        if claim is None:
            raise TypeError("a PersistentVolumeClaim event without the new claim")
        if claim.namespace == pod.namespace and any(
            v.uses_claim and v.claim_name == claim.name for v in pod.volumes
        ):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_storage_class_change(
        self, _pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE for a new class, or one whose allowedTopologies changed (its
        volumeBindingMode is immutable)."""
        before, after = event_objects(StorageClass, old, new)
        if before is None:
            return QueueingHint.QUEUE
        if after is None:
            raise TypeError("a StorageClass update without the new class")
        if _topology_terms(before) != _topology_terms(after):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_storage_capacity_change(
        self, _pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE for a new CSIStorageCapacity, or when its volume limit (maximumVolumeSize,
        else capacity) appeared or grew (nodeTopology and storageClassName are immutable)."""
        before, after = event_objects(CSIStorageCapacity, old, new)
        if before is None:
            return QueueingHint.QUEUE
        if after is None:
            raise TypeError("a CSIStorageCapacity update without the new capacity")
        old_limit, new_limit = before.volume_limit, after.volume_limit
        if new_limit is not None and (old_limit is None or new_limit > old_limit):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_driver_change(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        """QUEUE when the driver of one of the pod's inline CSI volumes stopped tracking
        storage capacity."""
        before, after = event_objects(CSIDriver, old, new)
        if before is None or after is None:
            raise TypeError("a CSIDriver update without both versions")
        if before.storage_capacity and not after.storage_capacity:
            for volume in pod.volumes:
                if volume.kind == "csi" and volume.source.get("driver") == after.name:
                    return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def _topology_terms(
    storage_class: StorageClass,
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]:
    """`allowedTopologies` as compared by upstream's semantic DeepEqual (an absent list
    equals an empty one)."""
    return tuple(
        tuple(
            (str(requirement.get("key") or ""), tuple(requirement.get("values") or ()))
            for requirement in term.get("matchLabelExpressions") or ()
        )
        for term in storage_class.allowed_topologies
    )


def _same_on_every_node(cache: AssumeCache, claims: PodVolumeClaims) -> bool:
    """No delayed claim, and each bound claim's PV is missing or has no node affinity:
    `find_pod_volumes` then reads nothing of the node and binds nothing."""
    if claims.delayed:
        return False
    for claim in claims.bound:
        volume = cache.volume(claim.volume_name)
        if volume is not None and volume.node_affinity is not None:
            return False
    return True
