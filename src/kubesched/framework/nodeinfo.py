"""NodeInfo: one node plus the pods on it and what they use, as plugins see it.

The cache owns the live NodeInfo objects and mutates them as pods come and go; each
scheduling cycle reads a snapshot of clones (see `kubesched.cache`). Plugins must treat a
NodeInfo as read-only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Protocol, cast

from kubesched.framework.imagestates import ImageStateSummary, snapshot_states
from kubesched.framework.podmap import PodMap
from kubesched.model import HostPort, Node, Pod, Resource


def _has_affinity(pod: Pod) -> bool:
    affinity = pod.affinity
    return affinity is not None and bool(affinity.pod_affinity or affinity.pod_anti_affinity)


def _has_required_anti_affinity(pod: Pod) -> bool:
    affinity = pod.affinity
    anti = affinity.pod_anti_affinity if affinity is not None else None
    return anti is not None and bool(anti.required)


@dataclass(slots=True)
class NodeInfo:
    """Aggregated state of one node. `generation` grows on every change (snapshot diffing)."""

    node: Node
    pods: PodMap = field(default_factory=PodMap)
    """UID -> Pod, as a dict reads (`framework.podmap`: cheap to clone)."""
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    used_ports: Counter[HostPort] = field(default_factory=Counter)
    pods_with_affinity: list[Pod] = field(default_factory=list)
    pods_with_required_anti_affinity: list[Pod] = field(default_factory=list)
    generation: int = 0
    pod_volumes: int = 0
    """How many volumes the pods declare, all kinds (a bound for NodeVolumeLimits)."""
    image_states: dict[str, ImageStateSummary] = field(default_factory=dict)
    """Image name -> its state, for each image the node lists (see `imagestates`): live
    summaries in the cache, counts frozen in a snapshot's clone."""
    memo: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)
    """Filter/Score results for this very object (see `kubesched.runtime.memo`); every
    change to the node empties it, and a clone starts without it."""

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable

    def add_pod(self, pod: Pod) -> None:
        """Count `pod` on this node (keyed by UID; adding the same UID twice replaces it)."""
        if pod.uid in self.pods:
            self.remove_pod(pod.uid)
        self.pods.set(pod.uid, pod)
        self.requested.add(pod.requests)
        self.non_zero_requested.add(pod.non_zero_requests)
        if pod.host_ports:
            self.used_ports.update(pod.host_ports)
        if pod.volumes:
            self.pod_volumes += len(pod.volumes)
        if _has_affinity(pod):
            self.pods_with_affinity.append(pod)
        if _has_required_anti_affinity(pod):
            self.pods_with_required_anti_affinity.append(pod)
        self.generation += 1
        if self.memo:
            self.memo.clear()

    def remove_pod(self, uid: str) -> Pod | None:
        """Stop counting the pod with `uid`; returns it, or None if it was not here."""
        pod = self.pods.pop(uid)
        if pod is None:
            return None
        self.requested.subtract(pod.requests)
        self.non_zero_requested.subtract(pod.non_zero_requests)
        if pod.host_ports:  # the counts stay positive: nothing else to drop
            self.used_ports.subtract(pod.host_ports)
            self.used_ports = +self.used_ports
        if pod.volumes:
            self.pod_volumes -= len(pod.volumes)
        if self.pods_with_affinity:
            self.pods_with_affinity = [p for p in self.pods_with_affinity if p.uid != uid]
        if self.pods_with_required_anti_affinity:
            self.pods_with_required_anti_affinity = [
                p for p in self.pods_with_required_anti_affinity if p.uid != uid
            ]
        self.generation += 1
        if self.memo:
            self.memo.clear()
        return pod

    def set_node(self, node: Node) -> None:
        self.node = node
        self.generation += 1
        if self.memo:
            self.memo.clear()

    def clone(self) -> NodeInfo:
        """A copy whose aggregates can change without touching this one (pods are shared)."""
        return NodeInfo(
            node=self.node,
            pods=self.pods.copy(),
            requested=self.requested.copy(),
            non_zero_requested=self.non_zero_requested.copy(),
            used_ports=Counter(self.used_ports),
            pods_with_affinity=list(self.pods_with_affinity),
            pods_with_required_anti_affinity=list(self.pods_with_required_anti_affinity),
            generation=self.generation,
            pod_volumes=self.pod_volumes,
            image_states=snapshot_states(self.image_states),
        )


class NodeSubsets(Protocol):
    """What a snapshot knows about its nodes beyond the list (upstream's
    `HavePodsWithAffinityList` / `HavePodsWithRequiredAntiAffinityList`)."""

    @property
    def have_pods_with_affinity(self) -> Sequence[NodeInfo]: ...

    @property
    def have_pods_with_required_anti_affinity(self) -> Sequence[NodeInfo]: ...


class NodeJournal(Protocol):
    """A snapshot's record of which nodes changed (see `node_journal`)."""

    journal_epoch: int
    order_version: int
    """Changes whenever the node list is laid out anew (positions mean nothing across)."""

    @property
    def journal_version(self) -> int: ...

    def position(self, name: str) -> int | None: ...

    def changed_since(self, version: int) -> Sequence[str] | None: ...

    def get(self, name: str) -> NodeInfo | None: ...


def node_journal(nodes: Sequence[NodeInfo]) -> NodeJournal | None:
    """The journal of the snapshot `nodes` is the node list of, if it keeps one: which
    nodes were replaced or dropped since a given version, so that an index kept across
    cycles catches up with only those. None for any other list (a what-if copy)."""
    if isinstance(nodes, NodeInfoList) and hasattr(nodes.subsets, "changed_since"):
        return cast("NodeJournal", nodes.subsets)
    return None


class NodeInfoList(list[NodeInfo]):
    """A snapshot's list of all its nodes, which can also hand out the nodes holding pods
    with pod (anti-)affinity without a scan of every node (see the functions below)."""

    __slots__ = ("subsets",)

    def __init__(self, items: Iterable[NodeInfo] = (), *, subsets: NodeSubsets) -> None:
        super().__init__(items)
        self.subsets = subsets


_WITH_AFFINITY = attrgetter("pods_with_affinity")
_WITH_REQUIRED_ANTI_AFFINITY = attrgetter("pods_with_required_anti_affinity")
_WITH_IMAGES = attrgetter("image_states")


def with_pods_with_affinity(nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
    """The nodes of `nodes` (all nodes of a snapshot, or any list) holding a pod with pod
    affinity or anti-affinity, in the order of `nodes`."""
    if isinstance(nodes, NodeInfoList):
        return nodes.subsets.have_pods_with_affinity
    return list(filter(_WITH_AFFINITY, nodes))


def lists_any_image(nodes: Sequence[NodeInfo], names: Iterable[str]) -> bool:
    """Whether some node of `nodes` lists one of the image `names` in its `image_states`:
    from the snapshot's counts when `nodes` is a snapshot's list that keeps them, else by
    a walk (what-if lists, fixed lists)."""
    if isinstance(nodes, NodeInfoList):
        lists = getattr(nodes.subsets, "lists_any_image", None)
        if lists is not None:
            return bool(lists(names))
    wanted = tuple(names)
    for node_info in filter(_WITH_IMAGES, nodes):
        states = node_info.image_states
        if any(name in states for name in wanted):
            return True
    return False


def with_pods_with_required_anti_affinity(nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
    """Like `with_pods_with_affinity`, for pods with required pod anti-affinity."""
    if isinstance(nodes, NodeInfoList):
        return nodes.subsets.have_pods_with_required_anti_affinity
    return list(filter(_WITH_REQUIRED_ANTI_AFFINITY, nodes))
