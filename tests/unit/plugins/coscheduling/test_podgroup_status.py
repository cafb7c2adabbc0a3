"""The PodGroup status rules alone, against scheduler-plugins' controller (v0.35.4-devel):
`occupiedBy` from the first member's owners, phases from the members' counts."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.model import ApiObject, Pod
from kubesched.plugins.coscheduling.podgroup import PodGroup, gap_message, occupied_by, status_of
from kubesched.testing import make_pod


def _group(min_member: int, **status: Any) -> PodGroup:
    obj = {
        "metadata": {"namespace": "ns", "name": "pg"},
        "spec": {"minMember": min_member},
        "status": status,
    }
    return PodGroup.of(ApiObject.from_json(obj))


def _pod(name: str, *owners: str, phase: str = "Pending") -> Pod:
    builder = make_pod().name(name).namespace("ns")
    for owner in owners:
        builder = builder.owner("Job", owner)
    obj = builder.obj()
    obj["status"] = {"phase": phase}
    return Pod.from_json(obj)


def test_occupied_by_names_the_first_members_owners_once_min_member_exist() -> None:
    pods = [_pod("w1", "other"), _pod("w0", "train", "launcher")]

    assert occupied_by(_group(2), pods) == "ns/launcher,ns/train"
    assert occupied_by(_group(3), pods) == ""  # fewer than minMember: not yet


def test_occupied_by_is_kept_once_set_and_empty_without_owners() -> None:
    assert occupied_by(_group(1, occupiedBy="ns/first"), [_pod("w0", "later")]) == "ns/first"
    assert occupied_by(_group(1), [_pod("w0")]) == ""


@pytest.mark.parametrize(
    ("phases", "expected"),
    [
        (["Pending"], "Pending"),  # fewer pods than minMember
        (["Pending", "Pending"], "Scheduling"),
        (["Running", "Running"], "Running"),
        (["Running", "Failed"], "Failed"),
        (["Succeeded", "Succeeded"], "Finished"),
    ],
)
def test_phases_follow_the_controllers_rules(phases: list[str], expected: str) -> None:
    pods = [_pod(f"w{i}", phase=phase) for i, phase in enumerate(phases)]

    assert status_of(_group(2), pods, started="")["phase"] == expected


def test_a_resource_gap_reads_as_quantities_in_their_own_format() -> None:
    gap = {"cpu": 1500, "memory": 512 * 1024**2, "pods": 2, "nvidia.com/gpu": 1}
    wanted = {"cpu": "5", "memory": "4Gi", "nvidia.com/gpu": "2"}

    assert gap_message(gap, wanted) == (
        "resource gap: map[cpu:1500m memory:512Mi nvidia.com/gpu:1 pods:2]"
    )
