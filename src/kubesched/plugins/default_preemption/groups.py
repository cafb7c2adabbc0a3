"""A pod's preemption group chain (kube-scheduler v1.37's `GenericWorkload` and
`CompositePodGroup` gates): its PodGroup and, with the CompositePodGroup gate, the
CompositePodGroups above it, as upstream's `TraverseHierarchyUp` visits them.

The walk starts at the pod's PodGroup and follows `spec.parentCompositePodGroupName`; it
stops at a group not observed, at a group seen before, or after `WorkloadMaxTreeDepth`
groups. Upstream `GetPodPriority` takes the last group reached (the root when the tree is
whole); `getHighestAllAncestor` the highest group with `spec.disruptionMode.all`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kubesched.framework.listers import Lister
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.model.composite import MAX_TREE_DEPTH, parent_name
from kubesched.plugins.helper.hierarchy import (
    COMPOSITE,
    POD_GROUP,
    Hierarchy,
    Key,
)


@dataclass(frozen=True, slots=True)
class Level:
    """One group on a pod's way up: its key, priority and disruption mode."""

    key: Key
    priority: int
    disrupt_all: bool


class Groups:
    """A pod's native PodGroup (callable, each group parsed once) and, with `tree` (the
    CompositePodGroup gate on), its chain of groups up to the root."""

    def __init__(self, store: Lister[ApiObject], tree: Hierarchy | None = None) -> None:
        self.store = store
        self.tree = tree
        self._groups: dict[tuple[str, str], SchedulingPodGroup | None] = {}
        self._chains: dict[tuple[str, str], tuple[Level, ...]] = {}

    def __call__(self, pod: Pod) -> SchedulingPodGroup | None:
        key = (pod.namespace, pod.pod_group_name)
        if key not in self._groups:
            obj = self.store.get(pod.pod_group_name, pod.namespace)
            self._groups[key] = SchedulingPodGroup.of(obj) if obj is not None else None
        return self._groups[key]

    def with_tree(self, tree: Hierarchy | None) -> Groups:
        """The same PodGroups, with the composites of `tree` (None: unchanged)."""
        return self if tree is None or self.tree is not None else Groups(self.store, tree)

    def chain(self, pod: Pod) -> tuple[Level, ...]:
        """The groups from the pod's PodGroup up (upstream `TraverseHierarchyUp`); only the
        PodGroup without `tree`; empty for a pod of no (observed) PodGroup."""
        if not pod.pod_group_name:
            return ()
        key = (pod.namespace, pod.pod_group_name)
        if key not in self._chains:
            self._chains[key] = self._walk(pod)
        return self._chains[key]

    def _walk(self, pod: Pod) -> tuple[Level, ...]:
        group = self(pod)
        if group is None:
            return ()
        levels = [
            Level((POD_GROUP, group.namespace, group.name), group.priority, group.disrupt_all)
        ]
        if self.tree is None:
            return tuple(levels)
        seen = {levels[0].key}
        parent = parent_name(group.obj)
        while parent and len(levels) < MAX_TREE_DEPTH:
            key = (COMPOSITE, group.namespace, parent)
            composite = self.tree.composite(group.namespace, parent)
            if key in seen or composite is None:
                break
            seen.add(key)
            levels.append(Level(key, composite.priority, _disrupts_all(composite.obj)))
            parent = composite.parent
        return tuple(levels)


def _disrupts_all(obj: ApiObject) -> bool:
    mode = obj.spec.get("disruptionMode")
    return isinstance(mode, Mapping) and isinstance(mode.get("all"), Mapping)


def highest_all(levels: tuple[Level, ...]) -> Level | None:
    """upstream `getHighestAllAncestor`: the highest group with `disruptionMode.all`."""
    found = None
    for level in levels:
        if level.disrupt_all:
            found = level
    return found


__all__ = ["Groups", "Level", "highest_all"]
