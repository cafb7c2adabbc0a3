"""Which NodeResourceTopology data a cycle may use (scheduler-plugins' `cache` package).

Passthrough (`cacheResyncPeriodSeconds: 0`, the default): the object as the informer last saw
it. DiscardReserved (`discardReservedNodes: true`, which wins over a period): a node where a
pod was reserved is left out until that pod is bound or unreserved, as its NRT object cannot
count the pod yet. OverReserve (a positive period): `overreserve.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubesched.framework import Lister
from kubesched.model import ApiObject, Pod

Body = Mapping[str, Any]


class TopologySource(Protocol):
    """What the plugin asks of its NRT data, whatever the caching mode."""

    def topology(self, node_name: str) -> tuple[Body | None, bool]:
        """The node's NRT body (None: it has none) and whether the data may be used."""
        ...

    def maybe_over_reserved(self, node_name: str) -> None:
        """The Filter refused the node (a resync candidate)."""
        ...

    def reserve(self, node_name: str, pod: Pod) -> None: ...

    def unreserve(self, node_name: str, pod: Pod) -> None: ...

    def post_bind(self, node_name: str, pod: Pod) -> None: ...


@dataclass
class Passthrough:
    """The informer's objects as they are; reservations change nothing."""

    objects: Lister[ApiObject]

    def topology(self, node_name: str) -> tuple[Body | None, bool]:
        obj = self.objects.get(node_name)
        return (None if obj is None else obj.body), True

    def maybe_over_reserved(self, node_name: str) -> None:
        del node_name

    def reserve(self, node_name: str, pod: Pod) -> None:
        del node_name, pod

    def unreserve(self, node_name: str, pod: Pod) -> None:
        del node_name, pod

    def post_bind(self, node_name: str, pod: Pod) -> None:
        del node_name, pod


@dataclass
class DiscardReserved(Passthrough):
    """Pod UIDs reserved per node and not yet bound (`DiscardReserved`'s reservation map)."""

    by_node: dict[str, set[str]] = field(default_factory=dict)

    def topology(self, node_name: str) -> tuple[Body | None, bool]:
        if self.by_node.get(node_name):
            return None, False
        return super().topology(node_name)

    def reserve(self, node_name: str, pod: Pod) -> None:
        self.by_node.setdefault(node_name, set()).add(pod.uid)

    def unreserve(self, node_name: str, pod: Pod) -> None:
        self.by_node.get(node_name, set()).discard(pod.uid)

    def post_bind(self, node_name: str, pod: Pod) -> None:
        self.unreserve(node_name, pod)
