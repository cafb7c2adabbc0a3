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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
from kubesched.model import Pod
from kubesched.plugins.volume_binding import binder
from kubesched.plugins.volume_binding.args import broken_linear, parse_args
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

    def clone(self) -> _State:
        return self  # shared across what-if clones, as upstream's stateData


_KEY: StateKey[_State] = StateKey(NAME)


class VolumeBinding:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        parsed = parse_args(args)
        self._handle = handle
        self._timeout = float(parsed.bind_timeout_seconds)
        self._cache = AssumeCache(handle.volume_listers)
        self._shape = broken_linear(parsed.shape)

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

    def events_to_register(self) -> Sequence[ClusterEvent]:
        add_update = ActionType.ADD | ActionType.UPDATE
        return (
            ClusterEvent(EventResource.STORAGE_CLASS, add_update),
            ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_update),
            ClusterEvent(EventResource.PERSISTENT_VOLUME, add_update),
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
            ClusterEvent(EventResource.CSI_NODE, add_update),
            ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE),
            ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_update),
        )
