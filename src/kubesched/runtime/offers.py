"""Positions of a snapshot's node list by the extended resources their nodes offer.

Kept by `runtime.columns.NodeColumns` beside its columns and caught up with the same journal;
read by `runtime.narrowing` to find the only nodes a pod asking such a resource may fit.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from kubesched.framework.nodeinfo import NodeInfo


class OfferIndex:
    """Positions of a snapshot's node list by extended resource offered (allocatable > 0)."""

    __slots__ = ("_by_name", "_offered")

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self._offered: list[tuple[str, ...]] = [_offered(node) for node in nodes]
        self._by_name: dict[str, set[int]] = {}
        for position, offered in enumerate(self._offered):
            for name in offered:
                self._by_name.setdefault(name, set()).add(position)

    def refresh(self, positions: Collection[int], nodes: Sequence[NodeInfo]) -> None:
        """The nodes at `positions` changed: read what they offer again."""
        by_name = self._by_name
        for position in positions:
            before, after = self._offered[position], _offered(nodes[position])
            if before == after:
                continue
            for name in before:
                by_name[name].discard(position)
            for name in after:
                by_name.setdefault(name, set()).add(position)
            self._offered[position] = after

    def offering(self, wanted: Collection[str]) -> list[int]:
        """The positions of the nodes offering every resource of `wanted`, in order."""
        found: set[int] | None = None
        for name in wanted:
            having = self._by_name.get(name, set())
            found = set(having) if found is None else found & having
            if not found:
                return []
        return sorted(found or ())


def _offered(node: NodeInfo) -> tuple[str, ...]:
    scalar = node.node.allocatable.scalar
    return tuple(name for name, amount in scalar.items() if amount > 0) if scalar else ()
