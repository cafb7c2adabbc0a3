"""DynamicResources: devices from ResourceSlices for the pod's ResourceClaims, as
kube-scheduler v1.37.2 allocates them (structured parameters).

PreEnqueue holds a pod whose claims do not exist yet (made from a template by the
resourceclaim controller); PreFilter looks the claims up (one in use by another pod, one
being allocated for another pod, a missing DeviceClass: UnschedulableAndUnresolvable) and
builds the allocator over every slice (DeviceTaintRules applied) and the devices in use,
including allocations in flight; Filter runs the allocator on the node (within
`filterTimeout`) and keeps the result; Score rewards the earlier `firstAvailable`
subrequests (both in `node_allocation`); Reserve puts the node's allocations in flight
(shared by every profile, so no two pods get one device between Reserve and the write);
PreBind writes each claim's finalizer, `status.allocation` and `status.reservedFor`
(re-reading it on a conflict) and waits for binding conditions up to `bindingTimeout`;
Unreserve takes the allocations back and the pod out of `reservedFor`; PostFilter
deallocates a claim that is allocated where the pod cannot go and reserved for nobody else.
Pods without claims skip it.

Extended resources backed by DRA (DRAExtendedResource, `extended.py`): a pod's request for
a resource a DeviceClass provides, on a node that does not offer it itself, becomes one more
claim, created in PreBind with the devices Filter found.

Native PodGroups (GenericWorkload): within one pod-group cycle a member reuses the
allocation an earlier member put in flight for a claim they share. With
DRAWorkloadResourceClaims (beta, off) a claim the PodGroup declares is reserved for the
PodGroup (`workload_claims`). After a failed pod-group cycle, PodGroupPostFilter frees what
the members could not use (`group_post_filter`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, MutableSequence, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.dra.cel import CelCache
from kubesched.dra.structured import AllocationError, Allocator, Features
from kubesched.dra.structured.allocator import PoolsCache
from kubesched.framework import (
    ClusterEventWithHint,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    NodeToStatusReader,
    PostFilterResult,
    QueueingHint,
    Status,
)
from kubesched.model import Pod
from kubesched.model.dra import ResourceSlice
from kubesched.plugins.dynamic_resources import binding, prebind, resources
from kubesched.plugins.dynamic_resources import extended as extended_resources
from kubesched.plugins.dynamic_resources import hints as dra_hints
from kubesched.plugins.dynamic_resources.args import DynamicResourcesArgs
from kubesched.plugins.dynamic_resources.cycle import (
    KEY,
    CycleData,
    check_claims,
    error,
    unschedulable,
)
from kubesched.plugins.dynamic_resources.group_post_filter import (
    GroupCycle,
    GroupWrites,
    pod_group_post_filter,
)
from kubesched.plugins.dynamic_resources.memo import AllocationMemo
from kubesched.plugins.dynamic_resources.node_allocation import (
    explain_node,
    filter_node,
    score_node,
)
from kubesched.plugins.dynamic_resources.pod_claims import (
    ClaimsNotReady,
    pod_claims,
    reserved_for_pod,
)
from kubesched.plugins.dynamic_resources.workload_claims import (
    claim_bindings,
    group_data,
    pod_group_of,
)
from kubesched.plugins.helper.extended_resources import extended_resource_classes
from kubesched.plugins.helper.normalize import default_normalize_score

log = logging.getLogger(__name__)

NAME = names.DYNAMIC_RESOURCES
_SKIP: Final = Status(Code.SKIP)
_NOTHING_TO_DEALLOCATE: Final = Status(Code.UNSCHEDULABLE)
_NO_STATE: Final = Status(Code.ERROR, "not found")


class DynamicResources:
    name = NAME
    resources = resources.ALL

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        self.args = DynamicResourcesArgs.from_v1(args)
        self.handle = handle
        self.manager = handle.shared_dra_manager()
        self.classes = extended_resource_classes(handle)
        self.features = Features()
        self.cel_cache = CelCache()
        self._background = binding.BackgroundWrites()
        self._pools: tuple[Sequence[ResourceSlice], PoolsCache] | None = None
        self._memo = AllocationMemo()
        self.workload_resource_claims = False
        """The `DRAWorkloadResourceClaims` gate (set by the framework builder)."""

    def _pools_cache(self, slices: Sequence[ResourceSlice]) -> PoolsCache:
        """The pools per node gathered over this very list of slices (a new list when a
        slice or a taint rule changes)."""
        if self._pools is None or self._pools[0] is not slices:
            self._pools = (slices, {})
        return self._pools[1]

    def sign_pod(self, pod: Pod) -> tuple[()] | None:
        """Pods with claims are not signable (upstream: their fit depends on other claims)."""
        return None if pod.claim_sources else ()

    # ---- PreEnqueue, PreFilter -----------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.claim_sources:
            return None
        try:
            pod_claims(pod, self.manager, accept_group=self.workload_resource_claims)
        except ClaimsNotReady as exc:
            return unschedulable(str(exc))
        return None

    def pre_filter(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status:
        data = CycleData()
        state.write(KEY, data)
        group = group_data(state, create=True)
        if group is not None:  # for PodGroupPostFilter, claims or not (upstream)
            group.pods[pod.namespace, pod.name] = data
        extended = extended_resources.requested(pod, self.classes) if pod.requests.scalar else {}
        if not pod.claim_sources and not extended:
            return _SKIP
        gate = self.workload_resource_claims
        try:
            claims = pod_claims(pod, self.manager, accept_group=gate)
            if gate:
                data.bind_to = claim_bindings(pod, pod_group_of(self.handle, pod, enabled=gate))
        except ClaimsNotReady as exc:
            return unschedulable(str(exc))
        if extended:
            data.extended = extended
            data.extended_index = len(claims)
            claims.append(extended_resources.claim_for(pod, self.manager))
            data.initial_extended_uid = claims[-1].uid
        if not claims:
            return _SKIP
        data.available_on = [None] * len(claims)
        data.allocation = [None] * len(claims)
        status = check_claims(self.manager, data, claims, group)
        if status is not None:
            return status
        data.claims = claims
        if any(entry.claim.allocation is None for entry in claims):
            try:
                data.allocator = Allocator(
                    features=self.features,
                    allocated_state=self.manager.allocated_state(
                        consumable_capacity=self.features.consumable_capacity
                    ),
                    device_class=self.manager.device_class,
                    slices=(slices := self.manager.slices_with_taint_rules()),
                    cel_cache=self.cel_cache,
                    pools_cache=self._pools_cache(slices),
                )
                self._memo.begin(slices, self.manager.classes_version())
            except AllocationError as exc:
                return error(str(exc))
        return Status(Code.SUCCESS)

    # ---- Filter, PostFilter, Score --------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        data = state.get(KEY)
        if data is None or not data.claims:
            return None
        return filter_node(
            data,
            pod,
            node_info,
            classes=self.classes,
            memo=self._memo,
            filter_timeout=self.args.filter_timeout,
        )

    def explain_node(self, state: CycleState, node_name: str) -> str | None:
        """For `kubesched explain`: the devices this node would give the pod's claims."""
        return explain_node(state.get(KEY), node_name)

    def post_filter(
        self, state: CycleState, pod: Pod, _statuses: NodeToStatusReader
    ) -> tuple[PostFilterResult | None, Status | None]:
        data = state.get(KEY)
        if data is None:
            return None, _NO_STATE
        return None, self._deallocate_or_delete(data, pod)[1]

    def _deallocate_or_delete(self, data: CycleData, pod: Pod) -> tuple[bool, Status]:
        """upstream `deallocateOrDeletePodClaims`: whether a claim was freed (or a stale
        extended-resource claim deleted), and the status saying so."""
        extended = None if data.extended_index is None else data.claims[data.extended_index]
        for index in sorted(data.unavailable):
            entry = data.claims[index]
            if index == data.extended_index:
                if not extended_resources.in_memory(entry):
                    break
                continue
            reserved = entry.claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                self._background.start(binding.deallocate(self.handle, entry))
                return True, Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
        if extended is not None and not extended_resources.in_memory(extended):
            # Made in an earlier cycle, its allocation maybe stale: start anew.
            self._background.start(binding.delete_claim(self.handle, extended))
            return True, Status(Code.UNSCHEDULABLE, "deletion of ResourceClaim completed")
        return False, _NOTHING_TO_DEALLOCATE

    def pod_group_post_filter(self, cycle: GroupCycle) -> Status:
        """upstream `PodGroupPostFilter` (`group_post_filter`)."""
        writes = GroupWrites(
            deallocate=lambda entry: self._background.start(binding.deallocate(self.handle, entry)),
            unreserve=lambda entry, uid: self._background.start(
                binding.unreserve_uid(self.handle, entry, uid)
            ),
        )
        return pod_group_post_filter(
            cycle,
            gate=self.workload_resource_claims,
            manager=self.manager,
            pod_post_filter=lambda data, pod: self._deallocate_or_delete(data, pod)[0],
            writes=writes,
        )

    def pre_score(self, state: CycleState, _pod: Pod, _nodes: Sequence[NodeInfo]) -> Status:
        """Skip unless a claim has `firstAvailable` requests (every score would be 0)."""
        data = state.get(KEY)
        if data is None or not any(
            request.first_available for entry in data.claims for request in entry.claim.requests
        ):
            return _SKIP
        return Status(Code.SUCCESS)

    def score(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        return score_node(state.read(KEY), node_info.name)

    def normalize_score(
        self, _state: CycleState, _pod: Pod, scores: MutableSequence[int]
    ) -> Status | None:
        default_normalize_score(scores)
        return None

    # ---- Reserve, Unreserve, PreBind ------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = state.get(KEY)
        if data is None or data.allocator is None:
            return None
        indexes = data.to_allocate()
        results = data.node_allocations.get(node_name)
        if results is None:
            if indexes == [data.extended_index]:
                return None  # only extended resources, served by the node's device plugin
            return error("claim allocation not found for node")
        if len(results) != len(indexes):
            return error(
                f"internal error, have {len(results)} allocations, {len(indexes)} claims to "
                f"allocate, want {len(indexes)} claims"
            )
        group = group_data(state)
        for index, allocation in zip(indexes, results, strict=True):
            data.allocation[index] = allocation
            uid = data.claims[index].uid
            self.manager.signal_pending_allocation(uid, allocation)
            if group is not None:
                group.pending.setdefault(uid, set()).add(pod.uid)
        return None

    def unreserve(self, state: CycleState, pod: Pod, _node_name: str) -> None:
        data = state.get(KEY)
        if data is None:
            return
        group = group_data(state)
        for index, entry in enumerate(data.claims):
            uid = data.initial_extended_uid if index == data.extended_index else entry.uid
            if data.allocation[index] is not None and self.manager.remove_pending_allocation(
                uid, force=False
            ):
                self.manager.restore_assumed(entry.obj.namespace, entry.obj.name)
                if group is not None:
                    group.pending.pop(uid, None)
            if index == data.extended_index:
                if not extended_resources.in_memory(entry):  # written: delete it
                    self._background.start(binding.delete_claim(self.handle, entry))
                continue
            # A claim reserved for the PodGroup stays so: other members may need it.
            if entry.claim.allocation is not None and reserved_for_pod(
                pod, entry, accept_group=False
            ):
                self._background.start(binding.unreserve(self.handle, entry, pod))

    def pre_bind_pre_flight(self, state: CycleState, _pod: Pod, _node_name: str) -> Status | None:
        data = state.get(KEY)
        return _SKIP if data is None or not data.claims else None

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = state.get(KEY)
        if data is None or not data.claims:
            return None
        return await prebind.write_claims(
            self.handle,
            self.manager,
            data,
            pod,
            node_name,
            binding_timeout=self.args.binding_timeout,
            accept_group=self.workload_resource_claims,
        )

    # ---- events and hints -----------------------------------------------------------------

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        return dra_hints.events(
            claim_change=self.is_schedulable_after_claim_change,
            target_pod_update=self.is_schedulable_after_target_pod_update,
        )

    def is_schedulable_after_claim_change(self, pod: Pod, old: object, new: object) -> QueueingHint:
        return dra_hints.after_claim_change(
            self.manager, pod, old, new, accept_group=self.workload_resource_claims
        )

    def is_schedulable_after_target_pod_update(
        self, pod: Pod, old: object, new: object
    ) -> QueueingHint:
        return dra_hints.after_target_pod_update(
            self.manager, pod, old, new, accept_group=self.workload_resource_claims
        )
