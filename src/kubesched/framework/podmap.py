"""PodMap: a node's pods by UID, cheap to copy however many pods the node holds.

Every scheduling cycle reads a snapshot whose changed nodes are fresh copies of the cache's
(`NodeInfo.clone`): copying a dict of the pods costs a step per pod, 1-2 ms a cycle on a node
holding tens of thousands of pods (scheduler_perf's SchedulingWhileGated runs 20,000-40,000
light pods on its one node). A PodMap is a dict that is never changed once shared (`base`)
plus the changes since (`added`, `removed`): a copy shares the base and copies only the
changes, and the changes are folded into a new base once they grow past about the square
root of the pod count, so both a copy and a change cost little, amortized.

It reads as the dict it stands for, in the same order: the base's pods not removed, in their
order, then the added ones in the order added (a pod added again goes to the end, as in a dict).
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from collections.abc import Set as AbstractSet
from itertools import chain

from kubesched.model import Pod

_FOLD_AT_LEAST = 64


class PodMap(Mapping[str, Pod]):
    """UID -> Pod; `set`/`pop` change it, `copy` is cheap (see the module)."""

    __slots__ = ("_added", "_base", "_removed")

    def __init__(self, pods: Mapping[str, Pod] | None = None) -> None:
        self._base: dict[str, Pod] = dict(pods) if pods else {}
        self._added: dict[str, Pod] = {}
        self._removed: set[str] = set()
        """UIDs of the base hidden: removed, or added again (then in `_added`)."""

    def copy(self) -> PodMap:
        clone = PodMap.__new__(PodMap)
        clone._base = self._base
        clone._added = dict(self._added) if self._added else {}
        clone._removed = set(self._removed) if self._removed else set()
        return clone

    def set(self, uid: str, pod: Pod) -> None:
        """`self[uid] = pod` (placed last if `uid` is already here, as after a pop)."""
        added = self._added
        if uid in added:
            del added[uid]
        elif uid in self._base:
            self._removed.add(uid)
        added[uid] = pod
        self._maybe_fold()

    def pop(self, uid: str) -> Pod | None:
        """Remove `uid`; its pod, or None when it is not here."""
        pod = self._added.pop(uid, None)
        if pod is not None:
            return pod
        if uid in self._removed:
            return None
        pod = self._base.get(uid)
        if pod is not None:
            self._removed.add(uid)
            self._maybe_fold()
        return pod

    def changed_since(self, earlier: PodMap) -> AbstractSet[str] | None:
        """The UIDs whose pod may differ between `earlier` (a copy taken before) and this
        map: added, removed or replaced in between. None when the two share no base (one
        of them folded since): compare them whole then."""
        if earlier._base is not self._base:
            return None
        return {*earlier._added, *earlier._removed, *self._added, *self._removed}

    def _maybe_fold(self) -> None:
        changes = len(self._added) + len(self._removed)
        if changes > _FOLD_AT_LEAST and changes * changes > len(self._base):
            base = self._base.copy()  # C-level steps only: copy, drop, append in order
            for uid in self._removed:
                del base[uid]
            base.update(self._added)
            self._base, self._added, self._removed = base, {}, set()

    def __getitem__(self, uid: str) -> Pod:
        pod = self._added.get(uid)
        if pod is not None:
            return pod
        if uid in self._removed:
            raise KeyError(uid)
        return self._base[uid]

    def get(self, uid: str, default: Pod | None = None) -> Pod | None:  # type: ignore[override]
        pod = self._added.get(uid)
        if pod is not None:
            return pod
        if uid in self._removed:
            return default
        return self._base.get(uid, default)

    def __contains__(self, uid: object) -> bool:
        return uid in self._added or (uid in self._base and uid not in self._removed)

    def __len__(self) -> int:
        return len(self._base) - len(self._removed) + len(self._added)

    def __bool__(self) -> bool:
        return bool(self._added) or len(self._base) > len(self._removed)

    def __iter__(self) -> Iterator[str]:
        removed = self._removed
        if not removed:
            return chain(self._base, self._added)
        return chain((uid for uid in self._base if uid not in removed), self._added)

    def keys(self) -> KeysView[str]:
        return KeysView(self)

    def values(self) -> ValuesView[Pod]:
        return _Values(self)

    def items(self) -> ItemsView[str, Pod]:
        return _Items(self)

    def _values(self) -> Iterator[Pod]:
        removed = self._removed
        if not removed:
            return chain(self._base.values(), self._added.values())
        base = (pod for uid, pod in self._base.items() if uid not in removed)
        return chain(base, self._added.values())

    def _items(self) -> Iterator[tuple[str, Pod]]:
        removed = self._removed
        if not removed:
            return chain(self._base.items(), self._added.items())
        base = ((uid, pod) for uid, pod in self._base.items() if uid not in removed)
        return chain(base, self._added.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PodMap({dict(self.items())!r})"


class _Values(ValuesView[Pod]):
    __slots__ = ()
    _mapping: PodMap

    def __iter__(self) -> Iterator[Pod]:
        return self._mapping._values()


class _Items(ItemsView[str, Pod]):
    __slots__ = ()
    _mapping: PodMap

    def __iter__(self) -> Iterator[tuple[str, Pod]]:
        return self._mapping._items()
