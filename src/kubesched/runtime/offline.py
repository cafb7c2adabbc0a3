"""A Handle without a cluster: what a plugin's constructor gets when the profiles are checked
before anything connects (`kubesched.config.plugin_check`: `kubesched run`,
`--write-config-to`, `kubesched manifests`, the image's plugin check), as kube-scheduler
builds its frameworks before `--write-config-to` writes anything.

The cluster is empty: no nodes, the declared resources' listers empty, nothing nominated
or waiting, a DRA manager over those listers. Reads answer from that; anything that would
change the cluster raises `OfflineError` (events, activations and status patches, which a
Handle does in the background, are dropped). `kubesched explain`'s read-only Handle is this
one over a snapshot it read (`kubesched.explain.handle`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from kubesched.errors import KubeschedError
from kubesched.framework import EventObject, NodeInfo, RecordedPreemption, WaitingPods
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import ResourceSpec
from kubesched.framework.volumes import StaticVolumeListers
from kubesched.model import ApiObject, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.runtime.dra_manager import DraManager
from kubesched.runtime.handle_base import HandleBase


class OfflineError(KubeschedError, RuntimeError):
    """A plugin tried to change the cluster through a Handle that has none."""


class NoNodes:
    """The snapshot of an empty cluster."""

    @property
    def node_infos(self) -> Sequence[NodeInfo]:
        return ()

    def get(self, name: str) -> NodeInfo | None:  # noqa: ARG002 - there is no node
        return None


class OfflineHandle(HandleBase):
    """Implements `kubesched.framework.Handle` over an empty cluster (`listers`: the stores
    of the resources the profile's plugins declare), refusing every write."""

    who: ClassVar[str] = "the offline plugin check"
    """How a refusal names the Handle's user."""
    refusal: ClassVar[type[Exception]] = OfflineError

    def __init__(self, listers: ClusterListers | None = None) -> None:
        self._snapshot = NoNodes()
        self.listers = listers or ClusterListers()
        self._waiting_pods = WaitingPods()
        self.nominated: dict[str, list[Pod]] = {}
        self.preemptions: list[RecordedPreemption] = []
        """Each eviction a preemption plugin asked for (nothing is evicted)."""
        self.volumes = StaticVolumeListers()
        self.dra_manager = DraManager(self.listers)

    def _refused(self, what: str) -> Exception:
        return self.refusal(f"{self.who} never {what}")

    async def bind(self, pod: Pod, node_name: str) -> None:
        raise self._refused(f"writes to the cluster (bind {pod.key} to {node_name})")

    def record_event(
        self, pod: Pod, *, event_type: str, reason: str, action: str, note: str
    ) -> None:
        """Dropped: there is no cluster to record it in."""
        del pod, event_type, reason, action, note

    def record_object_event(
        self, regarding: EventObject, *, event_type: str, reason: str, action: str, note: str
    ) -> bool:
        """Dropped: there is no cluster to record it in."""
        del regarding, event_type, reason, action, note
        return False

    # ---- volumes: read; the writes of VolumeBinding's PreBind raise ----------------------

    async def bind_volume(
        self, volume: PersistentVolume, claim: PersistentVolumeClaim
    ) -> PersistentVolume:
        raise self._refused(f"binds volumes ({volume.name} to {claim.key})")

    async def select_node_for_claim(
        self, claim: PersistentVolumeClaim, node_name: str
    ) -> PersistentVolumeClaim:
        raise self._refused(f"selects a node for a claim ({claim.key} to {node_name})")

    # ---- preemption: recorded (`HandleBase.preempt`), never evicting -------------------

    def is_preempting(self, uid: str) -> bool:  # noqa: ARG002 - nothing is ever evicted
        return False

    # ---- cluster-aware plugins: read the listers, write nothing -------------------------

    def activate(self, pods: Iterable[Pod]) -> None:
        """Nothing is queued."""

    def patch_status(
        self, resource: ResourceSpec, obj: ApiObject, status: Mapping[str, Any]
    ) -> None:
        """Dropped: nothing is written to the cluster."""

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
        raise self._refused(f"writes objects ({obj.key})")

    async def create_object(
        self, resource: ResourceSpec, namespace: str, body: Mapping[str, Any]
    ) -> ApiObject:
        del resource, body
        raise self._refused(f"creates objects (in {namespace})")

    async def delete_object(self, resource: ResourceSpec, obj: ApiObject) -> None:
        del resource
        raise self._refused(f"deletes objects ({obj.key})")
