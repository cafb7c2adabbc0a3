"""Per-node counts of matching pods, reused from cycle to cycle while a node is unchanged.

PodTopologySpread and InterPodAffinity count, in PreFilter/PreScore, the pods of every node
that match a selector or term (upstream's approach: the Filter then only looks counts up).
A snapshot keeps the very same `NodeInfo` object for a node until something on it changes
(then the node gets a fresh clone, or its `generation` grows). So a count for a given
(NodeInfo object, generation, key) never changes, and a stream of pods with the same
constraints recounts only the nodes that changed since the previous cycle.

The cache holds the NodeInfo objects it saw (one per node name), so an object id is never
reused while an entry refers to it. Keys are interned into ints once per cycle, so the
per-node lookups hash a small int, not a nested tuple.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from kubesched.framework import NodeInfo
from kubesched.framework.podmap import PodMap
from kubesched.model import Pod
from kubesched.model.interning import KeyTable

MAX_KEYS_PER_NODE = 64
"""A node's counts are forgotten when it holds this many keys (bounds the memory)."""

CountFn = Callable[[NodeInfo], int]
PodTest = Callable[[Pod], bool]


class _Entry:
    __slots__ = ("counts", "generation", "info")

    def __init__(self, info: NodeInfo) -> None:
        self.info = info
        self.generation = info.generation
        self.counts: dict[int, int] = {}


class NodeCountCache:
    """`count(node_info, key_id, fn)` = `fn(node_info)`, remembered per node."""

    __slots__ = ("_keys", "_nodes", "_tallies")

    def __init__(self) -> None:
        self._keys = KeyTable()
        self._nodes: dict[str, _Entry] = {}
        self._tallies: dict[str, dict[int, tuple[PodMap, int]]] = {}
        """Node name -> key id -> (a copy of the pods last counted, the count)."""

    def key_id(self, key: Hashable) -> int:
        """A small int standing for `key` (equal keys, equal ids; ids are never reused, so
        the table forgetting its keys only costs recounting)."""
        return self._keys.id_of(key)

    def count(self, node_info: NodeInfo, key_id: int, fn: CountFn) -> int:
        if not node_info.pods:
            return 0
        entry = self._nodes.get(node_info.node.name)
        if entry is None or entry.info is not node_info or entry.generation != node_info.generation:
            entry = self._nodes[node_info.node.name] = _Entry(node_info)
        counts = entry.counts
        found = counts.get(key_id)
        if found is None:
            if len(counts) >= MAX_KEYS_PER_NODE:
                counts.clear()
            found = counts[key_id] = fn(node_info)
        return found

    def count_pods(self, node_info: NodeInfo, key_id: int, matches: PodTest) -> int:
        """The node's pods that `matches` accepts (it must read nothing but the pod and
        what `key_id` stands for). A node holding many pods changes by a few at a time:
        from the node's last count for `key_id`, only the pods added, removed or replaced
        since are tested (`PodMap.changed_since`), else every pod."""
        pods = node_info.pods
        tallies = self._tallies.get(node_info.node.name)
        if tallies is None:
            tallies = self._tallies[node_info.node.name] = {}
        last = tallies.get(key_id)
        changed = None if last is None else pods.changed_since(last[0])
        if last is None or changed is None:
            found = sum(1 for pod in pods.values() if matches(pod))
            if last is None and len(tallies) >= MAX_KEYS_PER_NODE:
                tallies.clear()
        else:
            before, found = last
            for uid in changed:
                old, new = before.get(uid), pods.get(uid)
                if old is new:
                    continue
                if old is not None and matches(old):
                    found -= 1
                if new is not None and matches(new):
                    found += 1
        tallies[key_id] = (pods.copy(), found)
        return found

    def prune(self, nodes: Sequence[NodeInfo]) -> None:
        """Forget nodes that are gone (cheap unless many nodes were deleted)."""
        if len(self._nodes) > 2 * len(nodes) + 16:
            alive = {info.node.name for info in nodes}
            self._nodes = {name: e for name, e in self._nodes.items() if name in alive}
        if len(self._tallies) > 2 * len(nodes) + 16:
            alive = {info.node.name for info in nodes}
            self._tallies = {name: t for name, t in self._tallies.items() if name in alive}
