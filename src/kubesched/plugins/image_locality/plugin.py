"""ImageLocality (PreScore, Score): favour nodes that already have the pod's images, from the
nodes' `status.images`, as kube-scheduler does.

For each image of the pod (init containers, containers, image volumes; a name without a tag
gets `:latest`) that the node lists, the node earns the image's size scaled by the share of
all nodes that have it (`size * nodes_with_image / all_nodes`: an image present everywhere
does not pull pods to one node). The sum is clamped to 23 MiB .. 1000 MiB x the pod's image
count and mapped linearly to 0..100.

The size and the node count of an image come from the node's `image_states`, kept by the
scheduler cache exactly as upstream's (`kubesched.framework.imagestates`; upstream
`sumImageScores` / `scaledImageScore` read `NodeInfo.ImageStates`): one size per image name,
that of the first node the cache added that lists it, and the count as of the node's last
change. PreScore skips when no node has any of the pod's images (every score would be 0),
which the snapshot answers from its per-image node counts without a walk of every node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import MAX_NODE_SCORE, Code, CycleState, Handle, NodeInfo, StateKey, Status
from kubesched.framework.nodeinfo import lists_any_image
from kubesched.model import Pod
from kubesched.plugins.helper.args import no_args

NAME = names.IMAGE_LOCALITY
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
_SKIP: Final = Status(Code.SKIP)


def normalized_image_name(name: str) -> str:
    """Upstream `normalizedImageName`: add `:latest` when the name has no tag."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


@dataclass(frozen=True, slots=True)
class _PodImages:
    names: tuple[str, ...]
    """The pod's images, normalized, in order (repeats kept: each counts)."""
    total_nodes: int
    """How many nodes the snapshot has."""


_PRE_SCORE_KEY: StateKey[_PodImages] = StateKey("PreScore" + NAME)


class ImageLocality:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle

    def pre_score(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        names = tuple(normalized_image_name(ref) for ref in pod.image_refs)
        all_nodes = self._handle.list_node_infos()
        if not names or not all_nodes or not lists_any_image(all_nodes, names):
            return _SKIP
        state.write(_PRE_SCORE_KEY, _PodImages(names, len(all_nodes)))
        return None

    def score(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        """Upstream `sumImageScores` + `calculatePriority`."""
        images = state.read(_PRE_SCORE_KEY)
        states = node_info.image_states
        total = 0
        if states:
            for name in images.names:
                image = states.get(name)
                if image is not None:  # upstream `scaledImageScore`
                    total += int(image.size * (image.node_count / images.total_nodes))
        return calculate_priority(total, len(images.names))


def calculate_priority(sum_scores: int, image_count: int) -> int:
    """Upstream `calculatePriority`: clamp the sum and map it linearly to 0..100."""
    max_threshold = MAX_CONTAINER_THRESHOLD * image_count
    sum_scores = max(MIN_THRESHOLD, min(sum_scores, max_threshold))
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)
