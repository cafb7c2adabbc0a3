"""Image states: for each image name, one size and the nodes that have it, as upstream's
scheduler cache keeps them (`cacheImpl.imageStates`, `addNodeImageStates`,
`removeNodeImageStates`, `ImageStateSummary.Snapshot`, v1.37.2).

Two quirks of upstream are kept on purpose, because ImageLocality's scores depend on them:

* ONE size per image name: the size reported by the first node added to the cache that
  lists the name. Later nodes only join its node set, whatever size they report; the size
  changes only after every node listing the name has left (the entry is then dropped, and
  the next node re-creates it). The first node is the first one the node informer delivers:
  the initial list in the API server's order (by name), then watch events in order.
* The node count is copied when a node's info is cloned into a snapshot, so a node keeps
  the count it saw when it last changed (a pod or node event), as upstream's incremental
  snapshot does.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesched.model import Node


@dataclass(slots=True)
class ImageStateSummary:
    """One image name: its size and how many nodes have it (upstream `ImageStateSummary`)."""

    size: int
    num_nodes: int = 0
    nodes: set[str] | None = None
    """The node names that have it: set in the cache's live summaries only."""

    @property
    def node_count(self) -> int:
        """How many nodes have it: now (a live summary) or when snapshotted."""
        return self.num_nodes if self.nodes is None else len(self.nodes)

    def snapshot(self) -> ImageStateSummary:
        """A frozen copy whose `num_nodes` is the count now (upstream `Snapshot`)."""
        return ImageStateSummary(self.size, self.node_count)


class ImageStates:
    """Image name -> live summary, shared by every node that lists the name."""

    __slots__ = ("_states",)

    def __init__(self) -> None:
        self._states: dict[str, ImageStateSummary] = {}

    def __len__(self) -> int:
        return len(self._states)

    def add_node(self, node: Node) -> dict[str, ImageStateSummary]:
        """Record `node`'s images; returns the node's own name -> shared summary map."""
        own: dict[str, ImageStateSummary] = {}
        for image in node.images:
            for name in image.names:
                state = self._states.get(name)
                if state is None:
                    state = ImageStateSummary(image.size_bytes, nodes={node.name})
                    self._states[name] = state
                elif state.nodes is not None:
                    state.nodes.add(node.name)
                own.setdefault(name, state)
        return own

    def remove_node(self, node: Node) -> None:
        """Forget `node`'s images; a name no node lists any more is dropped."""
        for image in node.images:
            for name in image.names:
                state = self._states.get(name)
                if state is None or state.nodes is None:
                    continue
                state.nodes.discard(node.name)
                if not state.nodes:
                    del self._states[name]


def snapshot_states(states: dict[str, ImageStateSummary]) -> dict[str, ImageStateSummary]:
    """A node's image states as a snapshot holds them (counts frozen now)."""
    if not states:
        return {}
    return {name: state.snapshot() for name, state in states.items()}
