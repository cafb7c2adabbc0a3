"""PodGroupPodsCount (upstream `podgrouppodscount`, kube-scheduler v1.37,
`TopologyAwareWorkloadScheduling` feature gate): scores a feasible placement of a pod group
by how many members it holds, those already bound or assumed plus those the cycle placed
there, normalized against the best placement (`count * 100 / max`). minCount plays no part,
so that placements close in count stay close in score.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableSequence
from typing import Any

from kubesched.apis import names
from kubesched.framework import Code, Handle, Status
from kubesched.framework.placement_points import (
    MAX_PLACEMENT_SCORE,
    MIN_PLACEMENT_SCORE,
    PodGroupAssignments,
    PodGroupInfo,
)
from kubesched.plugins.helper.args import no_args

NAME = names.POD_GROUP_PODS_COUNT
NONE_ASSIGNED = "no pods from pod group are assigned to any of the candidate placements"
"""Upstream's error when every placement holds no member."""


class PodGroupPodsCount:
    """PlacementScore: more members in the placement, higher score."""

    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        del handle

    def score_placement(self, group: PodGroupInfo, assignments: PodGroupAssignments, /) -> int:
        return len(group.scheduled) + len(assignments.proposed)

    def normalize_placement_score(
        self, group: PodGroupInfo, scores: MutableSequence[int], /
    ) -> Status | None:
        del group
        highest = max(scores, default=0)
        if highest == 0:
            return Status(Code.ERROR, NONE_ASSIGNED)
        span = MAX_PLACEMENT_SCORE - MIN_PLACEMENT_SCORE
        for index, score in enumerate(scores):
            scores[index] = MIN_PLACEMENT_SCORE + score * span // highest
        return None
