"""PodMap (`framework.podmap`) reads as the dict it stands for, in the same order, through
seeded random sets, pops and copies (a copy never sees the original's later changes, nor the
original the copy's), across folds of its changes into a new base."""

from __future__ import annotations

import random

import pytest

from kubesched.framework.podmap import PodMap
from kubesched.model import Pod
from kubesched.testing import make_pod


def _pods(count: int) -> list[Pod]:
    return [make_pod().name(f"p{i}").uid(f"u{i}").model() for i in range(count)]


def _same(podmap: PodMap, want: dict[str, Pod]) -> None:
    assert list(podmap) == list(want)
    assert list(podmap.values()) == list(want.values())
    assert list(podmap.items()) == list(want.items())
    assert list(podmap.keys()) == list(want.keys())
    assert len(podmap) == len(want)
    assert bool(podmap) == bool(want)
    assert podmap == want


@pytest.mark.parametrize("seed", range(6))
def test_podmap_reads_as_a_dict(seed: int) -> None:
    rng = random.Random(seed)
    pods = _pods(400)
    start = {pod.uid: pod for pod in rng.sample(pods, rng.randint(0, 300))}
    maps: list[tuple[PodMap, dict[str, Pod]]] = [(PodMap(start), dict(start))]
    for _step in range(3000):
        at = rng.randrange(len(maps))
        podmap, want = maps[at]
        roll = rng.random()
        pod = rng.choice(pods)
        if roll < 0.45:
            podmap.set(pod.uid, pod)
            want.pop(pod.uid, None)
            want[pod.uid] = pod
        elif roll < 0.9:
            assert podmap.pop(pod.uid) is want.pop(pod.uid, None)
        elif roll < 0.95 and len(maps) < 8:
            maps.append((podmap.copy(), dict(want)))
        else:
            _same(podmap, want)
        assert (pod.uid in podmap) == (pod.uid in want)
        assert podmap.get(pod.uid) is want.get(pod.uid)
        if pod.uid in want:
            assert podmap[pod.uid] is want[pod.uid]
        else:
            with pytest.raises(KeyError):
                podmap[pod.uid]
    for podmap, want in maps:
        _same(podmap, want)


def test_copy_shares_the_base_until_changes_fold() -> None:
    pods = _pods(10_000)
    podmap = PodMap({pod.uid: pod for pod in pods})
    for pod in pods[:50]:
        podmap.pop(pod.uid)
    copy = podmap.copy()
    assert copy._base is podmap._base
    for pod in pods[50:200]:  # past sqrt(10,000) changes: folded into a new base
        podmap.pop(pod.uid)
    assert copy._base is not podmap._base
    assert len(podmap._added) + len(podmap._removed) <= 100
    assert list(copy) == [pod.uid for pod in pods[50:]]
    assert list(podmap) == [pod.uid for pod in pods[200:]]
