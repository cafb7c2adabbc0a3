"""NodeCountCache.count_pods: counting only the pods changed since a node's last count gives
what a walk of every pod gives, through adds, removals, replacements, folds of the node's
PodMap, snapshot-style clones and what-if copies of the same node (seeded)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from kubesched.framework import NodeInfo
from kubesched.model import Pod
from kubesched.plugins.helper.node_counts import NodeCountCache
from kubesched.testing.builders import make_node, make_pod

TESTS: dict[str, Callable[[Pod], bool]] = {
    "app=x": lambda pod: pod.labels.get("app") == "x",
    "tier": lambda pod: "tier" in pod.labels,
    "ns a": lambda pod: pod.namespace == "a",
}


def _pod(rng: random.Random, uid: int) -> Pod:
    builder = make_pod().name(f"p{uid}").uid(f"u{uid}").namespace(rng.choice("ab"))
    if rng.random() < 0.5:
        builder = builder.label("app", rng.choice("xy"))
    if rng.random() < 0.3:
        builder = builder.label("tier", "t")
    return builder.model()


@pytest.mark.parametrize("seed", range(8))
def test_counts_from_changes_equal_a_walk(seed: int) -> None:
    rng = random.Random(seed)
    cache = NodeCountCache()
    keys = {name: cache.key_id(name) for name in TESTS}
    live = NodeInfo(node=make_node().name("n").model())
    uids = 0
    checked = 0
    for _ in range(600):
        roll = rng.random()
        if roll < 0.45 or not live.pods:
            uids += 1
            live.add_pod(_pod(rng, uids))
        elif roll < 0.7:
            live.remove_pod(rng.choice(list(live.pods)))
        elif roll < 0.85:  # the same pod, new labels (a new object)
            uid = rng.choice(list(live.pods))
            live.add_pod(_pod(rng, int(uid[1:])))
        seen = live.clone()  # what a snapshot hands a cycle
        if rng.random() < 0.2:  # a what-if copy of the node with one pod more, counted too
            seen.add_pod(_pod(rng, 10_000 + uids))
        for name, matches in TESTS.items():
            if rng.random() < 0.6:
                expected = sum(1 for pod in seen.pods.values() if matches(pod))
                assert cache.count_pods(seen, keys[name], matches) == expected
                checked += 1
    assert checked > 500
