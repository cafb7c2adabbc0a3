"""The per-cycle, read-only view of the cluster that plugins see.

A snapshot holds clones of the cache's NodeInfos. `SchedulerCache.update_snapshot` refreshes
it in place and re-clones only the nodes that changed since the snapshot's `generation`;
every other NodeInfo object stays the very same object from cycle to cycle. Nodes that are
deleted (even if pods on them are not gone yet) are not in the snapshot.

It also keeps a journal of the node names it replaced or dropped, so that an index kept
across cycles (`plugins.helper.pair_totals`) can catch up with only what changed since it
last looked (`changed_since`), instead of walking every node every cycle.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.cache.image_counts import ImageNodeCounts
from kubesched.framework.nodeinfo import NodeInfo, NodeInfoList


class Snapshot:
    """Node infos in a stable order (zones interleaved), by name, and the affinity subsets."""

    node_infos: NodeInfoList
    """Every node of the cluster view, in the cache's node-tree order (zones interleaved);
    `framework.nodeinfo.with_pods_with_affinity(node_infos)` etc. need no scan."""
    generation: int
    """The cache generation this snapshot reflects (0: never filled)."""
    order_version: int
    """The cache's node-order version `node_infos` is laid out for."""
    _by_name: dict[str, NodeInfo]
    _position: dict[str, int]
    _with_affinity: dict[str, NodeInfo]
    _with_anti_affinity: dict[str, NodeInfo]
    _affinity_list: list[NodeInfo] | None
    _anti_affinity_list: list[NodeInfo] | None
    _images: ImageNodeCounts
    journal_epoch: int
    """Changes with every `reset`: versions of an older epoch mean nothing."""
    _journal: list[str]
    _journal_base: int

    def __init__(self) -> None:
        self.journal_epoch = 0
        self.reset()

    @property
    def journal_version(self) -> int:
        """The number of node changes recorded so far in this epoch."""
        return self._journal_base + len(self._journal)

    def changed_since(self, version: int) -> list[str] | None:
        """Names of the nodes put or dropped since `journal_version` was `version` (with
        repeats); None when the journal no longer reaches back that far."""
        start = version - self._journal_base
        if start < 0 or start > len(self._journal):
            return None
        return self._journal[start:]

    def _record(self, name: str) -> None:
        journal = self._journal
        journal.append(name)
        if len(journal) > 4 * len(self._by_name) + 4096:
            half = len(journal) // 2
            del journal[:half]
            self._journal_base += half

    @property
    def num_nodes(self) -> int:
        return len(self.node_infos)

    def get(self, name: str) -> NodeInfo | None:
        """The NodeInfo of `name`, or None if the node is not in the snapshot."""
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def position(self, name: str) -> int | None:
        """Where `name` is in `node_infos` (None: not laid out there)."""
        return self._position.get(name)

    @property
    def have_pods_with_affinity(self) -> list[NodeInfo]:
        """Nodes with at least one pod that has pod (anti-)affinity, in `node_infos` order."""
        if self._affinity_list is None:
            self._affinity_list = self._in_order(self._with_affinity)
        return self._affinity_list

    @property
    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        """Nodes with at least one pod that has required pod anti-affinity (same order)."""
        if self._anti_affinity_list is None:
            self._anti_affinity_list = self._in_order(self._with_anti_affinity)
        return self._anti_affinity_list

    def lists_any_image(self, names: Iterable[str]) -> bool:
        """Whether some node of the snapshot lists one of the image `names`."""
        return self._images.listed(names)

    def _in_order(self, subset: dict[str, NodeInfo]) -> list[NodeInfo]:
        position = self._position
        laid_out = [info for name, info in subset.items() if name in position]
        laid_out.sort(key=lambda info: position[info.name])
        return laid_out

    # ---- maintained by SchedulerCache.update_snapshot -----------------------------------

    def reset(self) -> None:
        """Forget everything, so the next update rebuilds from scratch."""
        self.node_infos = NodeInfoList(subsets=self)
        self.generation = 0
        self.order_version = -1
        self._by_name = {}
        self._position = {}
        self._with_affinity = {}
        self._with_anti_affinity = {}
        self._affinity_list = None
        self._anti_affinity_list = None
        self._images = ImageNodeCounts()
        self.journal_epoch += 1
        self._journal = []
        self._journal_base = 0

    def put(self, info: NodeInfo) -> None:
        """Insert or replace the NodeInfo of one node (a fresh clone)."""
        name = info.name
        self._images.replace(self._by_name.get(name), info)
        self._by_name[name] = info
        self._record(name)
        position = self._position.get(name)
        if position is not None:
            self.node_infos[position] = info
        self._track(self._with_affinity, name, info if info.pods_with_affinity else None)
        required = info if info.pods_with_required_anti_affinity else None
        self._track(self._with_anti_affinity, name, required)

    def drop(self, name: str) -> None:
        """Remove a node; `node_infos` is fixed by the `reorder` that follows."""
        if (old := self._by_name.pop(name, None)) is not None:
            self._images.replace(old, None)
            self._record(name)
            self._track(self._with_affinity, name, None)
            self._track(self._with_anti_affinity, name, None)

    def reorder(self, names: list[str], *, version: int) -> None:
        """Lay `node_infos` out in the cache's node order."""
        self.node_infos = NodeInfoList(
            (self._by_name[name] for name in names if name in self._by_name), subsets=self
        )
        self._position = {info.name: i for i, info in enumerate(self.node_infos)}
        self._affinity_list = self._anti_affinity_list = None
        self.order_version = version

    def _track(self, subset: dict[str, NodeInfo], name: str, info: NodeInfo | None) -> None:
        if info is None and name not in subset:
            return
        if info is None:
            del subset[name]
        else:
            subset[name] = info
        if subset is self._with_affinity:
            self._affinity_list = None
        else:
            self._anti_affinity_list = None
