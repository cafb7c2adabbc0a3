"""The snapshot's per-image node counts answer ImageLocality's "listed anywhere" as a walk of
every node would, while nodes come, change their images and go."""

from __future__ import annotations

import random

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework.nodeinfo import NodeInfo, lists_any_image
from kubesched.model import Node
from kubesched.testing import make_node

IMAGES = [f"registry/img-{i}:v1" for i in range(6)]


def _walk(nodes: list[NodeInfo], names: tuple[str, ...]) -> bool:
    return any(name in info.image_states for info in nodes for name in names)


def _node(name: str, images: list[str]) -> Node:
    builder = make_node().name(name)
    for image in images:
        builder = builder.image(image, 100)
    return builder.model()


def test_counts_follow_nodes_and_agree_with_a_walk() -> None:
    rng = random.Random(17)
    cache, snapshot = SchedulerCache(), Snapshot()
    live: set[str] = set()
    for _ in range(300):
        name = f"n{rng.randrange(8)}"
        if name in live and rng.random() < 0.3:
            cache.remove_node(_node(name, []))
            live.discard(name)
        else:
            cache.add_node(_node(name, rng.sample(IMAGES, rng.randrange(3))))
            live.add(name)
        cache.update_snapshot(snapshot)
        nodes = list(snapshot.node_infos)
        for image in IMAGES:
            assert lists_any_image(snapshot.node_infos, (image,)) == _walk(nodes, (image,))
            # a plain list (a what-if copy) is walked, with the same answer
            assert lists_any_image(nodes, (image,)) == _walk(nodes, (image,))


def test_no_images_anywhere() -> None:
    cache, snapshot = SchedulerCache(), Snapshot()
    cache.add_node(_node("a", []))
    cache.update_snapshot(snapshot)
    assert not lists_any_image(snapshot.node_infos, ("nginx:latest",))
    assert not lists_any_image(snapshot.node_infos, ())
