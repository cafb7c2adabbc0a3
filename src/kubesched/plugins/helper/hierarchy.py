"""The trees of PodGroups under CompositePodGroups (kube-scheduler v1.37's `CompositePodGroup`
feature gate), read from the two listers: upstream's `workloadForest` (queue) and the
snapshot's `GetRootKeyForGroup` / `CompositePodGroupState.GetChildren` (cache).

A group is keyed `(kind, namespace, name)`, kind `podgroup` or `compositepodgroup` (upstream
`EntityKeyType`). A child is linked to its parent by its own
`spec.parentCompositePodGroupName`, whether or not the parent has been observed; a walk up
stops (no root) at a group not observed, and raises `HierarchyError` on a cycle.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.errors import KubeschedError
from kubesched.framework import Handle
from kubesched.framework.listers import Lister
from kubesched.model import ApiObject, SchedulingPodGroup
from kubesched.model.composite import SchedulingCompositePodGroup, parent_name

POD_GROUP = "podgroup"
COMPOSITE = "compositepodgroup"
Key = tuple[str, str, str]
"""(kind, namespace, name)."""


class HierarchyError(KubeschedError):
    """A cycle in the parents, or a tree deeper than the API allows."""


@dataclass(frozen=True, slots=True)
class Hierarchy:
    """PodGroups and CompositePodGroups as observed by the informers."""

    pod_groups: Lister[ApiObject]
    composites: Lister[ApiObject]

    def pod_group(self, namespace: str, name: str) -> SchedulingPodGroup | None:
        obj = self.pod_groups.get(name, namespace)
        return SchedulingPodGroup.of(obj) if obj is not None else None

    def composite(self, namespace: str, name: str) -> SchedulingCompositePodGroup | None:
        obj = self.composites.get(name, namespace)
        return SchedulingCompositePodGroup.of(obj) if obj is not None else None

    def parent(self, key: Key) -> tuple[bool, str]:
        """(observed, parent name) of a group; parent "" for a root."""
        lister = self.pod_groups if key[0] == POD_GROUP else self.composites
        obj = lister.get(key[2], key[1])
        return (obj is not None, parent_name(obj) if obj is not None else "")

    def root(self, key: Key) -> Key | None:
        """The root of `key`'s tree (upstream `GetRootKeyForGroup`): None when a group on the
        way up is not observed; HierarchyError on a cycle."""
        seen: set[Key] = set()
        current = key
        while True:
            if current in seen:
                raise HierarchyError(f"cycle detected in the hierarchy: {sorted(seen)}")
            seen.add(current)
            observed, parent = self.parent(current)
            if not observed:
                return None
            if not parent:
                return current
            current = (COMPOSITE, current[1], parent)

    def children(self, namespace: str, composite: str) -> list[Key]:
        """The groups naming `composite` as their parent (PodGroups first, each kind by
        name)."""
        found: list[Key] = []
        for kind, lister in ((POD_GROUP, self.pod_groups), (COMPOSITE, self.composites)):
            names = sorted(o.name for o in lister.list(namespace) if parent_name(o) == composite)
            found.extend((kind, namespace, name) for name in names)
        return found

    def leaves(self, root: Key) -> Iterator[Key]:
        """The PodGroups of the tree under `root` (itself if it is one)."""
        if root[0] == POD_GROUP:
            yield root
            return
        stack, seen = [root], {root}
        while stack:
            _, namespace, name = stack.pop()
            for child in self.children(namespace, name):
                if child in seen:
                    raise HierarchyError(
                        f"cycle detected in composite pod group hierarchy: {child}"
                    )
                seen.add(child)
                if child[0] == POD_GROUP:
                    yield child
                else:
                    stack.append(child)


def composite_hierarchy(handle: Handle) -> Hierarchy | None:
    """The PodGroup trees when the handle serves CompositePodGroups (the gate is on: the
    server watches them only then); None without."""
    try:
        composites = handle.lister(SCHEDULING_COMPOSITEPODGROUPS)
    except KeyError:
        return None
    return Hierarchy(handle.lister(SCHEDULING_PODGROUPS), composites)


def key_string(key: Key) -> str:
    """upstream `EntityKey.String()`: `compositepodgroup/<namespace>/<name>`."""
    return "/".join(key)


def pod_group_key(namespace: str, name: str) -> Key:
    return (POD_GROUP, namespace, name)


def composite_key(namespace: str, name: str) -> Key:
    return (COMPOSITE, namespace, name)


__all__ = [
    "COMPOSITE",
    "POD_GROUP",
    "Hierarchy",
    "HierarchyError",
    "Key",
    "composite_hierarchy",
    "composite_key",
    "key_string",
    "pod_group_key",
]
