"""What the Handles share: the scheduler's (`kubesched.scheduler.handle`), the offline one of
the start-up checks (`kubesched.runtime.offline`) with `kubesched explain`'s read-only one
over it (`kubesched.explain.handle`), and the plugin tests' fake
(`kubesched.testing.FakeHandle`).

`HandleBase` reads: the node infos of a snapshot, the listers of the declared resources (a
resource nobody declared raises KeyError naming the fix, `ClusterListers.store`), the pods,
the storage objects, the waiting pods and the shared DRA manager. For the Handles that never
reach the cluster it also keeps nominations in memory, records each preemption asked for
instead of evicting, and reads objects from the listers instead of the API server; the
scheduler's Handle overrides those members.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from kubesched.framework import (
    NodeInfo,
    ObjectWriteError,
    RecordedPreemption,
    SharedDRAManager,
    WaitingPods,
)
from kubesched.framework.listers import ClusterListers, Lister
from kubesched.framework.resources import ResourceSpec
from kubesched.framework.volumes import VolumeListers
from kubesched.model import ApiObject, Pod


class NodeInfos(Protocol):
    """The snapshot a Handle reads its nodes from (`kubesched.cache.Snapshot`)."""

    @property
    def node_infos(self) -> Sequence[NodeInfo]: ...

    def get(self, name: str) -> NodeInfo | None: ...


class HandleBase:
    """The shared members of `kubesched.framework.Handle`; an implementation sets the
    attributes below (in its constructor, or as a dataclass's fields) and defines the
    members that differ (binding, events, activation, status patches, writes)."""

    __slots__ = ()

    listers: ClusterListers
    """The stores of the declared resources and the pods (`lister`, `pod_lister`)."""
    volumes: VolumeListers
    """What `volume_listers` answers."""
    nominated: dict[str, list[Pod]]
    """Node name -> the pods nominated to it (the in-memory Handles)."""
    preemptions: list[RecordedPreemption]
    """Each eviction a preemption plugin asked for (the in-memory Handles evict nothing)."""
    dra_manager: SharedDRAManager
    """The DRA manager every profile shares: the scheduler's, built once per process, or
    one over `listers` (`DraManager`) for a Handle that stands alone."""
    _snapshot: NodeInfos
    _waiting_pods: WaitingPods

    # ---- reading ----------------------------------------------------------------------

    def list_node_infos(self) -> Sequence[NodeInfo]:
        return self._snapshot.node_infos

    def get_node_info(self, name: str) -> NodeInfo | None:
        return self._snapshot.get(name)

    @property
    def waiting_pods(self) -> WaitingPods:
        return self._waiting_pods

    @property
    def volume_listers(self) -> VolumeListers:
        return self.volumes

    def lister(self, resource: ResourceSpec) -> Lister[ApiObject]:
        return self.listers.store(resource)

    def pod_lister(self) -> Lister[Pod]:
        return self.listers.pods

    def shared_dra_manager(self) -> SharedDRAManager:
        return self.dra_manager

    # ---- in memory: nominations, preemptions, objects read from the listers ------------

    def has_nominated_pods(self) -> bool:
        return any(self.nominated.values())

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        return list(self.nominated.get(node_name, ()))

    def nominated_node_names(self) -> Collection[str]:
        return [name for name, pods in self.nominated.items() if pods]

    def preempt(
        self, preemptor: Pod, *, node_name: str, victims: Sequence[Pod], pdb_violations: int = 0
    ) -> None:
        del pdb_violations  # a metric only
        self.preemptions.append(RecordedPreemption(preemptor, node_name, tuple(victims)))

    async def get_object(self, resource: ResourceSpec, namespace: str, name: str) -> ApiObject:
        found = self.listers.store(resource).get(name, namespace)
        if found is None:
            raise ObjectWriteError(f"{namespace}/{name} not found", not_found=True)
        return found
