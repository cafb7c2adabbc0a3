"""Sums per topology pair (label key, value) over all nodes, kept current across cycles.

InterPodAffinity (and any plugin counting pods per topology domain) computes, in PreFilter
and PreScore, totals such as "pods matching this term, per zone". Recomputing them walks
every node (or every pod with affinity) every cycle. `PairTotals` keeps, per key (what is
being summed, e.g. a term, or the labels of the incoming pod), the contribution of every
node and their sums, and on each cycle replays only the nodes the snapshot replaced or
dropped since it last looked (`framework.nodeinfo.node_journal`). With a stream of similar
pods, a cycle costs the nodes that changed since the previous one, not the cluster size.

A contribution is computed by the caller's function of one NodeInfo, so the sums are
exactly what a full walk gives, provided the function reads nothing but the node besides
what its key holds (InterPodAffinity puts the namespace labels it reads in its keys).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence

from kubesched.framework import NodeInfo
from kubesched.framework.nodeinfo import NodeJournal, node_journal

Pair = tuple[str, str]
Contribution = tuple[tuple[Pair, int], ...]
ContributionFn = Callable[[NodeInfo], Contribution]
MAX_KEYS = 32
"""Indexes kept (least recently used dropped); each holds one entry per contributing node."""


class _Index:
    __slots__ = ("epoch", "nested", "per_node", "totals", "uses", "version")

    def __init__(self, epoch: int, version: int) -> None:
        self.epoch = epoch
        self.version = version
        self.per_node: dict[str, tuple[NodeInfo, Contribution]] = {}
        self.totals: dict[Pair, int] = {}
        """Pair -> sum of weights, for pairs with at least one contribution."""
        self.nested: dict[str, dict[str, int]] = {}
        """The same sums as key -> value -> sum."""
        self.uses: dict[Pair, int] = {}
        """Pair -> number of contributions (a pair leaves when it reaches 0)."""

    def add(self, name: str, info: NodeInfo, contribution: Contribution) -> None:
        if not contribution:
            return
        self.per_node[name] = (info, contribution)
        totals, nested, uses = self.totals, self.nested, self.uses
        for pair, weight in contribution:
            totals[pair] = totals.get(pair, 0) + weight
            values = nested.setdefault(pair[0], {})
            values[pair[1]] = values.get(pair[1], 0) + weight
            uses[pair] = uses.get(pair, 0) + 1

    def remove(self, name: str) -> None:
        entry = self.per_node.pop(name, None)
        if entry is None:
            return
        totals, nested, uses = self.totals, self.nested, self.uses
        for pair, weight in entry[1]:
            left = uses[pair] - 1
            key, value = pair
            if left:
                uses[pair] = left
                totals[pair] -= weight
                nested[key][value] -= weight
                continue
            del uses[pair], totals[pair], nested[key][value]
            if not nested[key]:
                del nested[key]


class PairTotals:
    """`index(nodes, key, fn, candidates)`: the sums of `fn` over the snapshot's nodes."""

    __slots__ = ("_indexes",)

    def __init__(self) -> None:
        self._indexes: OrderedDict[Hashable, _Index] = OrderedDict()

    def index(
        self,
        nodes: Sequence[NodeInfo],
        key: Hashable,
        fn: ContributionFn,
        candidates: Callable[[Sequence[NodeInfo]], Iterable[NodeInfo]],
    ) -> _Index | None:
        """The current sums for `key` (read-only: copy before changing them), or None when
        `nodes` is not a snapshot's list (walk the nodes instead).
        `candidates(nodes)` lists the nodes that can contribute at all (for a full build)."""
        journal = node_journal(nodes)
        if journal is None:
            return None
        return self._current(journal, nodes, key, fn, candidates)

    def _current(
        self,
        journal: NodeJournal,
        nodes: Sequence[NodeInfo],
        key: Hashable,
        fn: ContributionFn,
        candidates: Callable[[Sequence[NodeInfo]], Iterable[NodeInfo]],
    ) -> _Index:
        index = self._indexes.get(key)
        changed = None
        if index is not None and index.epoch == journal.journal_epoch:
            changed = journal.changed_since(index.version)
        if index is None or changed is None:
            index = _Index(journal.journal_epoch, journal.journal_version)
            for candidate in candidates(nodes):
                index.add(candidate.name, candidate, fn(candidate))
        else:
            for name in dict.fromkeys(changed):
                info = journal.get(name)
                entry = index.per_node.get(name)
                if entry is not None and entry[0] is info:
                    continue
                index.remove(name)
                if info is not None:
                    index.add(name, info, fn(info))
            index.version = journal.journal_version
        self._indexes[key] = index
        self._indexes.move_to_end(key)
        if len(self._indexes) > MAX_KEYS:
            self._indexes.popitem(last=False)
        return index
