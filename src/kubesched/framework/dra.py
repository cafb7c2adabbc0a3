"""The DRA objects every profile's plugins share, handed over by the Handle
(`Handle.shared_dra_manager()`, upstream's `SharedDRAManager()` of
`k8s.io/kube-scheduler/framework`): the ResourceClaims (with the allocations in flight
between Reserve and PreBind's write, and the claims as PreBind wrote them until the informer
has them), the ResourceSlices with the DeviceTaintRules' taints, and the DeviceClasses.

DynamicResources allocates through it; NodeResourcesFit and NodeResourcesBalancedAllocation
count a node's devices of a class through it. The scheduler builds one manager per process
and gives it to every profile's Handle (upstream `frameworkruntime.WithSharedDRAManager`), so
two pods never get the same device between Reserve and the write, whichever profile
schedules them. The default implementation is `kubesched.runtime.dra_manager.DraManager`,
over the informers of the resources below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from kubesched.apis.resources import ResourceSpec
from kubesched.dra.structured import AllocatedState
from kubesched.framework.events import EventResource
from kubesched.model import ApiObject
from kubesched.model.dra import ResourceSlice
from kubesched.model.dra_claims import AllocationResult, ResourceClaim
from kubesched.model.dra_classes import DeviceClass

GROUP: Final = "resource.k8s.io"
VERSION: Final = "v1"
RESOURCE_CLAIMS: Final = ResourceSpec(
    GROUP, VERSION, "resourceclaims", writes=True, event_name=EventResource.RESOURCE_CLAIM
)
RESOURCE_SLICES: Final = ResourceSpec(
    GROUP, VERSION, "resourceslices", namespaced=False, event_name=EventResource.RESOURCE_SLICE
)
DEVICE_CLASSES: Final = ResourceSpec(
    GROUP, VERSION, "deviceclasses", namespaced=False, event_name=EventResource.DEVICE_CLASS
)
DEVICE_TAINT_RULES: Final = ResourceSpec(
    GROUP, VERSION, "devicetaintrules", namespaced=False, event_name=f"{GROUP}/DeviceTaintRule"
)
"""DeviceTaintRules are read for the taints they add to devices (DRADeviceTaintRules, GA in
v1.37); kube-scheduler registers no event for them."""


@dataclass(frozen=True, slots=True)
class Claim:
    """A ResourceClaim: the parsed claim and the object it came from (owners, finalizers
    and resourceVersion for the writes)."""

    obj: ApiObject
    claim: ResourceClaim

    @classmethod
    def of(cls, obj: ApiObject) -> Claim:
        """The claim an informer's or the API server's object holds."""
        return cls(obj, ResourceClaim.from_json(object_json(obj)))

    @property
    def uid(self) -> str:
        return self.obj.uid

    @property
    def controller_uid(self) -> str:
        return next((o.uid for o in self.obj.owners if o.controller), "")


def object_json(obj: ApiObject) -> dict[str, Any]:
    """The JSON the model parsers read back from an ApiObject."""
    meta: dict[str, Any] = {
        "name": obj.name,
        "uid": obj.uid,
        "resourceVersion": obj.resource_version,
        "annotations": dict(obj.annotations),
        "creationTimestamp": obj.creation_timestamp,
    }
    if obj.namespace:
        meta["namespace"] = obj.namespace
    if obj.deleting:
        meta["deletionTimestamp"] = "deleting"
    return {"metadata": meta, **obj.body}


@runtime_checkable
class WorkloadClaimsAware(Protocol):
    """A plugin that honours the `DRAWorkloadResourceClaims` feature gate: the framework
    builder sets `workload_resource_claims` when the profile has the gate on (upstream's
    `feature.Features.EnableDRAWorkloadResourceClaims`)."""

    workload_resource_claims: bool


class SharedDRAManager(Protocol):
    """The claims, slices and classes as the scheduler knows them (upstream's
    `ResourceClaims()`, `ResourceSlices()` and `DeviceClasses()` in one interface)."""

    # ---- claims (upstream ResourceClaimTracker) ------------------------------------------

    def claim(self, namespace: str, name: str) -> Claim | None:
        """The claim, as PreBind last wrote it while the informer has not delivered that
        version yet (upstream `Get`)."""
        ...

    def all_claims(self) -> list[Claim]:
        """Every claim, as `claim` answers for each (upstream `List`)."""
        ...

    def allocated_state(self, *, consumable_capacity: bool = True) -> AllocatedState:
        """The devices in use by allocated claims and by allocations in flight (upstream
        `GatherAllocatedState`); valid within the scheduling cycle that asked for it."""
        ...

    def signal_pending_allocation(self, uid: str, allocation: AllocationResult) -> None:
        """Reserve allocated claim `uid`: its devices are in use until PreBind wrote it or
        Unreserve took it back (upstream `SignalClaimPendingAllocation`)."""
        ...

    def has_pending_allocation(self, uid: str) -> bool:
        """Whether claim `uid` is being allocated (upstream `GetPendingAllocation`)."""
        ...

    def pending_allocation(self, uid: str) -> AllocationResult | None:
        """Claim `uid`'s allocation in flight, or None (upstream `GetPendingAllocation`)."""
        ...

    def remove_pending_allocation(self, uid: str, *, force: bool = True) -> bool:
        """Forget claim `uid`'s allocation in flight when `force` or its last sharer is
        gone; whether it was forgotten (upstream `MaybeRemoveClaimPendingAllocation`)."""
        ...

    def assume(self, claim: Claim) -> None:
        """PreBind wrote `claim`: answer with it until the informer catches up (upstream
        `AssumeClaimAfterAPICall`)."""
        ...

    def restore_assumed(self, namespace: str, name: str) -> None:
        """Go back to the informer's version of the claim (upstream
        `AssumedClaimRestore`)."""
        ...

    # ---- slices and classes --------------------------------------------------------------

    def slices_with_taint_rules(self) -> list[ResourceSlice]:
        """Every slice, the DeviceTaintRules' taints added; the same list object while no
        slice or rule changed (upstream `ListWithDeviceTaintRules`)."""
        ...

    def device_class(self, name: str) -> DeviceClass | None:
        """The DeviceClass `name`, or None (upstream `DeviceClasses().Get`)."""
        ...

    def classes_version(self) -> int:
        """A number that changes whenever a DeviceClass changes (what the allocation memo
        of DynamicResources is keyed by)."""
        ...
