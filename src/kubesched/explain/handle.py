"""The Handle `kubesched explain` gives plugins: the scheduler's view, and no way to write.

Plugins get the node infos, the nominated pods and the listers of what they declare (the
namespaces, Services, workload controllers and PodDisruptionBudgets among them), as the
scheduler would give them. A bind raises `ReadOnlyError`, events are dropped, and a
preemption is only recorded (`preemptions`), so whatever a plugin tries, explain never
writes to the cluster, and it can still say what preemption would evict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubesched.cache import Snapshot
from kubesched.framework import Code, RecordedPreemption, WaitingPods
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import ResourceSpec
from kubesched.framework.volumes import StaticVolumeListers, VolumeListers
from kubesched.model import ApiObject, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.runtime.dra_manager import DraManager
from kubesched.runtime.handle_base import HandleBase


class ReadOnlyError(RuntimeError):
    """A plugin tried to change the cluster while explaining."""


class ReadOnlyHandle(HandleBase):
    """Implements `kubesched.framework.Handle` over a snapshot, without any writes."""

    def __init__(
        self,
        snapshot: Snapshot,
        *,
        nominated: Iterable[Pod] = (),
        listers: ClusterListers | None = None,
        volumes: VolumeListers | None = None,
    ) -> None:
        self._snapshot = snapshot
        self.listers = listers or ClusterListers()
        """The objects cluster-aware plugins read (listed once by explain)."""
        self._waiting_pods = WaitingPods()
        self.nominated = {}
        for pod in nominated:
            if pod.nominated_node_name and not pod.node_name:
                self.nominated.setdefault(pod.nominated_node_name, []).append(pod)
        self.volumes = volumes if volumes is not None else StaticVolumeListers()
        self.dra_manager = DraManager(self.listers)
        """The claims, slices and classes explain listed (DynamicResources, the scorers)."""
        self.dropped_events: list[tuple[str, str, str]] = []
        """(pod, reason, note) of each event a plugin tried to record."""
        self.preemptions: list[RecordedPreemption] = []
        """Each eviction a preemption plugin asked for (nothing is evicted)."""

    async def bind(self, pod: Pod, node_name: str) -> None:
        raise ReadOnlyError(
            f"kubesched explain never writes to the cluster (bind {pod.key} to {node_name})"
        )

    def record_event(
        self,
        pod: Pod,
        *,
        event_type: str,  # noqa: ARG002 - the Handle protocol's signature
        reason: str,
        action: str,  # noqa: ARG002
        note: str,
    ) -> None:
        self.dropped_events.append((pod.key, reason, note))

    # ---- volumes: read; the writes of VolumeBinding's PreBind raise ----------------------

    async def bind_volume(
        self, volume: PersistentVolume, claim: PersistentVolumeClaim
    ) -> PersistentVolume:
        raise ReadOnlyError(f"kubesched explain never binds volumes ({volume.name} to {claim.key})")

    async def select_node_for_claim(
        self, claim: PersistentVolumeClaim, node_name: str
    ) -> PersistentVolumeClaim:
        raise ReadOnlyError(
            f"kubesched explain never selects a node for a claim ({claim.key} to {node_name})"
        )

    # ---- preemption: recorded (`HandleBase.preempt`), never evicting -------------------

    def is_preempting(self, uid: str) -> bool:  # noqa: ARG002 - nothing is ever evicted
        return False

    def preemption_attempted(self, *, result: Code = Code.SUCCESS, seconds: float = 0.0) -> None:
        del result, seconds
        """Nothing to count: explain exports no metrics."""

    # ---- cluster-aware plugins: read what explain listed, write nothing -----------------

    def activate(self, pods: Iterable[Pod]) -> None:
        """Nothing is queued while explaining."""

    def patch_status(
        self, resource: ResourceSpec, obj: ApiObject, status: Mapping[str, Any]
    ) -> None:
        """Explain never writes to the cluster: the patch is dropped."""

    async def patch_object(
        self,
        resource: ResourceSpec,
        obj: ApiObject,
        patch: Mapping[str, Any],
        *,
        status: bool = False,
        strategic: bool = False,
    ) -> ApiObject:
        del resource, patch, status, strategic
        raise ReadOnlyError(f"kubesched explain never writes objects ({obj.key})")

    async def create_object(
        self, resource: ResourceSpec, namespace: str, body: Mapping[str, Any]
    ) -> ApiObject:
        del resource, body
        raise ReadOnlyError(f"kubesched explain never creates objects (in {namespace})")

    async def delete_object(self, resource: ResourceSpec, obj: ApiObject) -> None:
        del resource
        raise ReadOnlyError(f"kubesched explain never deletes objects ({obj.key})")
