"""The Handle `kubesched explain` gives plugins: the scheduler's view, and no way to write.

Plugins get the node infos, the nominated pods and the listers of what they declare (the
namespaces, Services, workload controllers and PodDisruptionBudgets among them), as the
scheduler would give them. A bind raises `ReadOnlyError`, events are dropped, and a
preemption is only recorded (`preemptions`), so whatever a plugin tries, explain never
writes to the cluster, and it can still say what preemption would evict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubesched.cache import Snapshot
from kubesched.framework import Code, NodeInfo, ObjectWriteError, RecordedPreemption, WaitingPods
from kubesched.framework.listers import ClusterListers, Lister
from kubesched.framework.resources import ResourceSpec
from kubesched.framework.volumes import StaticVolumeListers, VolumeListers
from kubesched.model import ApiObject, PersistentVolume, PersistentVolumeClaim, Pod


class ReadOnlyError(RuntimeError):
    """A plugin tried to change the cluster while explaining."""


class ReadOnlyHandle:
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
        self._nominated: dict[str, list[Pod]] = {}
        for pod in nominated:
            if pod.nominated_node_name and not pod.node_name:
                self._nominated.setdefault(pod.nominated_node_name, []).append(pod)
        self._volumes = volumes if volumes is not None else StaticVolumeListers()
        self.dropped_events: list[tuple[str, str, str]] = []
        """(pod, reason, note) of each event a plugin tried to record."""
        self.preemptions: list[RecordedPreemption] = []
        """Each eviction a preemption plugin asked for (nothing is evicted)."""

    def list_node_infos(self) -> Sequence[NodeInfo]:
        return self._snapshot.node_infos

    def get_node_info(self, name: str) -> NodeInfo | None:
        return self._snapshot.get(name)

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

    @property
    def waiting_pods(self) -> WaitingPods:
        return self._waiting_pods

    # ---- volumes: read; the writes of VolumeBinding's PreBind raise ----------------------

    @property
    def volume_listers(self) -> VolumeListers:
        return self._volumes

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

    # ---- preemption: read, and record instead of evicting ------------------------------

    def has_nominated_pods(self) -> bool:
        return bool(self._nominated)

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        return self._nominated.get(node_name, [])

    def preempt(
        self, preemptor: Pod, *, node_name: str, victims: Sequence[Pod], pdb_violations: int = 0
    ) -> None:
        del pdb_violations  # a metric only
        self.preemptions.append(RecordedPreemption(preemptor, node_name, tuple(victims)))

    def is_preempting(self, uid: str) -> bool:  # noqa: ARG002 - nothing is ever evicted
        return False

    def preemption_attempted(self, *, result: Code = Code.SUCCESS, seconds: float = 0.0) -> None:
        del result, seconds
        """Nothing to count: explain exports no metrics."""

    # ---- cluster-aware plugins: read what explain listed, write nothing -----------------

    def lister(self, resource: ResourceSpec) -> Lister[ApiObject]:
        return self.listers.store(resource)

    def pod_lister(self) -> Lister[Pod]:
        return self.listers.pods

    def activate(self, pods: Iterable[Pod]) -> None:
        """Nothing is queued while explaining."""

    def patch_status(
        self, resource: ResourceSpec, obj: ApiObject, status: Mapping[str, Any]
    ) -> None:
        """Explain never writes to the cluster: the patch is dropped."""

    async def get_object(self, resource: ResourceSpec, namespace: str, name: str) -> ApiObject:
        found = self.listers.store(resource).get(name, namespace)
        if found is None:
            raise ObjectWriteError(f"{namespace}/{name} not found", not_found=True)
        return found

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
