"""Which NodeResourceTopology data a cycle may use (scheduler-plugins' `cache` package, its
two modes without a resync loop).

Passthrough (`cacheResyncPeriodSeconds: 0`, the default): the object as last seen. With
`discardReservedNodes: true`, a node where a pod was reserved is left out until that pod is
bound or unreserved: its NRT object cannot count the pod yet, so its data is not fresh.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class ReservedPods:
    """Pod UIDs reserved per node and not yet bound (`DiscardReserved`'s reservation map)."""

    enabled: bool = False
    by_node: dict[str, set[str]] = field(default_factory=dict)

    def fresh(self, node_name: str) -> bool:
        """False while a pod reserved on the node is not bound (only when enabled)."""
        return not self.enabled or not self.by_node.get(node_name)

    def reserve(self, node_name: str, uid: str) -> None:
        if self.enabled:
            self.by_node.setdefault(node_name, set()).add(uid)

    def release(self, node_name: str, uid: str) -> None:
        """Unreserve or PostBind: the pod no longer holds the node back."""
        pods = self.by_node.get(node_name)
        if pods is not None:
            pods.discard(uid)
