"""The queueing differential's allowance (tests/e2e/harness/diff/churn.py `swaps`): two pods
of one kind bound the other way round pass only when kubesched tried one of them once more."""

from __future__ import annotations

from tests.e2e.harness.diff.churn import Differing, generate_churn, swaps


def test_a_same_kind_pair_with_an_extra_attempt_is_a_swap() -> None:
    theirs = Differing("d6", "device", theirs_bound=True, tried=(7, 8))
    ours = Differing("d10", "device", theirs_bound=False, tried=(3, 3))
    assert swaps([theirs, ours]) == ([("d6", "d10")], [])


def test_without_an_extra_attempt_nothing_is_explained() -> None:
    pair = [
        Differing("d6", "device", theirs_bound=True, tried=(7, 7)),
        Differing("d10", "device", theirs_bound=False, tried=(3, 3)),
    ]
    assert swaps(pair) == ([], pair)


def test_pods_of_different_kinds_or_one_side_only_are_not_swaps() -> None:
    kinds = [
        Differing("p1", "small", theirs_bound=True, tried=(2, 3)),
        Differing("p2", "large", theirs_bound=False, tried=(2, 3)),
    ]
    assert swaps(kinds) == ([], kinds)
    alone = [Differing("p3", "small", theirs_bound=True, tried=(2, 3))]
    assert swaps(alone) == ([], alone)


def test_each_pod_pairs_once() -> None:
    pods = [
        Differing("a", "small", theirs_bound=True, tried=(1, 2)),
        Differing("b", "small", theirs_bound=True, tried=(1, 2)),
        Differing("c", "small", theirs_bound=False, tried=(1, 1)),
    ]
    assert swaps(pods) == ([("a", "c")], [pods[1]])


def test_a_pods_kind_is_its_spec_kind() -> None:
    churn = generate_churn(11)
    kinds = {churn.pod_kind(name) for name in churn.pod_names()}
    assert "device" in kinds
    assert kinds <= {"small", "medium", "large", "gpu", "port", "tolerating", "claim", "device"}
