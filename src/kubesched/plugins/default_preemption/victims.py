"""Preemption victims as kube-scheduler v1.37 collects and orders them (upstream
`getCrossNodesVictims`, `NewPodVictim`, `MoreImportantVictim`), with the `GenericWorkload`
gate or without it (then every pod is a victim of its own), for a pod group preemptor (the
domain is the whole cluster) and for a single pod (the domain is one node).

Every pod counted on the domain's nodes is one victim, except the pods under a group with
`spec.disruptionMode.all`: with the `CompositePodGroup` gate, the highest such group on the
pod's way up (its PodGroup, or a CompositePodGroup above it: `groups.highest_all`) makes one
victim of every scheduled pod of the PodGroups under it, wherever they run, even outside
the domain; without that gate, only a PodGroup's own mode counts. A pod of a PodGroup has
the priority of the last group on its way up (the root composite's when the tree is whole;
the PodGroup's without the gate), whether or not its group is evicted as a whole; other
pods their own. Most important first: higher priority, then composites before PodGroups
before single pods (a pod of a PodGroup evicted alone counts as a PodGroup), then more
pods, then the earlier start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import overload

from kubesched.framework import NodeInfo
from kubesched.framework.listers import Lister
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.plugins.default_preemption.groups import Groups, Level, highest_all
from kubesched.plugins.helper.hierarchy import Hierarchy, HierarchyError, Key

POD, PODGROUP, COMPOSITE = "pod", "podgroup", "compositepodgroup"
"""Upstream's victim (and preemptor) types, as they appear in event messages."""
_RANK = {POD: 1, PODGROUP: 2, COMPOSITE: 3}

GroupOf = Callable[[Pod], SchedulingPodGroup | None]
"""The PodGroup a pod belongs to (None: none, or it does not exist)."""


@dataclass(frozen=True, slots=True)
class Victim:
    """Pods evicted together, with the priority and type they are ranked by."""

    pods: tuple[Pod, ...]
    priority: int
    kind: str = POD
    earliest_start: float = 0.0

    @property
    def is_group(self) -> bool:
        return self.kind in (PODGROUP, COMPOSITE)


class Everywhere(Sequence[NodeInfo]):
    """The snapshot's nodes for one preemption evaluation, with what the victims of every
    candidate node read of them made once, when first asked: each PodGroup's pods in node
    order (`members`) and the nodes by name (`by_name`). Reading them for every candidate
    walked every pod of the cluster per candidate: with `disruptionMode: all` groups on
    each node, O(pods) for each of about a hundred candidates a preemptor. The nodes must
    not change while it is in use (a trial changes a clone of its node only)."""

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self._nodes = nodes
        self._members: dict[tuple[str, str], list[tuple[int, Pod]]] | None = None
        self._by_name: dict[str, NodeInfo] | None = None

    @overload
    def __getitem__(self, index: int) -> NodeInfo: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[NodeInfo]: ...
    def __getitem__(self, index: int | slice) -> NodeInfo | Sequence[NodeInfo]:
        return self._nodes[index]

    def __len__(self) -> int:
        return len(self._nodes)

    @property
    def by_name(self) -> dict[str, NodeInfo]:
        if self._by_name is None:
            self._by_name = {info.name: info for info in self._nodes}
        return self._by_name

    def members(self, namespace: str, pod_group: str) -> list[tuple[int, Pod]]:
        """The pods of PodGroup `namespace/pod_group` on the nodes, each with its place in
        node order (to merge several groups' pods in that order)."""
        if self._members is None:
            found: dict[tuple[str, str], list[tuple[int, Pod]]] = {}
            place = 0
            for info in self._nodes:
                for pod in info.pods.values():
                    if pod.pod_group_name:
                        found.setdefault((pod.namespace, pod.pod_group_name), []).append(
                            (place, pod)
                        )
                    place += 1
            self._members = found
        return self._members.get((namespace, pod_group), [])


def group_lookup(store: Lister[ApiObject], tree: Hierarchy | None = None) -> Groups:
    """`GroupOf` over the native PodGroups' store, each group parsed once; with `tree` (the
    CompositePodGroup gate on) also the composites above each PodGroup."""
    return Groups(store, tree)


def with_composites(group_of: GroupOf, tree: Hierarchy | None) -> GroupOf:
    """`group_of` reading the composites of `tree` too (None: the gate off, unchanged)."""
    return group_of.with_tree(tree) if isinstance(group_of, Groups) else group_of


def _chain(pod: Pod, group_of: GroupOf) -> tuple[Level, ...]:
    if isinstance(group_of, Groups):
        return group_of.chain(pod)
    group = group_of(pod) if pod.pod_group_name else None
    if group is None:
        return ()
    key = (PODGROUP, group.namespace, group.name)
    return (Level(key, group.priority, group.disrupt_all),)


