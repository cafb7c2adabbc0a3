"""The Handle `kubesched explain` gives plugins: the scheduler's view, and no way to write.

Plugins get the node infos, the nominated pods and the PodDisruptionBudgets the scheduler
would give them. A bind raises `ReadOnlyError`, events are dropped, and a preemption is
only recorded (`preemptions`), so whatever a plugin tries, explain never writes to the
cluster, and it can still say what preemption would evict.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kubesched.cache import Snapshot
from kubesched.framework import NodeInfo, WaitingPods
from kubesched.model import Pod, PodDisruptionBudget


class ReadOnlyError(RuntimeError):
    """A plugin tried to change the cluster while explaining."""


@dataclass(frozen=True, slots=True)
class RecordedPreemption:
    """What a preemption plugin asked for: evict `victims` from `node_name`."""

    preemptor: Pod
    node_name: str
    victims: tuple[Pod, ...]


class ReadOnlyHandle:
    """Implements `kubesched.framework.Handle` and `PreemptionHandle` over a snapshot,
    without any writes."""

    def __init__(
        self,
        snapshot: Snapshot,
        *,
        nominated: Iterable[Pod] = (),
        pdbs: Sequence[PodDisruptionBudget] = (),
    ) -> None:
        self._snapshot = snapshot
        self._waiting_pods = WaitingPods()
        self._nominated: dict[str, list[Pod]] = {}
        for pod in nominated:
            if pod.nominated_node_name and not pod.node_name:
                self._nominated.setdefault(pod.nominated_node_name, []).append(pod)
        self.pdbs: Sequence[PodDisruptionBudget] = pdbs
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

    # ---- PreemptionHandle: read, and record instead of evicting -------------------------

    def has_nominated_pods(self) -> bool:
        return bool(self._nominated)

    def nominated_pods_for_node(self, node_name: str) -> Sequence[Pod]:
        return self._nominated.get(node_name, [])

    def pod_disruption_budgets(self) -> Sequence[PodDisruptionBudget]:
        return self.pdbs

    def preempt(self, preemptor: Pod, *, node_name: str, victims: Sequence[Pod]) -> None:
        self.preemptions.append(RecordedPreemption(preemptor, node_name, tuple(victims)))

    def is_preempting(self, uid: str) -> bool:  # noqa: ARG002 - nothing is ever evicted
        return False
