"""The order in which a snapshot lists nodes: round-robin over zones, like upstream's nodeTree.

Filtering stops after enough feasible nodes (the adaptive sample) and resumes next cycle
where it stopped, so interleaving zones spreads the sample across failure domains.
"""

from __future__ import annotations

from kubesched.model import Node

ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")


def _first_label(node: Node, keys: tuple[str, ...]) -> str:
    for key in keys:
        if value := node.labels.get(key):
            return value
    return ""


def zone_key(node: Node) -> str:
    """`region:\\x00:zone` of a node, or "" when it has neither label."""
    region = _first_label(node, REGION_LABELS)
    zone = _first_label(node, ZONE_LABELS)
    return f"{region}:\x00:{zone}" if region or zone else ""


class NodeTree:
    """Node names grouped by zone; zones and nodes keep their insertion order."""

    def __init__(self) -> None:
        self._zones: dict[str, list[str]] = {}
        self._zone_of: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._zone_of)

    def __contains__(self, name: object) -> bool:
        return name in self._zone_of

    def add(self, node: Node) -> bool:
        """Add or re-zone a node; True when the listing order changed."""
        zone = zone_key(node)
        current = self._zone_of.get(node.name)
        if current == zone:
            return False
        if current is not None:
            self.remove(node.name)
        self._zone_of[node.name] = zone
        self._zones.setdefault(zone, []).append(node.name)
        return True

    def remove(self, name: str) -> bool:
        """Remove a node; False when it was not there."""
        zone = self._zone_of.pop(name, None)
        if zone is None:
            return False
        names = self._zones[zone]
        names.remove(name)
        if not names:
            del self._zones[zone]
        return True

    def list(self) -> list[str]:
        """All names: the first node of every zone, then the second of every zone, ..."""
        zones = list(self._zones.values())
        longest = max((len(names) for names in zones), default=0)
        return [names[i] for i in range(longest) for names in zones if i < len(names)]
