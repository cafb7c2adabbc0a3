"""The Handle: everything a plugin may reach beyond its arguments, in one interface.

Plugins get it in their factory (`factory(args=..., handle=...)`). The scheduler's
implementation is `kubesched.scheduler.handle.SchedulerHandle`; the start-up checks build
plugins over an offline one (`kubesched.runtime.offline`, an empty cluster), `kubesched
explain` over a read-only one, and `kubesched.testing.FakeHandle` is the one for plugin
tests. Node infos are the current cycle's snapshot: read-only.

One more thing PostFilter plugins reach, as upstream's Handle *is* the framework: the
profile's Filter machinery (`FilterRunner`), in the cycle state under `FILTER_RUNNER_KEY`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kubesched.errors import KubeschedError
from kubesched.framework.dra import SharedDRAManager
from kubesched.framework.listers import Lister
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.resources import ResourceSpec
from kubesched.framework.volumes import VolumeListers
from kubesched.framework.waiting import WaitingPods
from kubesched.model import ApiObject, PersistentVolume, PersistentVolumeClaim, Pod


class ObjectWriteError(KubeschedError):
    """A read or write through `Handle.get_object` / `Handle.patch_object` failed: the API
    server's answer in one line; `conflict` when the object changed since it was read (read
    it again and retry), `not_found` when it is gone."""

    def __init__(self, message: str, *, conflict: bool = False, not_found: bool = False) -> None:
        super().__init__(message)
        self.conflict = conflict
        self.not_found = not_found


@dataclass(frozen=True, slots=True)
class EventObject:
    """The object an Event is about (its `regarding`), when it is not a pod: an
    ElasticQuota, a PodGroup. `EventObject.of(obj, api_version=..., kind=...)` names a
    listed object."""

    api_version: str
    """`scheduling.x-k8s.io/v1alpha1`; `v1` for core objects."""
    kind: str
    namespace: str
    name: str
    uid: str = ""

    @classmethod
    def of(cls, obj: ApiObject, *, api_version: str, kind: str) -> EventObject:
        """The reference to a listed object (the lister keeps no apiVersion or kind)."""
        return cls(api_version, kind, obj.namespace, obj.name, obj.uid)


class Handle(Protocol):
    """What plugins may reach beyond their arguments; one per profile."""

    # ---- the snapshot and the API ---------------------------------------------------------

    def list_node_infos(self) -> Sequence[NodeInfo]:
        """All nodes of the current snapshot."""
        ...

    def get_node_info(self, name: str) -> NodeInfo | None:
        """One node of the current snapshot, or None."""
        ...

    async def bind(self, pod: Pod, node_name: str) -> None:
        """POST the pod's `binding` subresource; raises on failure (DefaultBinder calls it)."""
        ...

    def record_event(
        self, pod: Pod, *, event_type: str, reason: str, action: str, note: str
    ) -> None:
        """Record an events.k8s.io Event about `pod` (type Normal/Warning)."""
        ...

    def record_object_event(
        self, regarding: EventObject, *, event_type: str, reason: str, action: str, note: str
    ) -> bool:
        """Record an events.k8s.io Event about any object (in its namespace), as upstream's
        `Handle.EventRecorder().Eventf(obj, ...)`. False when nothing was recorded: this
        replica does not lead (only the leader writes events about shared objects), or the
        Handle reaches no cluster; the plugin may ask again later."""
        ...

    @property
    def waiting_pods(self) -> WaitingPods:
        """Pods held by Permit plugins (shared by all profiles)."""
        ...

    # ---- listers (see `kubesched.framework.resources`) -----------------------------------

    def lister(self, resource: ResourceSpec) -> Lister[ApiObject]:
        """The lister of a resource the plugin declared (one shared informer feeds it);
        KeyError if no enabled plugin declared it. Namespaces, Services, the workload
        controllers and PodDisruptionBudgets are read this way too (`NAMESPACES`,
        `DEFAULT_SPREADING`, `POD_DISRUPTION_BUDGETS`)."""
        ...

    def pod_lister(self) -> Lister[Pod]:
        """Every non-terminal pod (bound or not), indexed by namespace and by the label
        keys plugins declared on `PODS`."""
        ...

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move these pending pods to the active queue now (upstream `PodsToActivate`),
        e.g. the siblings of a gang member that reached Permit."""
        ...

    def patch_status(
        self, resource: ResourceSpec, obj: ApiObject, status: Mapping[str, Any]
    ) -> None:
        """Merge-patch `obj`'s `/status` with `status`, in the background (returns at
        once); only while this replica leads. The resource must declare
        `writes_status=True` (so RBAC grants it)."""
        ...

    async def get_object(self, resource: ResourceSpec, namespace: str, name: str) -> ApiObject:
        """Read one object of a resource the plugin declared with `writes=True` from the API
        server (not the informer); ObjectWriteError when that fails."""
        ...

    async def patch_object(
        self,
        resource: ResourceSpec,
        obj: ApiObject,
        patch: Mapping[str, Any],
        *,
        status: bool = False,
        strategic: bool = False,
    ) -> ApiObject:
        """Patch `obj` (its `/status` with `status`) with a JSON merge patch (a strategic
        merge patch with `strategic`, built-in resources only) and return the object as the
        API server wrote it. `patch["metadata"]["resourceVersion"]` makes the write
        optimistic: a change since then raises ObjectWriteError(conflict=True). The resource
        must be declared with `writes=True` (so RBAC grants it); writes only while this
        replica leads (else ObjectWriteError)."""
        ...

    async def create_object(
        self, resource: ResourceSpec, namespace: str, body: Mapping[str, Any]
    ) -> ApiObject:
        """Create an object (`metadata.generateName` allowed) of a resource declared with
        `writes=True` and return it as written; ObjectWriteError when that fails or this
        replica does not lead."""
        ...

    async def delete_object(self, resource: ResourceSpec, obj: ApiObject) -> None:
        """Delete `obj` (gone already is fine); ObjectWriteError when that fails."""
        ...

    # ---- volumes (VolumeBinding, VolumeRestrictions, VolumeZone, NodeVolumeLimits) -------

    @property
    def volume_listers(self) -> VolumeListers:
        """PVCs, PVs, StorageClasses and the CSI objects, from informers."""
        ...

    async def bind_volume(
        self, volume: PersistentVolume, claim: PersistentVolumeClaim
    ) -> PersistentVolume:
        """Write `volume.spec.claimRef` = `claim` (and `pv.kubernetes.io/bound-by-controller`
        if it was not bound to it), as of `volume.resource_version` (a conflict raises);
        returns the updated volume. The PV controller then completes the binding."""
        ...

    async def select_node_for_claim(
        self, claim: PersistentVolumeClaim, node_name: str
    ) -> PersistentVolumeClaim:
        """Annotate `claim` with `volume.kubernetes.io/selected-node: node_name` (as of
        `claim.resource_version`) so that its volume is provisioned for that node."""
        ...

    # ---- DRA (DynamicResources; the resource scorers count devices) -----------------------

    def shared_dra_manager(self) -> SharedDRAManager:
        """The ResourceClaims, ResourceSlices and DeviceClasses every profile shares, with
        the allocations in flight between Reserve and PreBind (upstream
        `SharedDRAManager()`; `kubesched.framework.dra`). One per scheduler."""
        ...

    # ---- nominated pods (upstream's PodNominator) ----------------------------------------

    def has_nominated_pods(self) -> bool:
        """Whether any pod is nominated at all (a cheap check once per cycle).

        Filtering counts the nominated pods of equal or higher priority as already running on
        their node, so the room preemption made is held for them (upstream
        `RunFilterPluginsWithNominatedPods`)."""
        ...

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        """The pods nominated to `node_name`, in nomination order."""
        ...

    def nominated_node_names(self) -> Collection[str]:
        """The nodes at least one pod is nominated to (those `nominated_pods_for_node`
        answers with pods): what a cycle asks once instead of once per node."""
        ...

    # ---- preemption -------------------------------------------------------------------------

    def preempt(
        self, preemptor: Pod, *, node_name: str, victims: Sequence[Pod], pdb_violations: int = 0
    ) -> None:
        """Evict `victims` from `node_name` for `preemptor` in the background (returns at
        once): a victim waiting at Permit is rejected in memory, every other one gets the
        `DisruptionTarget` condition and is deleted, each with a `Preempted` event; pods of
        lower priority than the preemptor lose their nomination to that node.
        `pdb_violations`: how many victims break a PodDisruptionBudget (a metric). A
        read-only Handle records the request instead (`RecordedPreemption`)."""
        ...

    def is_preempting(self, uid: str) -> bool:
        """Whether the victims of the preemptor with `uid` are still being evicted."""
        ...


@dataclass(frozen=True, slots=True)
class RecordedPreemption:
    """What a preemption plugin asked a read-only Handle for: evict `victims` from
    `node_name` for `preemptor`."""

    preemptor: Pod
    node_name: str
    victims: tuple[Pod, ...]

    @property
    def keys(self) -> tuple[str, str, tuple[str, ...]]:
        """(preemptor `namespace/name`, node, victims' `namespace/name`), for assertions."""
        return self.preemptor.key, self.node_name, tuple(victim.key for victim in self.victims)
