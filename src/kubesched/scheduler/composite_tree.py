"""The tree a composite pod-group cycle places (the `CompositePodGroup` feature gate):
upstream's `PodGroupInfo` hierarchy as the queue's `workloadForest.buildQueuedPodGroupInfo`
builds it, with each PodGroup's queued members (`QueuedPodGroupInfo.QueuedPodInfos`).

A composite is given to the PlacementFeasible and PlacementGenerate plugins as a
`SchedulingPodGroup` stand-in (`minCount` = its `minGroupCount`, its topology key and
priority), as upstream's plugins read a `PodGroupInfo` of either type.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from kubesched.framework.placement_points import ScheduledMember
from kubesched.model import SchedulingPodGroup
from kubesched.model.composite import MAX_TREE_DEPTH, SchedulingCompositePodGroup
from kubesched.plugins.helper.hierarchy import (
    COMPOSITE,
    Hierarchy,
    HierarchyError,
    Key,
    pod_group_key,
)
from kubesched.queue import QueuedPodInfo

ScheduledOf = Callable[[SchedulingPodGroup], tuple[ScheduledMember, ...]]


@dataclass(slots=True)
class TreeNode:
    """One group of the tree: a PodGroup (a leaf) or a CompositePodGroup."""

    key: Key
    group: SchedulingPodGroup
    """The PodGroup, or the composite's stand-in."""
    composite: SchedulingCompositePodGroup | None = None
    children: list[TreeNode] = field(default_factory=list)
    queued: list[QueuedPodInfo] = field(default_factory=list)
    """A leaf's members in this cycle, in upstream's member order."""
    scheduled: tuple[ScheduledMember, ...] = ()
    """A leaf's members bound or assumed before this cycle."""
    created: str = ""

    def leaves(self) -> Iterator[TreeNode]:
        if self.composite is None:
            yield self
            return
        for child in self.children:
            yield from child.leaves()

    def subtree_scheduled(self) -> tuple[ScheduledMember, ...]:
        """upstream `helper.GetPodGroupStates` over the subtree: every leaf's scheduled."""
        return tuple(member for leaf in self.leaves() for member in leaf.scheduled)


def stand_in(composite: SchedulingCompositePodGroup) -> SchedulingPodGroup:
    """The composite as the placement plugins read a group."""
    return SchedulingPodGroup(
        namespace=composite.namespace,
        name=composite.name,
        min_count=composite.min_group_count,
        generation=composite.obj.generation,
        conditions=(),
        obj=composite.obj,
        priority=composite.priority,
        topology_key=composite.topology_key,
    )


def build_tree(
    tree: Hierarchy,
    root: Key,
    queued: Mapping[tuple[str, str], list[QueuedPodInfo]],
    scheduled_of: ScheduledOf,
) -> TreeNode | None:
    """The tree under `root` (None when a group vanished); `queued` maps (namespace,
    PodGroup name) to its members in this cycle. HierarchyError past `MAX_TREE_DEPTH`."""
    return _node(tree, root, queued, scheduled_of, depth=0)


def _node(
    tree: Hierarchy,
    key: Key,
    queued: Mapping[tuple[str, str], list[QueuedPodInfo]],
    scheduled_of: ScheduledOf,
    *,
    depth: int,
) -> TreeNode | None:
    if depth >= MAX_TREE_DEPTH:
        raise HierarchyError(f"exceeded maximum hierarchy depth at {'/'.join(key)}")
    _, namespace, name = key
    if key[0] != COMPOSITE:
        group = tree.pod_group(namespace, name)
        if group is None:
            return None
        members = list(queued.get((namespace, name), ()))
        return TreeNode(
            key,
            group,
            queued=members,
            scheduled=scheduled_of(group),
            created=group.obj.creation_timestamp,
        )
    composite = tree.composite(namespace, name)
    if composite is None:
        return None
    node = TreeNode(key, stand_in(composite), composite, created=composite.creation_timestamp)
    for child_key in tree.children(namespace, name):
        child = _node(tree, child_key, queued, scheduled_of, depth=depth + 1)
        if child is not None:
            node.children.append(child)
    # upstream `GetChildGroups`: by creation time, then name
    node.children.sort(key=lambda child: (child.created, child.key[2]))
    return node


def leaf_key(namespace: str, name: str) -> Key:
    return pod_group_key(namespace, name)


__all__ = ["TreeNode", "build_tree", "leaf_key", "stand_in"]
