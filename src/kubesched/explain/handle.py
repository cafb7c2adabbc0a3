"""The Handle `kubesched explain` gives plugins: the scheduler's view, and no way to write.

Plugins get the node infos, the nominated pods and the listers of what they declare (the
namespaces, Services, workload controllers and PodDisruptionBudgets among them), as the
scheduler would give them. A bind raises `ReadOnlyError`, events are dropped, and a
preemption is only recorded (`preemptions`), so whatever a plugin tries, explain never
writes to the cluster, and it can still say what preemption would evict. It is the offline
Handle of the start-up checks (`kubesched.runtime.offline`) over the cluster explain read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from kubesched.cache import Snapshot
from kubesched.errors import KubeschedError
from kubesched.framework.listers import ClusterListers
from kubesched.framework.volumes import VolumeListers
from kubesched.model import Pod
from kubesched.runtime.offline import OfflineHandle


class ReadOnlyError(KubeschedError, RuntimeError):
    """A plugin tried to change the cluster while explaining."""


class ReadOnlyHandle(OfflineHandle):
    """Implements `kubesched.framework.Handle` over a snapshot, without any writes."""

    who: ClassVar[str] = "kubesched explain"
    refusal: ClassVar[type[Exception]] = ReadOnlyError

    def __init__(
        self,
        snapshot: Snapshot,
        *,
        nominated: Iterable[Pod] = (),
        listers: ClusterListers | None = None,
        volumes: VolumeListers | None = None,
    ) -> None:
        """`listers`: the objects cluster-aware plugins read (listed once by explain)."""
        super().__init__(listers)
        self._snapshot = snapshot
        for pod in nominated:
            if pod.nominated_node_name and not pod.node_name:
                self.nominated.setdefault(pod.nominated_node_name, []).append(pod)
        if volumes is not None:
            self.volumes = volumes
        self.dropped_events: list[tuple[str, str, str]] = []
        """(pod, reason, note) of each event a plugin tried to record."""

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
