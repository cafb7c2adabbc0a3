"""GangScheduling over CompositePodGroup trees (the `CompositePodGroup` feature gate, upstream
`preEnqueueWithHierarchies`, `checkCPGHierarchyReadiness`, `isCPGTreeReady`,
`permitPodForHierarchy`, `areSameHierarchy`).

A tree is ready when its root composite is: a composite is ready when at least
`minGroupCount` of its children are (1 for a basic policy), a PodGroup when its count of
pods reaches `minCount` (1 for a basic policy). PreEnqueue counts every member that exists,
Permit those bound or assumed.
"""

from __future__ import annotations

from collections.abc import Callable

from kubesched.framework import Code, Status
from kubesched.model import Pod
from kubesched.plugins.gang_scheduling.members import GroupPods, Reservations
from kubesched.plugins.helper.hierarchy import (
    COMPOSITE,
    Hierarchy,
    HierarchyError,
    Key,
    composite_key,
    key_string,
    pod_group_key,
)

CountOf = Callable[[str, str], int]
"""(namespace, PodGroup name) -> how many of its pods count."""


def tree_ready(tree: Hierarchy, key: Key, count: CountOf) -> bool:
    """upstream `isCPGTreeReady` (a composite) / `isPGReady` (a PodGroup)."""
    _, namespace, name = key
    if key[0] != COMPOSITE:
        group = tree.pod_group(namespace, name)
        if group is None:
            return False
        return count(namespace, name) >= (group.min_count if group.min_count is not None else 1)
    composite = tree.composite(namespace, name)
    if composite is None:
        return False
    needed = composite.min_group_count if composite.min_group_count is not None else 1
    ready = sum(1 for child in tree.children(namespace, name) if tree_ready(tree, child, count))
    return ready >= needed


def pods_of(groups: GroupPods, of: Pod) -> Callable[[str, str], list[Pod]]:
    """The members of a PodGroup as upstream's PodGroupState holds them for `of`'s scheduler."""

    def pods(namespace: str, name: str) -> list[Pod]:
        return [
            pod
            for pod in groups.of(namespace, name)
            if pod.node_name or pod.scheduler_name == of.scheduler_name
        ]

    return pods


def pre_enqueue(tree: Hierarchy, groups: GroupPods, pod: Pod) -> Status | None:
    """upstream `preEnqueueWithHierarchies` for a member whose PodGroup has a parent."""
    group = tree.pod_group(pod.namespace, pod.pod_group_name)
    if group is None:
        return _unresolvable(
            f'waiting for pods\'s pod group "{pod.pod_group_name}" to appear in scheduling queue'
        )
    pods = pods_of(groups, pod)
    parent = tree.parent(pod_group_key(pod.namespace, pod.pod_group_name))[1]
    if not parent:
        if tree_ready(tree, pod_group_key(pod.namespace, group.name), _count(pods)):
            return None
        return _unresolvable("waiting for minCount pods from a gang to appear in scheduling queue")
    root, problem = _root(tree, pod.namespace, parent)
    if problem is not None:
        return problem
    assert root is not None
    if tree_ready(tree, root, _count(pods)):
        return None
    return _unresolvable(f'waiting for composite pod group "{root[2]}" tree to meet quorum')


def permit(
    tree: Hierarchy,
    groups: GroupPods,
    reservations: Reservations,
    pod: Pod,
    parent: str,
) -> tuple[Status | None, Key | None, Callable[[str, str], set[str]]]:
    """upstream `permitPodForHierarchy`: the status (None: the tree's quorum is met), the
    root, and the bound-or-assumed members of each PodGroup."""
    pods = pods_of(groups, pod)

    def scheduled(namespace: str, name: str) -> set[str]:
        return reservations.scheduled(f"{namespace}/{name}", pods(namespace, name))

    root, problem = _root(tree, pod.namespace, parent, error=True)
    if problem is not None:
        return problem, None, scheduled
    assert root is not None
    if not tree_ready(tree, root, lambda ns, name: len(scheduled(ns, name))):
        message = f'waiting for composite pod group "{root[2]}" tree to meet quorum'
        return Status(Code.WAIT, message), root, scheduled
    return None, root, scheduled


def same_tree(tree: Hierarchy, namespace: str, pod_group: str, target: Key) -> bool:
    """upstream `areSameHierarchy` with the gate on: both have the same observed root."""
    try:
        first = tree.root(pod_group_key(namespace, pod_group))
        second = tree.root(target)
    except HierarchyError:
        return False
    return first is not None and first == second


def _root(
    tree: Hierarchy, namespace: str, parent: str, *, error: bool = False
) -> tuple[Key | None, Status | None]:
    start = composite_key(namespace, parent)
    try:
        root = tree.root(start)
    except HierarchyError as err:
        return None, Status(Code.ERROR, str(err))
    if root is None:
        message = (
            "failed to build hierarchy snapshot: composite pod group object not found in "
            f"state for {key_string(start)}"
        )
        return None, Status(Code.ERROR, message) if error else _unresolvable(message)
    return root, None


def _count(pods: Callable[[str, str], list[Pod]]) -> CountOf:
    return lambda namespace, name: len(pods(namespace, name))


def _unresolvable(message: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)


__all__ = ["permit", "pre_enqueue", "same_tree", "tree_ready"]
