"""PodGroupPodsCount, the facts of upstream's podgroup_pods_count_test.go (the PodGroup
cases): the score is members already bound or assumed plus those proposed in the placement;
normalization scales against the highest count (truncating), and refuses all zeros."""

from __future__ import annotations

import pytest

from kubesched.framework import Code
from kubesched.framework.placement_points import (
    Placement,
    PodGroupAssignments,
    PodGroupInfo,
    ProposedAssignment,
    ScheduledMember,
)
from kubesched.model import ApiObject, SchedulingPodGroup
from kubesched.plugins.podgroup_pods_count import PodGroupPodsCount
from kubesched.plugins.podgroup_pods_count.plugin import NONE_ASSIGNED
from kubesched.testing import FakeHandle, make_pod

GROUP = SchedulingPodGroup.of(
    ApiObject.from_json({"metadata": {"namespace": "ns", "name": "pg"}, "spec": {}})
)


def _plugin() -> PodGroupPodsCount:
    return PodGroupPodsCount(args={}, handle=FakeHandle())


def _members(count: int, prefix: str) -> tuple[ScheduledMember, ...]:
    return tuple(
        ScheduledMember(make_pod().name(f"{prefix}{i}").model(), "n1") for i in range(count)
    )


@pytest.mark.parametrize(
    ("assigned", "assumed", "expected"),
    [(2, 1, 5), (1, 0, 3), (0, 1, 3), (0, 0, 2)],
    ids=["assigned and assumed", "no assumed", "no assigned", "neither"],
)
def test_the_score_counts_scheduled_and_proposed_members(
    assigned: int, assumed: int, expected: int
) -> None:
    # Bound and assumed members both count (the cycle hands over both).
    info = PodGroupInfo(GROUP, _members(assigned, "bound") + _members(assumed, "assumed"))
    proposed = tuple(ProposedAssignment(make_pod().name(f"p{i}").model(), "n2") for i in range(2))
    assignments = PodGroupAssignments(Placement("rack", []), proposed)
    assert _plugin().score_placement(info, assignments) == expected


@pytest.mark.parametrize(
    ("scores", "normalized"),
    [
        ([10, 50, 110], [9, 45, 100]),
        ([50, 50], [100, 100]),
        ([50], [100]),
        ([11, 100, 101, 102], [10, 98, 99, 100]),
    ],
    ids=["distinct", "equal", "single", "one far below a close group"],
)
def test_normalization_scales_against_the_highest(scores: list[int], normalized: list[int]) -> None:
    assert _plugin().normalize_placement_score(PodGroupInfo(GROUP), scores) is None
    assert scores == normalized


def test_all_zero_scores_are_an_error() -> None:
    status = _plugin().normalize_placement_score(PodGroupInfo(GROUP), [0, 0])
    assert status is not None
    assert status.code is Code.ERROR
    assert status.message == NONE_ASSIGNED
    assert NONE_ASSIGNED == (
        "no pods from pod group are assigned to any of the candidate placements"
    )
