"""ImageLocality (PreScore, Score): favour nodes that already have the pod's images, from the
nodes' `status.images`, as kube-scheduler does.

For each image of the pod (init containers, containers, image volumes; a name without a tag
gets `:latest`) that the node lists, the node earns the image's size scaled by the share of
all nodes that have it (`size * nodes_with_image / all_nodes`: an image present everywhere
does not pull pods to one node). The sum is clamped to 23 MiB .. 1000 MiB x the pod's image
count and mapped linearly to 0..100.

PreScore counts, once per cycle, how many nodes have each of the pod's images (upstream's
cache keeps these counts) and skips when no node has any of them (every score would be 0).
Approximation: an image's size is the one the scored node reports; upstream takes the size
from the first node that reported that image name (they differ only if nodes disagree).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Final

from kubesched.framework import MAX_NODE_SCORE, Code, CycleState, Handle, NodeInfo, StateKey, Status
from kubesched.model import Node, Pod
from kubesched.plugins.helper.args import no_args

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
_SKIP: Final = Status(Code.SKIP)
_HAS_IMAGES = attrgetter("node.images")


def normalized_image_name(name: str) -> str:
    """Upstream `normalizedImageName`: add `:latest` when the name has no tag."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


@dataclass(frozen=True, slots=True)
class _PodImages:
    names: tuple[str, ...]
    """The pod's images, normalized, in order (repeats kept: each counts)."""
    spread: dict[str, float]
    """Image name -> share of all nodes that have it (only images some node has)."""


_PRE_SCORE_KEY: StateKey[_PodImages] = StateKey("PreScore" + NAME)


class _NodeImages:
    """Each node's image name -> size, rebuilt only when the node object changes."""

    __slots__ = ("_nodes",)

    def __init__(self) -> None:
        self._nodes: dict[str, tuple[Node, dict[str, int]]] = {}

    def of(self, node: Node) -> dict[str, int]:
        hit = self._nodes.get(node.name)
        if hit is not None and hit[0] is node:
            return hit[1]
        sizes: dict[str, int] = {}
        for image in node.images:
            for name in image.names:
                sizes.setdefault(name, image.size_bytes)
        self._nodes[node.name] = (node, sizes)
        return sizes

    def prune(self, nodes: Sequence[NodeInfo]) -> None:
        if len(self._nodes) > 2 * len(nodes) + 16:
            alive = {info.node.name for info in nodes}
            self._nodes = {name: hit for name, hit in self._nodes.items() if name in alive}


class ImageLocality:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle
        self._images = _NodeImages()

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        names = tuple(normalized_image_name(ref) for ref in pod.image_refs)
        all_nodes = self._handle.list_node_infos()
        if not names or not all_nodes:
            return _SKIP
        self._images.prune(all_nodes)
        wanted = set(names)
        having = dict.fromkeys(wanted, 0)
        # Nodes that list no image contribute nothing: skip them with a C-level scan.
        for node_info in filter(_HAS_IMAGES, all_nodes):
            sizes = self._images.of(node_info.node)
            if sizes:
                for name in wanted:
                    if name in sizes:
                        having[name] += 1
        total = len(all_nodes)
        spread = {name: count / total for name, count in having.items() if count}
        if not spread:
            return _SKIP
        state.write(_PRE_SCORE_KEY, _PodImages(names, spread))
        return None

    def score(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        images = state.read(_PRE_SCORE_KEY)
        sizes = self._images.of(node_info.node)
        total = 0
        for name in images.names:
            size = sizes.get(name)
            if size is not None:
                total += int(size * images.spread.get(name, 0.0))
        return calculate_priority(total, len(images.names))


def calculate_priority(sum_scores: int, image_count: int) -> int:
    """Upstream `calculatePriority`: clamp the sum and map it linearly to 0..100."""
    max_threshold = MAX_CONTAINER_THRESHOLD * image_count
    sum_scores = max(MIN_THRESHOLD, min(sum_scores, max_threshold))
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)
