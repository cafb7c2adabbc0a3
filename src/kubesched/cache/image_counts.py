"""How many of a snapshot's nodes list each image name, kept as nodes are put and dropped.

ImageLocality's PreScore asks whether any node lists any of the pod's images (else every
score is 0 and it skips); with these counts that is a few dict lookups instead of a walk of
every node of the snapshot each cycle (upstream reads the same from its cache's
`imageStates`).
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.framework.nodeinfo import NodeInfo


class ImageNodeCounts:
    """Image name -> number of the snapshot's nodes whose `image_states` list it."""

    __slots__ = ("_counts",)

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def listed(self, names: Iterable[str]) -> bool:
        """Whether some node lists one of `names`."""
        counts = self._counts
        return any(name in counts for name in names)

    def replace(self, old: NodeInfo | None, new: NodeInfo | None) -> None:
        """One node's info changed from `old` to `new` (None: absent)."""
        old_names = old.image_states.keys() if old is not None else ()
        new_names = new.image_states.keys() if new is not None else ()
        if old_names == new_names or (not old_names and not new_names):
            return
        counts = self._counts
        for name in old_names:
            left = counts[name] - 1
            if left:
                counts[name] = left
            else:
                del counts[name]
        for name in new_names:
            counts[name] = counts.get(name, 0) + 1