def start_seconds(pod: Pod, now: float) -> float:
    """`status.startTime` as epoch seconds; `now` for pods not started (upstream)."""
    if not pod.start_time:
        return now
    try:
        return datetime.fromisoformat(pod.start_time).timestamp()
    except ValueError:
        return now


def pod_priority(pod: Pod, group_of: GroupOf | None) -> int:
    """Upstream `GetPodPriority`: the priority of the last group on the pod's way up (the
    root's; the PodGroup's without the CompositePodGroup gate), the pod's own outside any
    observed PodGroup (None: the GenericWorkload gate is off, every pod has its own)."""
    levels = _chain(pod, group_of) if group_of is not None else ()
    return levels[-1].priority if levels else pod.priority


def collect(
    nodes: Sequence[NodeInfo],
    group_of: GroupOf | None,
    *,
    now: float,
    everywhere: Sequence[NodeInfo] | None = None,
    below: int | None = None,
) -> list[Victim]:
    """Every victim on `nodes`, in node order (upstream `getCrossNodesVictims`); a group
    evicted as a whole has its scheduled pods on `everywhere` (default: `nodes`), which is
    read only when `nodes` hold such a group. `group_of` None (the gate off, upstream's nil
    PodGroup lister): every pod is a victim of its own, of type pod, at its own priority.
    With `below`, only the victims of a lower priority (upstream's first loop of
    `SelectVictimsOnNode`; without the gate, a pod at or above it is skipped before its
    victim is made, as upstream only compares its priority)."""
    if group_of is None:
        return [
            _victim([pod], pod.priority, POD, now)
            for info in nodes
            for pod in info.pods.values()
            if below is None or pod.priority < below
        ]
    pods = [pod for info in nodes for pod in info.pods.values()]
    tops = [highest_all(_chain(pod, group_of)) for pod in pods]
    wholes = {level.key for level in tops if level is not None}
    members = _members(everywhere or nodes, wholes, group_of) if wholes else {}
    seen: set[Key] = set()
    victims: list[Victim] = []
    for pod, top in zip(pods, tops, strict=True):
        priority = pod_priority(pod, group_of)
        if top is not None and members.get(top.key):
            if top.key not in seen:
                seen.add(top.key)
                victims.append(_victim(members[top.key], priority, top.key[0], now))
            continue
        kind = PODGROUP if pod.pod_group_name else POD
        victims.append(_victim([pod], priority, kind, now))
    return [v for v in victims if below is None or v.priority < below]


def _members(nodes: Sequence[NodeInfo], tops: set[Key], group_of: GroupOf) -> dict[Key, list[Pod]]:
    """The pods, on `nodes` in node order, of the PodGroups under each group of `tops`
    (upstream `searchCrossNodesVictimPods`; a tree that cannot be walked has none)."""
    under: dict[tuple[str, str], Key] = {}
    tree = group_of.tree if isinstance(group_of, Groups) else None
    for top in tops:
        try:
            leaves = list(tree.leaves(top)) if tree is not None else [top]
        except HierarchyError:
            continue
        under.update({(leaf[1], leaf[2]): top for leaf in leaves})
    if isinstance(nodes, Everywhere):
        return _indexed_members(nodes, under)
    members: dict[Key, list[Pod]] = {}
    for info in nodes:
        for pod in info.pods.values():
            top_key = under.get((pod.namespace, pod.pod_group_name))
            if pod.pod_group_name and top_key is not None:
                members.setdefault(top_key, []).append(pod)
    return members


def _indexed_members(nodes: Everywhere, under: dict[tuple[str, str], Key]) -> dict[Key, list[Pod]]:
    """`_members` read from the index: the same pods in the same (node) order."""
    placed: dict[Key, list[tuple[int, Pod]]] = {}
    for (namespace, name), top in under.items():
        if name:
            placed.setdefault(top, []).extend(nodes.members(namespace, name))
    return {
        top: [pod for _, pod in sorted(pods, key=_place)] for top, pods in placed.items() if pods
    }


def _place(entry: tuple[int, Pod]) -> int:
    return entry[0]


def _victim(pods: Sequence[Pod], priority: int, kind: str, now: float) -> Victim:
    started = [start_seconds(pod, now) for pod in pods if pod.start_time]
    earliest = min(started) if started else now
    return Victim(tuple(pods), priority, kind, earliest)


def most_important_first(victims: Sequence[Victim]) -> list[Victim]:
    """Most important first (upstream `MoreImportantVictim`)."""
    return sorted(
        victims,
        key=lambda v: (-v.priority, -_RANK[v.kind], -len(v.pods), v.earliest_start),
    )
